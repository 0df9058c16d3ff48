"""`guardrails plan`, `apply` and `restore` against an emulated organization, the emulator's own
key store the oracle: exit codes, an enforced budget no key limit can hold refused (exit 2),
limits that hold each enforced budget, every change audited as the guardrail's, hand-set
limits kept and given back, drift, a key created elsewhere capped by the next run, a run
killed between two calls (a real process, SIGKILL) completed by the next one, and two runs at
once."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import msgspec
import pytest
from support import kept
from support.builders import serve_to_cli
from support.orgfiles import GUARDED_BUDGETS, admin_organization, org_key, org_usage
from support.servers import ROOT, auth, emulator_server, file_app
from typer.testing import CliRunner

from analytics.cli import app
from analytics.guardrails.memory import GuardrailState, Memory, highest
from analytics.service.models import UsageLimits
from analytics.usage.calendar import CLOCK_VARIABLE

runner = CliRunner()
TODAY = dt.date(2025, 7, 10)
ADMIN = "guard-admin-0001-aaaa:adm"
WEB, SHOP, BATCH = (
    "web-key-0001-1111-2222-webb",
    "shop-key-002-3333-4444-shop",
    "batch-key-03-5555-bbbb",
)
JUNE_1 = dt.date(2025, 6, 1)
# July's closed days (1st to 9th): Web 900, Shop 180, Batch 1,000. Shop is capped at 500 by hand.
ORG = admin_organization(
    org_key(WEB, "Web", 'created = "2025-05-01T00:00:00Z"'),
    org_key(SHOP, "Shop", 'created = "2025-05-01T00:00:00Z"', "character_limit = 500"),
    org_key(BATCH, "Batch", 'created = "2025-05-01T00:00:00Z"'),
    *(org_usage(WEB, str(JUNE_1 + dt.timedelta(days=n)), text=100) for n in range(39)),
    *(org_usage(SHOP, str(JUNE_1 + dt.timedelta(days=n)), text=20) for n in range(39)),
    org_usage(BATCH, "2025-07-03", document=1_000),
    admin=ADMIN,
)
TEAMS = """
[[team]]
name = "Web"
labels = ["Web", "Shop"]

[[team]]
name = "Data"
labels = ["Batch"]
"""
BUDGETS = GUARDED_BUDGETS  # the two guarded budgets
# An enforced budget no key limit can hold: refused where it is read.
MONTHLY = """
[[budget]]
name = "Monthly"
metric = "total_characters"
period = "month"
limit = 9_000
enforce = true
"""
ORIGINAL = {"Web": None, "Shop": 500, "Batch": None}


def files(folder: Path) -> list[str]:
    (folder / "budgets.toml").write_text(BUDGETS)
    (folder / "teams.toml").write_text(TEAMS)
    return ["--budgets", str(folder / "budgets.toml"), "--teams", str(folder / "teams.toml")]


@pytest.fixture
def served(monkeypatch, tmp_path, instant_retries):
    """The organization served in-process to the command line, as its admin; the emulator's
    key store, and the budget and teams options."""
    emulated = file_app(tmp_path, ORG, today=TODAY)
    serve_to_cli(monkeypatch, emulated, ADMIN, TODAY, tmp_path / "history")
    return emulated.state.emulator.store, files(tmp_path)


def stored(store) -> dict[str, int | None]:
    """Each developer key's character limit as the emulator keeps it."""
    return {row.label: row.character_limit for row in store.developer_keys()}


def guardrails(*args: str):
    return runner.invoke(app, ["guardrails", *args])


def audit() -> list[dict]:
    result = runner.invoke(app, ["keys", "audit", "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def assert_budgets_hold(limits: dict[str, int | None]) -> None:
    """Every key capped, the Web team within 5,000 and everyone within 50,000 (nothing used
    in July is hidden from analytics: the organization file has no usage today)."""
    assert all(limit is not None for limit in limits.values())
    assert limits["Web"] + limits["Shop"] <= 5_000
    assert sum(limits.values()) <= 50_000


def test_plan_apply_and_restore_hold_the_budgets_and_give_back_the_hand_set_limits(served):
    store, options = served
    Path(options[1]).write_text(BUDGETS + MONTHLY)
    refused = guardrails("plan", *options)
    assert refused.exit_code == 2
    assert refused.stderr == (
        f"error: {options[1]}: [[budget]] #3 (enforce): Monthly cannot be enforced: a calendar "
        'month cuts the usage periods and cannot be held across the cut: use period = "usage" '
        "or a contract year starting on a billing day\n"
    )
    Path(options[1]).write_text(BUDGETS)
    planned = guardrails("plan", *options)
    assert planned.exit_code == 10, planned.output
    assert "2 limit changes to send" in planned.stdout  # Shop keeps its 500
    assert planned.stdout.splitlines()[-1] == (
        "2 limit changes pending (exit 10): `guardrails apply --yes` sends them."
    )
    # Keys are named by label and masked key id, as people read them; the key ids, two UUIDs
    # long, only in JSON.
    ids = {row.label: row.published_id for row in store.developer_keys()}
    web_name = f"Web ({ids['Web'][:4]}****{ids['Web'][-4:]})"
    web = next(line for line in planned.stdout.splitlines() if line.startswith(f"{web_name}  "))
    cells = [cell.strip() for cell in web.split("  ") if cell.strip()]
    assert cells[1:3] == ["900", "no limit"]  # counted, and its limit now: none
    assert f"  {web_name}: characters no limit → " in planned.stdout  # the change to send
    assert not any(key_id in planned.stdout for key_id in ids.values())
    record = json.loads(guardrails("plan", "--format", "json", *options).stdout)
    assert {k["label"]: k["key_id"] for k in record["keys"]} == ids
    planned_limits = {k["label"]: k["planned character limit"] for k in record["keys"]}
    assert stored(store) == ORIGINAL

    refused = guardrails("apply", *options)  # a script must say --yes
    assert refused.exit_code == 2 and "give --yes" in refused.stderr
    assert stored(store) == ORIGINAL

    applied = guardrails("apply", "--yes", *options)
    assert applied.exit_code == 0, applied.output
    limits = stored(store)
    assert limits == planned_limits and limits["Shop"] == 500
    assert_budgets_hold(limits)
    assert limits["Web"] > 900 and limits["Batch"] > 1_000  # room above what each used
    entries = audit()
    assert sorted((e["label"], e["who"], e["outcome"]) for e in entries) == [
        ("Batch", "guardrail: Organization", "done"),
        ("Web", "guardrail: Web team", "done"),
    ]
    assert all(e["trace_id"] for e in entries)
    settled = guardrails("plan", *options)
    assert settled.exit_code == 0  # nothing left to change
    assert settled.stdout.splitlines()[-1] == (
        "Nothing to change (exit 0): the keys' limits in force hold the enforced budgets."
    )

    restored = guardrails("restore", "--yes", *options)
    assert restored.exit_code == 0, restored.output
    assert stored(store) == ORIGINAL
    assert len(audit()) == 4


def test_the_state_remembers_the_highest_limits_of_the_day(served, tmp_path):
    # The first run cannot know what limits a key had earlier today: none, for today. A run
    # the next day starts from the limits the last one left.
    _, options = served
    assert guardrails("apply", "--yes", *options).exit_code == 0
    [state] = kept.guardrail_states(tmp_path / "history")
    memory = msgspec.convert(state, GuardrailState).keys
    web = next(m for m in memory.values() if m.by == "Web team")
    assert (web.day, web.highest) == (TODAY, UsageLimits())
    tomorrow = TODAY + dt.timedelta(days=1)
    assert web.highest_on(tomorrow, web.applied) == web.applied
    assert web.highest_on(tomorrow, UsageLimits(characters=1)) == web.applied  # lowered since
    assert web.highest_on(TODAY, web.applied) == UsageLimits()


def test_the_highest_limits_of_a_day_take_each_measures_highest_and_no_limit_above_all():
    seen = [UsageLimits(10, 500), UsageLimits(30, None), UsageLimits(20, 700)]
    assert highest(seen) == UsageLimits(30, None)
    memory = Memory(
        hand=UsageLimits(),
        applied=UsageLimits(40, 100),
        pending=(UsageLimits(5, 100), UsageLimits(60, 100)),
        day=TODAY,
        highest=UsageLimits(90, 50),
    )
    assert memory.highest_on(TODAY, UsageLimits(40, 100)) == UsageLimits(90, 100)
    assert memory.highest_on(TODAY + dt.timedelta(days=1), UsageLimits(40, 100)) == (
        UsageLimits(60, 100)
    )


def test_restore_of_one_budget_gives_back_only_the_limits_it_set(served):
    store, options = served
    assert guardrails("apply", "--yes", *options).exit_code == 0
    applied = stored(store)
    unknown = guardrails("restore", "--budget", "Nope", "--yes", *options)
    assert unknown.exit_code == 2 and "no enforced budget is named 'Nope'" in unknown.stderr
    assert guardrails("restore", "--budget", "Web team", "--yes", *options).exit_code == 0
    after = stored(store)
    assert after["Batch"] == applied["Batch"]  # set by the organization's budget: kept
    assert after["Web"] is not None and after["Web"] > applied["Web"]  # the organization's share
    assert after["Shop"] == 500


def test_a_limit_changed_elsewhere_is_kept_and_a_new_key_is_capped(served):
    store, options = served
    assert guardrails("apply", "--yes", *options).exit_code == 0
    changed = runner.invoke(app, ["keys", "limit", "Web", "--characters", "950"])
    assert changed.exit_code == 0, changed.output
    made = runner.invoke(app, ["keys", "create", "--label", "Fresh"])
    assert made.exit_code == 0, made.output
    planned = guardrails("plan", *options)
    assert planned.exit_code == 10
    ids = {row.label: row.published_id for row in store.developer_keys()}
    web, fresh = (f"{label} ({ids[label][:4]}****{ids[label][-4:]})" for label in ("Web", "Fresh"))
    assert f"{web}: changed elsewhere since the last run (characters " in planned.stdout
    assert f"{fresh}: a key without a limit, new since the last run: capped by this run" in (
        planned.stdout
    )
    assert guardrails("apply", "--yes", *options).exit_code == 0
    limits = stored(store)
    assert limits["Web"] == 950 and limits["Fresh"] is not None
    assert sum(limits.values()) <= 50_000
    assert guardrails("restore", "--yes", *options).exit_code == 0
    assert stored(store) == {**ORIGINAL, "Web": 950, "Fresh": None}


# --- runs in other processes ---------------------------------------------------------------

# The command line with one change: at the start of the second limit call, the process
# kills itself with SIGKILL (a crash between two calls).
KILLED_APPLY = """
import os, signal, sys
from analytics.service.client import ServiceClient
send = ServiceClient.set_developer_key_limits
calls = []

def crash_before_the_second(self, *args, **kwargs):
    if calls:
        os.kill(os.getpid(), signal.SIGKILL)
    calls.append(1)
    return send(self, *args, **kwargs)

ServiceClient.set_developer_key_limits = crash_before_the_second
from analytics.cli import main
sys.argv = ["usage-dashboard", "guardrails", "apply", "--yes", *sys.argv[1:]]
main()
"""


def environment(server, history: Path) -> dict[str, str]:
    return {
        **os.environ,
        "SERVICE_BASE_URL": server.base_url,
        "SERVICE_AUTH_KEY": ADMIN,
        "SERVICE_HISTORY_PATH": str(history),
        CLOCK_VARIABLE: f"{TODAY}T12:00:00Z",
    }


def listed_limits(server) -> dict[str, int | None]:
    """The service's own key list (GET, the admin key)."""
    answer = httpx.get(f"{server.base_url}/v2/admin/developer-keys", headers=auth(ADMIN))
    return {k["label"]: k["usage_limits"]["characters"] for k in answer.json()}


@pytest.fixture
def org_server(tmp_path, monkeypatch):
    """The organization served by the emulator in its own process; the command line of this
    process pointed at it."""
    path = tmp_path / "org.toml"
    path.write_text(ORG)
    with emulator_server("--org", str(path), today=TODAY) as server:
        for name, value in environment(server, tmp_path / "history").items():
            monkeypatch.setenv(name, value)
        yield server


def test_a_run_killed_between_two_calls_is_completed_by_the_next(org_server, tmp_path):
    options = files(tmp_path)
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_APPLY, *options],
        cwd=ROOT,
        env=environment(org_server, tmp_path / "history"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    half = listed_limits(org_server)
    assert sum(limit is not None for limit in half.values()) == 2  # Shop's own, one change
    resumed = guardrails("plan", *options)
    assert resumed.exit_code == 10
    assert "changed elsewhere" not in resumed.stdout  # the killed run's change is its own
    assert guardrails("apply", "--yes", *options).exit_code == 0
    assert_budgets_hold(listed_limits(org_server))
    assert guardrails("plan", *options).exit_code == 0
    assert guardrails("restore", "--yes", *options).exit_code == 0
    assert listed_limits(org_server) == ORIGINAL


def test_two_runs_at_once_send_each_change_once(org_server, tmp_path):
    options = files(tmp_path)
    command = [sys.executable, "-m", "analytics", "guardrails", "apply", "--yes", *options]
    env = environment(org_server, tmp_path / "history")
    runs = [
        subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    for run in runs:
        _, stderr = run.communicate(timeout=120)
        assert run.returncode == 0, stderr
    limits = listed_limits(org_server)
    assert_budgets_hold(limits)
    done = [e for e in audit() if e["outcome"] == "done"]
    assert sorted(e["label"] for e in done) == ["Batch", "Web"]


def test_check_budgets_evaluates_usage_period_and_team_budgets(served):
    _, options = served
    checked = runner.invoke(app, ["check-budgets", "--no-key-limits", *options])
    assert checked.exit_code == 0, checked.output
    cells = [
        [c.strip() for c in line.split("  ") if c.strip()] for line in checked.stdout.splitlines()
    ]
    rows = {row[0]: row[1:4] for row in cells[1:]}
    # July's closed days: 900 + 180 + 1,000 for the organization, 900 + 180 for the Web team.
    assert rows["Organization"] == ["2025-07-01 – 2025-07-31", "2,080", "50,000"]
    assert rows["Web team"] == ["2025-07-01 – 2025-07-31", "1,080", "5,000"]


def test_limits_are_lowered_before_any_is_raised(served, tmp_path):
    store, options = served
    assert guardrails("apply", "--yes", *options).exit_code == 0
    before = stored(store)
    # A larger Web team budget and a smaller organization: Web goes up, Batch (whose key id
    # sorts after Web's) comes down, and is sent first.
    (tmp_path / "budgets.toml").write_text(
        BUDGETS.replace("limit = 5_000", "limit = 9_000").replace("50_000", "30_000")
    )
    assert guardrails("apply", "--yes", *options).exit_code == 0
    after = stored(store)
    assert after["Web"] > before["Web"] and after["Batch"] < before["Batch"]
    ids = {row.label: row.published_id for row in store.developer_keys()}
    assert ids["Web"] < ids["Batch"]
    assert [e["label"] for e in audit()[2:]] == ["Batch", "Web"]
