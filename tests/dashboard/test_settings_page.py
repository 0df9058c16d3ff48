"""The Settings page headless (Streamlit's AppTest) on the demo organization with a history
folder of its own (a fresh state store, the examples imported at the first start): who sees
a form, SETTINGS_SOURCE=files read-only, a refused budget in the words of `settings import`,
two sessions saving one budget, a restore, and the previews' effects against what the
commands give after the save. And a state store failing while a page reads the settings."""

from __future__ import annotations

import io
import json
import re
from decimal import Decimal

import pandas as pd
import pytest
from support.builders import invoke
from support.headless import TODAY, app_test, open_clean_page, open_page
from support.servers import ROOT
from test_access import AUTH

from analytics.access import rights, role_settings
from analytics.dashboard.access import SETTINGS, change_refusal
from analytics.dashboard.settings_in_force import FALLBACK
from analytics.pages import page_at
from analytics.settings.parts import PARTS
from analytics.storage.state_store import StoreUnavailable
from analytics.usage.calendar import resolve

EXAMPLES = {part: (ROOT / f"{part}.example.toml").read_text() for part in PARTS}
BUDGETS, TEAMS = EXAMPLES["budgets"], EXAMPLES["teams"]
LAST_MONTH = [day.isoformat() for day in resolve("last-month", TODAY)]
TEAM_BUDGET = """
[[budget]]
name = "Marketing, monthly"
team = "Marketing"
metric = "total_characters"
period = "month"
limit = 3
"""


def edit(at, part: str, text: str):
    """Type ``text`` as the part's settings and press Preview (one click, as a person does)."""
    at.text_area(key=f"settings_text_{part}").set_value(text)
    return at.button(key=f"settings_preview_{part}").click().run()


def codes(at) -> list[str]:
    return [code.value.strip() for code in at.code]  # as shown, the last newline aside


def errors(at) -> list[str]:
    return [error.value for error in at.error]


@pytest.mark.parametrize(
    ("demo", "configured", "email", "admins", "allowed", "expected"),
    [
        (True, False, None, [], False, None),
        # Signed in to the demo, the person's roles decide, as anywhere else.
        (True, True, "viewer@example.org", ["ops@example.org"], False, "SETTINGS_ADMIN_EMAILS"),
        (True, True, "ops@example.org", ["ops@example.org"], False, None),
        (False, True, "ops@example.org", ["OPS@example.org"], False, None),
        (False, True, "viewer@example.org", ["ops@example.org"], True, "SETTINGS_ADMIN_EMAILS"),
        (False, False, None, [], False, "SERVICE_ALLOW_SETTINGS_CHANGES"),
        (False, False, None, [], True, None),
    ],
)
def test_who_may_change_the_settings(demo, configured, email, admins, allowed, expected):
    held = rights(role_settings({"SETTINGS_ADMIN_EMAILS": admins}).grants(email, {}))
    refusal = change_refusal(SETTINGS, demo, configured, email, held.change_settings, allowed)
    assert (refusal is None) == (expected is None)
    if expected:
        assert expected in refusal


def test_a_viewer_sees_every_setting_and_no_form(monkeypatch, tmp_path, emulator_process):
    monkeypatch.setenv("SERVICE_AUTH_KEY", emulator_process.admin_key)
    monkeypatch.setenv("SERVICE_BASE_URL", emulator_process.base_url)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path / "history"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "teams.toml").write_text(TEAMS)
    at = app_test()
    at.secrets.update(
        AUTH
        | {"ADMIN_EMAILS": ["viewer@example.org"], "SETTINGS_ADMIN_EMAILS": ["ops@example.org"]}
    )
    at.user = {"is_logged_in": True, "email": "viewer@example.org"}
    at.switch_page(str(page_at("settings").file))
    at.run()
    assert not at.exception
    assert not at.text_area and [button.label for button in at.button] == ["Sign out"]
    assert any("SETTINGS_ADMIN_EMAILS" in info.value for info in at.info)
    assert TEAMS.strip() in codes(at)  # the teams file found, imported once, shown


def test_a_save_names_the_signed_in_person_in_the_demo_too(demo_env, monkeypatch, tmp_path):
    """Signed in to the demo as a settings administrator: the version saved, and the
    history, name the person by the identity token's e-mail, not "demo dashboard"."""
    monkeypatch.chdir(tmp_path)
    at = app_test()
    at.secrets.update(AUTH | {"ADMIN_EMAILS": [], "SETTINGS_ADMIN_EMAILS": ["ops@example.org"]})
    at.user = {"is_logged_in": True, "email": "ops@example.org"}
    at.switch_page(str(page_at("settings").file))
    at.run()
    assert not at.exception
    edit(at, "budgets", BUDGETS.replace("limit = 3_200_000", "limit = 3_300_000"))
    at.button(key="settings_save_budgets").click().run()
    assert not at.exception and not errors(at)
    history = invoke("settings", "history", "--demo")
    assert history.exit_code == 0, history.stderr
    [newest] = [line for line in history.stdout.splitlines() if "budgets" in line][:1]
    assert "ops@example.org" in newest and "demo dashboard" not in newest


def test_with_settings_source_files_every_part_is_read_only(demo_env, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SETTINGS_SOURCE", "files")
    at = open_clean_page("settings")
    assert not at.text_area and not at.button
    named = [c.value for c in at.caption if c.value.startswith("Read-only, from ")]
    assert [line.split()[2] for line in named] == [f"{part}.example.toml." for part in PARTS]


MONTHLY_ENFORCED = BUDGETS.replace(
    'period = "usage"\nlimit = 4_000_000', 'period = "month"\nlimit = 4_000_000'
)


def test_a_refused_budget_is_said_in_the_words_of_settings_import(demo_env, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    at = edit(open_clean_page("settings"), "budgets", MONTHLY_ENFORCED)
    [said] = errors(at)
    (tmp_path / "budgets.toml").write_text(MONTHLY_ENFORCED)
    imported = invoke("settings", "import", "budgets.toml", "--yes", "--demo")
    assert imported.exit_code == 2
    assert imported.stderr == f"error: {said}\n"
    assert "(enforce): All characters, usage period, enforced cannot be enforced" in said
    assert "settings_save_budgets" not in [button.key for button in at.button]


def test_two_sessions_save_one_budget_the_second_sees_the_diff_and_takes_theirs(
    demo_env, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)
    ana, bo = open_clean_page("settings"), open_clean_page("settings")
    theirs = BUDGETS.replace("limit = 3_200_000", "limit = 3_300_000")
    mine = theirs.replace("limit = 1_500", "limit = 1_600")
    edit(bo, "budgets", theirs).button(key="settings_save_budgets").click().run()
    edit(ana, "budgets", mine).button(key="settings_save_budgets").click().run()
    [refused] = errors(ana)
    assert refused.startswith("budgets: someone changed these settings meanwhile: you edited")
    [diff] = [code for code in ana.code if code.language == "diff"]
    changed = [line for line in diff.value.splitlines() if line[:1] in "+-"]
    assert changed == ["--- version 2", "+++ yours", "-limit = 1_500", "+limit = 1_600"]
    ana.button(key="settings_take_theirs_budgets").click().run()
    assert not errors(ana)
    assert ana.text_area(key="settings_text_budgets").value == mine  # the text typed, kept
    # Previewed wholly against version 2: only the change typed, nothing of version 1.
    assert "[[budget]] #3 (limit): 1500 → 1600" in codes(ana)
    assert not any("3200000" in code or "3,200,000" in code for code in codes(ana))
    ana.button(key="settings_save_budgets").click().run()
    assert not ana.exception and not errors(ana)
    invoke("settings", "export", "--to", "out", "--demo")
    assert (tmp_path / "out" / "budgets.toml").read_text() == mine


def test_restore_gives_back_an_earlier_version_as_a_new_one(demo_env, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    at = open_clean_page("settings")
    edit(at, "teams", TEAMS.replace('"Marketing"', '"Growth"'))
    at.button(key="settings_save_teams").click().run()
    at.selectbox(key="settings_restore_choice_teams").set_value(1)
    at.button(key="settings_restore_teams").click().run()
    assert '[[team]] #3 (name): "Growth" → "Marketing"' in codes(at)
    at.button(key="settings_save_teams").click().run()
    assert not at.exception and not errors(at)
    history = invoke("settings", "history", "teams", "--demo").stdout.splitlines()[1:]
    assert [line.split()[1] for line in history] == ["3", "2", "1"]
    assert "restoring version 1" in history[0]
    invoke("settings", "export", "--to", "out", "--demo")
    assert (tmp_path / "out" / "teams.toml").read_text() == TEAMS


def test_the_teams_preview_is_the_chargeback_the_export_gives_after_the_save(
    demo_env, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)
    before = web_shop_pays()
    at = open_clean_page("settings")
    moved = TEAMS.replace('"Marketing launch", ', "").replace(
        '"Partner portal"]', '"Partner portal", "Marketing launch"]'
    )
    edit(at, "teams", moved)
    effect = next(code for code in codes(at) if "then holds" in code).splitlines()
    web = next(line for line in effect if line.startswith("Web shop then holds"))
    at.button(key="settings_save_teams").click().run()
    assert f"its chargeback {before:,} → {web_shop_pays():,} EUR" in web
    assert any(line.startswith("Marketing then holds") for line in effect)


def web_shop_pays() -> Decimal:
    """Web shop's usage cost and base fee share of last month, as `export` writes them."""
    exported = invoke(
        "export", "--demo", "--start", LAST_MONTH[0], "--end", LAST_MONTH[1],
        "--group-by", "team", "--with-cost", "-o", "-",
    )  # fmt: skip
    teams = pd.read_csv(io.StringIO(exported.stdout), dtype=str).set_index("team")
    return Decimal(teams.loc["Web shop", "usage_cost_eur"]) + Decimal(
        teams.loc["Web shop", "base_fee_share_eur"]
    )


def test_the_budgets_preview_is_the_guardrails_plan_after_the_save(demo_env, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    at = open_clean_page("settings")
    edit(at, "budgets", BUDGETS.replace("limit = 4_000_000", "limit = 3_000_000"))
    [effect] = [code for code in codes(at) if code.startswith("The guardrails plan:")]
    at.button(key="settings_save_budgets").click().run()
    planned = invoke("guardrails", "plan", "--format", "json", "--demo")
    changes = json.loads(planned.stdout)["changes"]
    assert changes
    listed = [line.strip().removesuffix(" (new)") for line in effect.splitlines()[1:]]
    masked = [f"{c['key_id'][:4]}****{c['key_id'][-4:]}" for c in changes]  # the service's mask
    assert listed == [
        f"{c['label']} ({mask}): {c['change']}" for c, mask in zip(changes, masked, strict=True)
    ]


def test_back_from_another_page_each_text_is_the_version_in_force(demo_env, monkeypatch, tmp_path):
    # Streamlit forgets a widget's value once a run does not draw it: a visit to another page
    # must not leave the text areas empty (a person would edit, or save, an empty document).
    monkeypatch.chdir(tmp_path)
    at = open_clean_page("settings")
    at.switch_page(str(page_at("chargeback").file)).run()
    at.switch_page(str(page_at("settings").file)).run()
    assert not at.exception and not at.error
    texts = {area.key: area.value for area in at.text_area}
    assert texts == {f"settings_text_{part}": EXAMPLES[part] for part in PARTS}
    assert not [info for info in at.info if "Unsaved edit" in info.value]


def test_an_unsaved_edit_is_kept_across_pages_and_said(demo_env, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    at = open_clean_page("settings")
    typed = BUDGETS.replace("limit = 3_200_000", "limit = 3_100_000")
    at.text_area(key="settings_text_budgets").set_value(typed).run()  # typed, not previewed
    at.switch_page(str(page_at("chargeback").file)).run()
    at.switch_page(str(page_at("settings").file)).run()
    assert not at.exception and not at.error
    assert at.text_area(key="settings_text_budgets").value == typed
    assert at.text_area(key="settings_text_teams").value == TEAMS
    [said] = [info.value for info in at.info if "Unsaved edit" in info.value]
    assert said.startswith("Unsaved edit of version 1")


def test_a_typo_is_refused_with_its_suggestion_in_the_words_of_settings_import(
    demo_env, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)
    typo = BUDGETS.replace('key = "Production website"', 'key = "Prodution website"')
    typo += TEAM_BUDGET.replace('team = "Marketing"', 'team = "Marketting"')
    at = edit(open_clean_page("settings"), "budgets", typo)
    [said] = errors(at)
    assert said == (
        "budgets.toml: [[budget]] #4 (key): key 'Prodution website' does not exist; did you "
        "mean 'Production website'?; budgets.toml: [[budget]] #10 (team): team 'Marketting' "
        "does not exist; did you mean 'Marketing'?"
    )
    assert "settings_save_budgets" not in [button.key for button in at.button]
    (tmp_path / "edits").mkdir()
    (tmp_path / "edits" / "budgets.toml").write_text(typo)
    imported = invoke("settings", "import", "edits/budgets.toml", "--yes", "--demo")
    assert imported.exit_code == 2
    assert imported.stderr == f"error: {said.replace('budgets.toml', 'edits/budgets.toml')}\n"
    owner = TEAMS.replace('key = "Production website"', 'key = "Producton website"')
    [said] = errors(edit(at, "teams", owner))
    assert said.endswith(
        "key 'Producton website' does not exist; did you mean 'Production website'?"
    )


def test_save_is_enabled_only_for_the_preview_of_the_text_shown(demo_env, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    at = open_clean_page("settings")
    assert "settings_save_teams" not in [button.key for button in at.button]  # no preview yet
    previewed = TEAMS.replace('"Marketing"', '"Growth"')
    edit(at, "teams", previewed)
    assert not at.button(key="settings_save_teams").disabled
    at.text_area(key="settings_text_teams").set_value(previewed.replace("Growth", "Sales")).run()
    assert at.button(key="settings_save_teams").disabled
    assert any(c.value.startswith("The text changed since this preview") for c in at.caption)
    history = invoke("settings", "history", "teams", "--demo").stdout.splitlines()[1:]
    assert [line.split()[1] for line in history] == ["1"]
    at.button(key="settings_preview_teams").click().run()
    at.button(key="settings_save_teams").click().run()
    assert not errors(at)
    label = at.text_area(key="settings_text_teams").label
    assert label.startswith("Teams and key owners: your edit of version 2 ")


def test_a_failing_store_is_a_warning_and_the_files_are_read(demo_env, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)

    def failing(records):
        raise StoreUnavailable("the state store at nowhere cannot be reached")

    monkeypatch.setattr("analytics.settings.in_force.held", failing)
    at = open_page("chargeback")
    assert not at.exception and not at.error
    [warning] = [w.value for w in at.warning if "cannot be reached" in w.value]
    assert warning.endswith(FALLBACK)
    assert at.dataframe  # the chargeback, at the example prices


def test_a_key_given_an_owner_shows_it_on_keys_keys_and_limits_and_in_keys_list(
    demo_env, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)
    owned = TEAMS.replace('key = "Production website"', 'key = "Marketing launch"').replace(
        'web-shop@example.org"\npurpose', 'ana@example.org"\npurpose'
    )
    at = edit(open_clean_page("settings"), "teams", owned)
    at.button(key="settings_save_teams").click().run()
    shown = open_clean_page("limits").dataframe[0].value  # keys named by label and mask
    assert list(shown.columns[-2:]) == ["owner", "purpose"]
    marketing = shown["label"].str.startswith("Marketing launch (")
    assert list(shown.loc[marketing, "owner"]) == ["ana@example.org"]
    used = open_clean_page("keys").dataframe[0]  # the keys used in the last 30 days
    assert list(used.proto.column_order)[-2:] == ["owner", "purpose"]
    owners = used.value.set_index("api_key_label")["owner"]
    assert owners["Marketing launch"] == "ana@example.org"
    assert set(owners.drop(index="Marketing launch")) == {""}
    listed = invoke("keys", "list", "--demo", "--format", "csv")
    rows = pd.read_csv(io.StringIO(listed.stdout), keep_default_na=False)
    assert list(rows.columns[-2:]) == ["owner", "purpose"]
    marketing = rows["label"].str.startswith("Marketing launch (")
    assert list(rows.loc[marketing, "owner"]) == ["ana@example.org"]
    assert set(rows.loc[~marketing, "owner"]) == {""}


def budget_status_on_both_surfaces() -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """Each budget's (name, limit, used, status) on the Capacity page and in `check-budgets`,
    numbers as the command prints them."""
    shown = open_clean_page("capacity").dataframe[0].value
    page = [
        (row.budget, f"{row.limit:,.{2 if row.unit != 'characters' else 0}f}", row.status)
        for row in shown.itertuples()
    ]
    printed = invoke("check-budgets", "--demo", "--no-key-limits").stdout.splitlines()[1:]
    cells = [re.split(r"\s{2,}", line.strip()) for line in printed]
    return page, [(cell[0], cell[3], cell[-1]) for cell in cells]


def test_the_budget_status_reads_the_same_on_the_page_and_the_command_around_a_change(
    demo_env, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)
    page, command = budget_status_on_both_surfaces()
    assert page == command
    assert ("All characters, monthly", "3,200,000", "ok") in page
    at = open_clean_page("settings")
    edit(at, "budgets", BUDGETS.replace("limit = 3_200_000", "limit = 3_200"))
    at.button(key="settings_save_budgets").click().run()
    page, command = budget_status_on_both_surfaces()
    assert page == command
    # Exceeded, or on a month's first day (nothing of it closed yet) warned of as projected.
    [lowered] = [row for row in page if row[0] == "All characters, monthly"]
    assert lowered[1] == "3,200" and lowered[2] in ("exceeded", "warning")
    # A team's budget is measured over the team's keys on both, as the teams settings name them.
    at = open_clean_page("settings")
    assert errors(edit(at, "budgets", BUDGETS + TEAM_BUDGET)) == []
    at.button(key="settings_save_budgets").click().run()
    page, command = budget_status_on_both_surfaces()
    assert page == command
    [team] = [row for row in page if row[0] == "Marketing, monthly"]
    assert team[1] == "3" and team[2] in ("exceeded", "warning")


def test_a_route_whose_variable_is_unset_is_warned_of_beside_where_alerts_go(
    demo_env, monkeypatch, tmp_path
):
    """The alert routes' preview says where alerts go before → after, as the other documents'
    previews say their effect, and warns of a route this host cannot send to in the words
    `settings import` warns with."""
    monkeypatch.chdir(tmp_path)
    for variable in ("ANALYTICS_SLACK_WEBHOOK_URL", "ANALYTICS_TEAMS_WEBHOOK_URL"):
        monkeypatch.setenv(variable, "https://hooks.example.org/T000/B000")
    monkeypatch.delenv("ANALYTICS_ON_CALL_URL", raising=False)
    routes = EXAMPLES["alerts"] + (
        '\n[[webhook]]\nname = "on call"\nkind = "json"\nurl_env = "ANALYTICS_ON_CALL_URL"\n'
    )
    at = edit(open_clean_page("settings"), "alerts", routes)
    assert not errors(at)
    [warned] = [w.value for w in at.warning if "ANALYTICS_ON_CALL_URL" in w.value]
    assert warned.startswith(
        "alerts.toml: [[webhook]] #3 (url_env): the environment variable ANALYTICS_ON_CALL_URL "
        "is not set"
    )
    went = "e-mail, capacity channel (slack), operations team (teams)"
    assert f"alerts go to: {went} → {went}, on call (json)" in codes(at)
    assert "Its effect" in [m.value.strip("*") for m in at.markdown]
    assert not at.button(key="settings_save_alerts").disabled  # a warning: this host may not send
    (tmp_path / "edits").mkdir()
    (tmp_path / "edits" / "alerts.toml").write_text(routes)
    imported = invoke("settings", "import", "edits/alerts.toml", "--demo")  # no --yes: a preview
    assert imported.stderr.splitlines()[0] == f"warning: {warned}"
