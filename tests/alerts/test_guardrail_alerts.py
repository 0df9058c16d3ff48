"""The guardrails' alerts through `check-budgets --notify`: a key its guardrail stops and an
enforced budget used up reach a real SMTP server and a real webhook receiver on loopback,
once per level. The organization file (what each key used) and the budgets file are the
oracles."""

from __future__ import annotations

import datetime as dt

import pytest
from support.builders import enforced, guarded, invoke, serve_to_cli
from support.orgfiles import ORG_ADMIN, admin_organization, org_key, org_usage
from support.receivers import HOOK, alert_receivers
from support.servers import file_app

TODAY = dt.date(2025, 7, 10)
WEB, BATCH = "web-key-0001-1111-2222-webb", "batch-key-03-5555-bbbb"
# July's closed days (1st to 9th): Web 900 characters (over its own budget of 600), Batch 100.
ORG = admin_organization(
    org_key(WEB, "Web", 'created = "2025-05-01T00:00:00Z"'),
    org_key(BATCH, "Batch", 'created = "2025-05-01T00:00:00Z"'),
    *(org_usage(WEB, f"2025-07-0{n}", text=100) for n in range(1, 10)),
    org_usage(BATCH, "2025-07-03", text=100),
)
BUDGETS = guarded(10, 20, enforced("Web key", 600, 'key = "Web"'), enforced("Organization", 50_000))
PERIOD = "2025-07-01 – 2025-07-31 (UTC)"


@pytest.fixture
def guarded(monkeypatch, tmp_path, instant_retries):
    """The organization served to the command line, its budgets and alerts files in the
    working folder, the guardrails applied once (as the hourly timer does)."""
    app = file_app(tmp_path, ORG, today=TODAY)
    serve_to_cli(monkeypatch, app, ORG_ADMIN, TODAY, tmp_path / "history")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "budgets.toml").write_text(BUDGETS, encoding="utf-8")
    applied = invoke("guardrails", "apply", "--yes")
    assert applied.exit_code == 0, applied.output
    with alert_receivers(monkeypatch, tmp_path) as (mailbox, hooks, _):
        yield mailbox, hooks


def test_a_blocked_key_and_a_used_up_budget_are_sent_once(guarded):
    mailbox, hooks = guarded
    first = invoke("check-budgets", "--notify")
    assert first.exit_code == 11, first.output  # the Web key's budget is exceeded, as before
    subjects = [
        f"Enforced budget used up: Web key (characters), usage period {PERIOD}",
        "Key blocked by its guardrail: Web (Web key)",
    ]
    assert [s for s in mailbox.subjects if "guardrail" in s.lower() or "Enforced" in s] == subjects
    posted = {body["id"]: body for body in hooks.at(HOOK)}
    sent = len(mailbox.messages)  # with the budgets' own and the keys' own limits
    used_up = posted["guardrail:Web key:2025-07-01:characters:used-up"]
    assert used_up["level"] == "exceeded"
    assert "allowance of 600 characters" in used_up["text"]
    assert used_up["link"] == "https://dash.example.org/usage/limits?guardrails=true"
    [stopped] = [body for i, body in posted.items() if ":key:" in i]
    assert stopped["id"].startswith("guardrail:Web key:2025-07-01:characters:key:")
    assert stopped["level"] == "warning"
    key_id = stopped["id"].split(":key:", 1)[1]  # the id carries the key id, the text its mask
    assert f"Web ({key_id[:4]}****{key_id[-4:]}) has used 900 characters" in stopped["text"]
    assert key_id not in stopped["text"]
    # Batch used 100 of a share the organization's 50,000 leaves it room in: not blocked.
    assert not [i for i in posted if "Organization" in i]

    again = invoke("check-budgets", "--notify")
    assert again.exit_code == 11, again.output
    assert len(mailbox.messages) == sent
    assert len(hooks.at(HOOK)) == len(posted)
