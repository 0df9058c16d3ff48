"""Settings checked against the organization: a budget's key or team, a key owner's key and a
team's claimed labels and tags that do not exist are refused with the nearest existing name,
by `settings import` in the words of the one check; an alert route whose variable is unset
warned of; `settings export` with nothing in force refused once; a bad SETTINGS_SOURCE named
as a person sets it."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.builders import invoke
from support.servers import ROOT

from analytics.exit_codes import USAGE
from analytics.settings.organization_names import Organization, unknown_names
from analytics.settings.parts import SettingsProblem, check

BUDGETS = (ROOT / "budgets.example.toml").read_text()
TEAMS = (ROOT / "teams.example.toml").read_text()
ORG = Organization(
    keys=frozenset({"Production website", "Mobile app", "abcd****wxyz"}),
    tags=frozenset({"newsletter"}),
    teams=frozenset({"Field apps", "Web shop"}),
)


def budget(field: str, name: str) -> str:
    entry = f'{field} = "{name}"\nmetric = "total_characters"\nperiod = "month"\nlimit = 3'
    return f"[[budget]]\n{entry}\n"


def test_a_typo_is_refused_with_the_nearest_name() -> None:
    with pytest.raises(SettingsProblem) as refused:
        check(
            "budgets", budget("team", "Feld apps") + budget("key", "Prodution website"), None, ORG
        )
    assert str(refused.value) == (
        "budgets.toml: [[budget]] #1 (team): team 'Feld apps' does not exist; did you mean "
        "'Field apps'?; budgets.toml: [[budget]] #2 (key): key 'Prodution website' does not "
        "exist; did you mean 'Production website'?"
    )
    owner = '[[team]]\nname = "Web shop"\n\n[[key]]\nkey = "Mobil app"\nowner = "a@example.org"\n'
    assert unknown_names("teams", owner, ORG) == [
        "[[key]] #1 (key): key 'Mobil app' does not exist; did you mean 'Mobile app'?"
    ]


def test_existing_names_pass_and_a_claim_of_a_key_to_come_is_kept() -> None:
    check("budgets", budget("key", "abcd****wxyz") + budget("team", "Web shop"), None, ORG)
    claims = '[[team]]\nname = "Web shop"\nlabels = ["Support desk", "Mobile app"]\n'
    claims += 'tags = ["newsletter"]\n'
    check("teams", claims, None, ORG)  # "Support desk" is near no key: a key to come
    typo = claims.replace('"newsletter"', '"newsleter"')
    assert unknown_names("teams", typo, ORG) == [
        "[[team]] #1 (tags): tag 'newsleter' does not exist; did you mean 'newsletter'?"
    ]


def test_a_name_the_version_in_force_gives_already_is_left_to_its_status() -> None:
    retired = budget("key", "Old pipeline")
    assert unknown_names("budgets", retired + budget("key", "Mobil app"), ORG, retired) == [
        "[[budget]] #2 (key): key 'Mobil app' does not exist; did you mean 'Mobile app'?"
    ]


def test_a_name_nothing_is_near_is_refused_without_a_suggestion() -> None:
    assert unknown_names("budgets", budget("team", "Zzz"), ORG) == [
        "[[budget]] #1 (team): team 'Zzz' does not exist"
    ]
    no_teams = Organization(ORG.keys, ORG.tags, None)
    assert unknown_names("budgets", budget("team", "Web shop"), no_teams) == [
        "[[budget]] #1 (team): no teams settings in force name 'Web shop'"
    ]


NAMES = st.text(string.ascii_letters + " ", min_size=8, max_size=20).filter(str.strip)


@given(st.lists(NAMES, min_size=1, max_size=6, unique=True), st.data())
def test_one_letter_dropped_from_a_key_is_a_typo_of_it(keys: list[str], data) -> None:
    chosen = data.draw(st.sampled_from(keys))
    at = data.draw(st.integers(0, len(chosen) - 1))
    typo = chosen[:at] + chosen[at + 1 :]
    org = Organization(frozenset(keys), frozenset(), None)
    assert unknown_names("budgets", budget("key", chosen), org) == []
    found = unknown_names("teams", f'[[team]]\nname = "T"\nlabels = ["{typo}"]\n', org)
    assert typo in keys or (len(found) == 1 and "did you mean" in found[0])


@pytest.fixture
def folder(demo_env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def test_settings_import_refuses_a_typo_and_saves_nothing(folder: Path) -> None:
    typo = BUDGETS.replace('key = "Production website"', 'key = "Prodution website"')
    (folder / "edits").mkdir()  # not beside the program, where the first start would read it
    (folder / "edits" / "budgets.toml").write_text(typo + budget("team", "Marketting"))
    imported = invoke("settings", "import", "edits/budgets.toml", "--yes", "--demo")
    assert imported.exit_code == USAGE.code
    assert imported.stderr == (
        "error: edits/budgets.toml: [[budget]] #4 (key): key 'Prodution website' does not "
        "exist; did you mean 'Production website'?; edits/budgets.toml: [[budget]] #10 (team): "
        "team 'Marketting' does not exist; did you mean 'Marketing'?\n"
    )
    history = invoke("settings", "history", "budgets", "--demo").stdout.splitlines()
    assert len(history) == 2  # the heading and the example imported at the first start


def test_settings_import_warns_of_a_route_whose_variable_is_unset(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANALYTICS_SLACK_WEBHOOK_URL", raising=False)
    alerts = (ROOT / "alerts.example.toml").read_text().replace("quiet_days = 3", "quiet_days = 4")
    (folder / "edits").mkdir()
    (folder / "edits" / "alerts.toml").write_text(alerts)
    imported = invoke("settings", "import", "edits/alerts.toml", "--yes", "--demo")
    assert imported.exit_code == 0, imported.stderr
    assert imported.stderr.startswith(
        "warning: alerts.toml: [[webhook]] #1 (url_env): the environment variable "
        "ANALYTICS_SLACK_WEBHOOK_URL is not set"
    )
    assert "alerts: saved as version 2" in imported.stdout


def test_export_with_nothing_in_force_says_so_once_and_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", "")  # no store, no files beside it: nothing
    exported = invoke("settings", "export", "--to", "out")
    assert exported.exit_code == USAGE.code
    assert exported.stdout == ""
    assert exported.stderr.count("no settings in force") == 1
    assert not (tmp_path / "out").exists()


def test_a_bad_settings_source_is_named_as_it_is_set(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SETTINGS_SOURCE", "filez")
    exported = invoke("settings", "export", "--demo")
    assert exported.exit_code == USAGE.code
    assert "SETTINGS_SOURCE: Input should be 'store' or 'files'" in exported.stderr
    assert "SERVICE_SETTINGS_SOURCE" not in exported.stderr
