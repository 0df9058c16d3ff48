"""The Guardrails section of Keys & limits headless (Streamlit's AppTest) on the demo
organization: what a key admin sees and does (Apply now, Restore with a confirmation), what a
viewer sees (no button), the caption without an enforced budget, and the Capacity page's link.
The emulator's own key store, the command line's plan and the budgets file are the oracles."""

from __future__ import annotations

import json
from urllib.parse import parse_qs

import pytest
from support.builders import invoke
from support.headless import open_clean_page, open_page
from test_key_actions import audit_entries, stored
from test_limits_page import configured, signed_in  # noqa: F401 - a fixture, and its sign-in

ORGANIZATION_ROOM = 2_000_000  # the organization's budget: its use so far and this much more


def budgets(organization: int, key: int) -> str:
    """Two enforced budgets, the organization's and the writing assistant's own."""
    return f"""
[[budget]]
name = "Organization"
metric = "total_characters"
period = "usage"
limit = {organization}
enforce = true

[[budget]]
name = "Writing assistant"
metric = "total_characters"
period = "usage"
limit = {key}
key = "Writing assistant"
enforce = true
"""


BUDGETS = budgets(ORGANIZATION_ROOM, 50_000)


@pytest.fixture
def enforced(changed_demo, monkeypatch, tmp_path) -> tuple[int, int]:
    """The demo dashboard beside a budgets.toml of its own, its limits read from what the demo
    used so far this usage period (the command line's plan), so that on any day the writing
    assistant's budget stops it and the organization's leaves room; the demo's examples give
    the teams and prices, the files being the settings (they are written twice). The two
    limits."""
    monkeypatch.setenv("SETTINGS_SOURCE", "files")
    (tmp_path / "budgets.toml").write_text(BUDGETS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    counted = {k["label"]: k["characters counted"] for k in cli_plan()["keys"]}
    limits = (round(sum(counted.values())) + ORGANIZATION_ROOM, round(counted["Writing assistant"]))
    (tmp_path / "budgets.toml").write_text(budgets(*limits), encoding="utf-8")
    return limits


def section(**params: str):
    return open_page("limits", guardrails="true", **params)


def opened(at):
    """A session's page run again with the section opened by the address."""
    at.query_params["guardrails"] = "true"
    return at.run()


def frame(at, *columns: str):
    """The one table shown with these columns."""
    [found] = [df.value for df in at.dataframe if set(columns) <= set(df.value.columns)]
    return found


def button(at, key: str):
    return at.button(key=key)


def cli_plan() -> dict:
    """The command line's plan over the same demo store and files: what Apply must send."""
    result = invoke("guardrails", "plan", "--demo", "--format", "json")
    assert result.exit_code in (0, 10), result.output
    return json.loads(result.stdout)


def test_an_admin_applies_exactly_the_plan_and_restores_the_hand_set_limits(enforced):
    organization_limit, key_limit = enforced
    planned = cli_plan()
    before = stored()
    changes = {c["key_id"]: c for c in planned["changes"]}
    assert len(changes) > 1  # several: the plural
    # Each key named as people read it, its label and masked key id; the id only in JSON.
    names = {f"{c['label']} ({i[:4]}****{i[-4:]})" for i, c in changes.items()}
    at = section()
    assert not at.exception and not at.error
    shown = frame(at, "change")
    assert set(shown["key"]) == names
    assert not any("key_id" in df.value.columns for df in at.dataframe if "key" in df.value)
    assert any("No guardrails run yet" in c.value for c in at.caption)
    # Before any run nothing is blocked by the limits in force (the demo's keys have none that
    # their use reaches); the writing assistant would be, once applied.
    assert any(c.value == "No key is blocked by the limits in force now." for c in at.caption)
    assert not any("Blocked now" in m.value for m in at.markdown)
    assert "**Would be blocked after Apply now: 1**" in [m.value for m in at.markdown]

    button(at, "guardrails_apply").click().run()
    assert not at.exception and not at.error
    assert stored() == before  # the confirmation opens; nothing is sent yet
    # The section's pending changes and the confirmation's list: the same changes.
    listed = [df.value for df in at.dataframe if {"change", "note"} <= set(df.value.columns)]
    assert len(listed) == 2
    assert all(set(table["key"]) == names for table in listed)
    [flagged] = [w.value for w in at.warning if "Look before sending" in w.value]
    assert "Writing assistant" in flagged
    button(at, "apply_confirm").click().run()
    assert not at.exception and not at.error
    after = stored()
    for key_id, key in after.items():
        if key_id in changes:
            limit = changes[key_id]["characters_limit"]["planned"]
            assert key.characters == limit, key
        else:
            assert key == before[key_id]
    # The budgets hold: every active key capped, all within the organization's budget, the
    # writing assistant within its own.
    active = {i: k for i, k in after.items() if not k.deactivated}
    assert all(k.characters is not None for k in active.values())
    assert sum(k.characters for k in active.values()) <= organization_limit
    [writing] = [k for k in active.values() if k.label == "Writing assistant"]
    assert writing.characters <= key_limit
    entries = audit_entries()
    assert sorted((e["key_id"], e["who"], e["outcome"]) for e in entries) == sorted(
        (i, f"guardrail: {c['by']}", "done") for i, c in changes.items()
    )
    assert all(e["trace_id"] for e in entries)
    assert any("Applied the guardrails" in s.value for s in at.success)
    assert any(
        f"apply by demo dashboard: done, {len(changes)} changes sent" in c.value for c in at.caption
    )
    # Applied, the writing assistant is blocked by the limit in force, and nothing more would be.
    [blocked] = frame(at, "measure", "used")["key"].tolist()
    assert blocked.startswith("Writing assistant (") and "****" in blocked
    assert "**Blocked now, by the limits in force: 1**" in [m.value for m in at.markdown]
    assert not any("Would be blocked" in m.value for m in at.markdown)
    assert button(at, "guardrails_apply").disabled  # nothing left to change

    button(at, "guardrails_restore").click().run()
    previewed = frame(at, "change")
    assert set(previewed["key"]) == names
    assert stored() == after  # nothing is sent before the confirmation
    button(at, "restore_confirm").click().run()
    assert not at.exception and not at.error
    assert stored() == before
    assert len(audit_entries()) == 2 * len(changes)
    assert any("restore by demo dashboard: done" in c.value for c in at.caption)


@pytest.mark.usefixtures("configured")
def test_a_viewer_sees_the_section_without_a_button(monkeypatch, tmp_path):
    (tmp_path / "budgets.toml").write_text(BUDGETS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    viewer = opened(signed_in("viewer@example.org"))
    assert not viewer.exception
    assert frame(viewer, "character headroom") is not None
    explained_in_place(viewer)
    keys = {b.key for b in viewer.button}
    assert not keys & {"guardrails_apply", "guardrails_restore", "restore_confirm"}
    admin = opened(signed_in("ops@example.org"))
    assert {"guardrails_apply", "guardrails_restore"} <= {b.key for b in admin.button}


def explained_in_place(at) -> None:
    """Every column of the section's own tables carries its explanation as its header's help,
    and a limit that is not there reads "no limit", never "None" or a blank."""
    marks = ({"in limits"}, {"character headroom"}, {"measure", "used"}, {"change", "note"})
    guardrail_tables = [
        df for df in at.dataframe if any(mark <= set(df.value.columns) for mark in marks)
    ]
    assert len(guardrail_tables) >= 3  # budgets shared out, keys, changes
    for df in guardrail_tables:
        config = json.loads(df.proto.columns or "{}")
        assert all(config[str(c)].get("help") for c in df.value.columns), config
    keys = frame(at, "character headroom")
    limits = keys[["character limit", "minute limit", "planned minute limit"]]
    assert limits.notna().all().all()
    assert "no limit" in set(limits.to_numpy().ravel())


def test_without_an_enforced_budget_one_caption_says_how(demo_env, monkeypatch, tmp_path):
    (tmp_path / "budgets.toml").write_text(BUDGETS.replace("enforce = true", ""))
    monkeypatch.chdir(tmp_path)
    at = open_clean_page("limits", guardrails="true")
    [said] = [c.value for c in at.caption if "No budget is enforced" in c.value]
    assert "enforce = true" in said and "docs/guardrails.md" in said
    assert not [b for b in at.button if b.key and b.key.startswith("guardrails_")]


def test_capacity_links_to_the_section(demo_env):
    at = open_clean_page("capacity")
    links = [e.proto for e in at.get("page_link") if e.proto.page == "limits"]
    assert {"guardrails": ["true"]} in [parse_qs(link.query_string) for link in links]


def test_reset_demo_forgets_the_guardrails_so_the_next_plan_is_the_first_again(enforced):
    first = cli_plan()
    applied = invoke("guardrails", "apply", "--demo", "--yes")
    assert applied.exit_code == 0, applied.output
    assert cli_plan()["changes"] == []
    reset = invoke("reset-demo")
    assert reset.exit_code == 0, reset.output
    # The reset limits are the keys' own again: no drift said, the same changes planned.
    assert cli_plan() == first
