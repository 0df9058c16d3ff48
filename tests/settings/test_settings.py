"""The settings kept in the state store: export → import → export gives the same bytes (every
shipped example, and generated budgets), every rule of every file refused in the same words by
`settings import`, the one check the Settings page uses and the file loader, an enforced budget
no key limit can hold refused where it is imported, two saves from one version (the second
refused, nothing lost) on the embedded store and on PostgreSQL, a restore, each file found
imported once while the store holds none of its part, and SETTINGS_SOURCE=files refusing
every write."""

from __future__ import annotations

import itertools
import shutil
import tempfile
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import insert
from support.builders import invoke
from support.servers import ROOT

from analytics.alerts.config import AlertsFileError, load_alerts
from analytics.capacity.budgets import BudgetFileError, load_budgets
from analytics.cost.prices import PricingFileError, load_pricing
from analytics.cost.teams import TeamFileError, load_teams
from analytics.settings.in_force import Place, document
from analytics.settings.parts import PARTS, SettingsProblem, check
from analytics.settings.versions import SavedMeanwhile, history, latest, save
from analytics.storage.schema import settings_versions
from analytics.storage.store import embedded_store, open_store
from analytics.usage.records import Records

AT = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
EXAMPLES = {part: ROOT / f"{part}.example.toml" for part in PARTS}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The command line's working folder, with no settings file of its own (the demo's first
    start imports the examples), and `edits` in it for the files to import."""
    work = tmp_path / "work"
    (work / "edits").mkdir(parents=True)
    monkeypatch.chdir(work)
    return work


def settings_command(*args: str):
    return invoke("settings", *args, "--demo")


def test_export_import_export_gives_back_every_example_byte_for_byte(folder: Path) -> None:
    first = settings_command("export", "--to", "first")  # first start: the examples imported
    assert first.exit_code == 0, first.output
    for part, example in EXAMPLES.items():
        assert (folder / "first" / f"{part}.toml").read_bytes() == example.read_bytes()
        assert f"imported from {part}.example.toml" in first.stdout
    imported = settings_command("import", *(str(p) for p in EXAMPLES.values()), "--yes")
    assert imported.exit_code == 0, imported.output
    assert imported.stdout.count("no change") == 4  # the same settings: nothing saved
    assert settings_command("export", "--to", "again").exit_code == 0
    for part, example in EXAMPLES.items():
        assert (folder / "again" / f"{part}.toml").read_bytes() == example.read_bytes()


def budgets_text(entries: list[tuple[str, str, int, bool]], warning: int) -> str:
    """A budgets file of generated entries (metric, period, limit, enforce)."""
    lines = [f"warning_at = 0.{warning}", ""]
    for index, (metric, period, limit, enforce) in enumerate(entries):
        lines += [
            "[[budget]]",
            f'name = "Budget {index}"',
            f'metric = "{metric}"',
            f'period = "{period}"',
            f"limit = {limit:_}",
            *(["enforce = true"] if enforce else []),
            "",
        ]
    return "\n".join(lines)


ENTRY = st.one_of(
    st.tuples(
        st.sampled_from(["total_characters", "text_translation_characters"]),
        st.sampled_from(["month", "quarter", "year"]),
        st.integers(0, 10**9),
        st.just(False),
    ),
    st.tuples(st.just("total_characters"), st.just("usage"), st.integers(0, 10**9), st.booleans()),
)
ACCOUNTS = itertools.count()
STORE_FOLDER = Path(tempfile.mkdtemp(prefix="settings-store-"))


@settings(max_examples=15, deadline=None)
@given(st.lists(ENTRY, min_size=1, max_size=4), st.integers(1, 9))
def test_generated_budgets_come_back_byte_for_byte(entries, warning: int) -> None:
    text = budgets_text(entries, warning)
    records = Records(embedded_store(STORE_FOLDER), f"generated-{next(ACCOUNTS)}")
    place = Place("store", records, STORE_FOLDER, demo=False)
    save(records, "budgets", text, 0, "ana@example.org", AT, "budgets.toml")
    exported = document("budgets", place)
    assert exported is not None and exported.text == text
    save(records, "budgets", exported.text + "\n# again\n", 1, "ana@example.org", AT)
    assert document("budgets", place).text.encode() == (text + "\n# again\n").encode()


# One case per kind of rule, each file's: the words every surface must give.
REFUSED = [
    (
        "teams",
        '[[team]]\nname = "Web"\nlabels = ["Web"]\n\n[[team]]\nname = "Shop"\nlabels = ["Web"]\n',
        "[[team]] #1 and #2 (labels) both claim 'Web'",
    ),
    (
        "teams",
        '[[team]]\nname = "Web"\nowner = "nobody"\nlabels = ["Web"]\n',
        "[[team]] #1: owner must be an e-mail address such as web@example.org, not 'nobody'",
    ),
    (
        "teams",
        '[[team]]\nname = "Web"\nlabels = ["Web"]\n\n[[key]]\nkey = "Web"\n',
        "[[key]] #1: key 'Web' says nothing: give it an owner or a purpose",
    ),
    (
        "pricing",
        'currency = "EUR"\n[[price]]\nfrom = 2025-01-01\n',
        "[[price]] #1: Object missing required field `unit_prices`",
    ),
    (
        "budgets",
        'warning_at = 2\n[[budget]]\nmetric = "total_characters"\nperiod = "month"\nlimit = 1\n',
        "warning_at must be in (0, 1], e.g. 0.8 for 80 %, not 2.0",
    ),
    (
        "alerts",
        'base_url = "https://usage.example.org"\n[[webhook]]\nname = "Ops"\nkind = "slack"\n'
        'url = "https://hooks.example.org/secret"\n',
        "[[webhook]] #1: Object contains unknown field `url`",
    ),
    (
        "alerts",
        'base_url = "https://usage.example.org"\n[[webhook]]\nkind = "json"\nurl_env = "HOOK"\n'
        "[rotations]\nquiet_days = -1\n",
        "rotations: quiet_days must be 0 or more whole days, not -1",
    ),
    (
        "alerts",
        'base_url = "https://usage.example.org"\n[[webhook]]\nkind = "json"\nurl_env = "HOOK"\n'
        "[rotations]\nremind_after_days = 2.5\n",
        "rotations.remind_after_days: must be a whole number of days",
    ),
]
LOADERS = {
    "teams": (load_teams, TeamFileError),
    "pricing": (load_pricing, PricingFileError),
    "budgets": (load_budgets, BudgetFileError),
    "alerts": (lambda path: load_alerts(path, {}), AlertsFileError),
}


@pytest.mark.parametrize(("part", "text", "words"), REFUSED, ids=[c[2][:30] for c in REFUSED])
def test_every_rule_is_refused_in_the_same_words_everywhere(folder, part, text, words) -> None:
    path = folder / "edits" / f"{part}.toml"
    path.write_text(text)
    expected = f"{path}: {words}"
    with pytest.raises(SettingsProblem) as page:  # the Settings page's check
        check(part, text, str(path))
    assert str(page.value) == expected
    load, error = LOADERS[part]
    with pytest.raises(error) as loader:  # the file read by every command
        load(path)
    assert str(loader.value) == expected
    imported = settings_command("import", str(path), "--yes")
    assert (imported.exit_code, imported.stderr) == (2, f"error: {expected}\n")
    assert "saved" not in imported.stdout


MONTHLY_ENFORCED = """[[budget]]
name = "Web monthly"
metric = "total_characters"
period = "month"
limit = 3_000
enforce = true
"""


def test_an_enforced_budget_no_key_limit_can_hold_is_refused_on_import(folder) -> None:
    path = folder / "edits" / "budgets.toml"
    path.write_text(MONTHLY_ENFORCED)
    imported = settings_command("import", str(path), "--yes")
    assert imported.exit_code == 2
    assert imported.stderr == (
        f"error: {path}: [[budget]] #1 (enforce): Web monthly cannot be enforced: a calendar "
        'month cuts the usage periods and cannot be held across the cut: use period = "usage" '
        "or a contract year starting on a billing day\n"
    )
    exported = settings_command("export", "--to", "out")
    assert (folder / "out" / "budgets.toml").read_bytes() == EXAMPLES["budgets"].read_bytes()
    assert exported.exit_code == 0


def test_import_previews_each_field_and_saves_only_with_yes(folder) -> None:
    teams = EXAMPLES["teams"].read_text().replace("web-shop@example.org", "shop@example.org")
    (folder / "edits" / "teams.toml").write_text(teams)
    preview = settings_command("import", "edits/teams.toml")
    assert preview.exit_code == 2 and "give it to save" in preview.stderr
    assert preview.stdout.splitlines() == [
        "edits/teams.toml (teams, against version 1):",
        '  [[team]] #1 (owner): "web-shop@example.org" → "shop@example.org"',
        '  [[key]] #1 (owner): "web-shop@example.org" → "shop@example.org"',
    ]
    saved = settings_command("import", "edits/teams.toml", "--yes")
    assert saved.stdout.splitlines()[-1] == "teams: saved as version 2"
    listed = settings_command("history", "teams").stdout.splitlines()
    assert [line.split()[:2] for line in listed[1:]] == [["teams", "2"], ["teams", "1"]]
    assert listed[1].endswith("(teams.toml)") and listed[2].endswith("(teams.example.toml)")


def test_restore_saves_an_earlier_version_again_and_keeps_every_one(folder) -> None:
    edited = EXAMPLES["teams"].read_text().replace('"Marketing"', '"Growth"')
    (folder / "edits" / "teams.toml").write_text(edited)
    assert settings_command("import", "edits/teams.toml", "--yes").exit_code == 0
    restored = settings_command("restore", "teams", "1", "--yes")
    assert restored.exit_code == 0, restored.output
    assert '  [[team]] #3 (name): "Growth" → "Marketing"' in restored.stdout
    settings_command("export", "--to", "out")
    assert (folder / "out" / "teams.toml").read_bytes() == EXAMPLES["teams"].read_bytes()
    versions = settings_command("history", "teams").stdout.splitlines()[1:]
    assert [line.split()[1] for line in versions] == ["3", "2", "1"]
    assert "restoring version 1" in versions[0]


def test_with_settings_source_files_nothing_writes_the_settings(folder, monkeypatch) -> None:
    monkeypatch.setenv("SETTINGS_SOURCE", "files")
    shutil.copy(EXAMPLES["teams"], folder / "teams.toml")
    for args in (("import", "teams.toml", "--yes"), ("restore", "teams", "1", "--yes")):
        refused = settings_command(*args)
        assert refused.exit_code == 2
        assert refused.stderr.startswith("error: SETTINGS_SOURCE=files: the files are the")
    exported = settings_command("export", "--to", "out")  # reading stays possible
    assert f"{folder / 'teams.toml'}" in exported.stdout


@pytest.fixture(params=["embedded", "postgresql"])
def records(request: pytest.FixtureRequest, tmp_path: Path) -> Records:
    """An account's records on a fresh embedded store, and on a fresh PostgreSQL database."""
    address = None if request.param == "embedded" else request.getfixturevalue("postgres_url")
    store = open_store(tmp_path / "state", address)
    assert store is not None
    return Records(store, "acct")


BUDGET = EXAMPLES["budgets"].read_text()


def test_of_two_saves_from_one_version_the_second_is_refused_and_nothing_is_lost(records):
    save(records, "budgets", BUDGET, 0, "first start", AT, "budgets.toml")
    mine = BUDGET.replace("warning_at = 0.8", "warning_at = 0.7")
    theirs = BUDGET.replace("warning_at = 0.8", "warning_at = 0.9")
    save(records, "budgets", theirs, 1, "bo@example.org", AT)  # both read version 1
    with pytest.raises(SavedMeanwhile) as refused:
        save(records, "budgets", mine, 1, "ana@example.org", AT)
    assert str(refused.value) == (
        "budgets: someone changed these settings meanwhile: you edited version 1, and version 2 "
        "was saved by bo@example.org at 2026-03-01 12:00 UTC; nothing was saved. Read version 2, "
        "make your change to it and save again"
    )
    assert refused.value.theirs.text == theirs
    assert [(v.number, v.text) for v in history(records, "budgets")] == [
        (2, theirs),
        (1, BUDGET),
    ]


def test_a_save_racing_another_hosts_uncommitted_one_is_refused_by_the_key(postgres_url):
    store = open_store(None, postgres_url)
    assert store is not None
    records = Records(store, "acct")
    save(records, "budgets", BUDGET, 0, "first start", AT)
    other = store.engine.connect()  # another host, between its read and its commit
    other.begin()
    other.execute(
        insert(settings_versions).values(
            account="acct",
            part="budgets",
            version=2,
            text=BUDGET + "\n",
            author="bo",
            saved_at=AT,
            file=None,
        )
    )
    outcome: list[BaseException] = []

    def mine() -> None:
        try:
            save(records, "budgets", BUDGET + "\n\n", 1, "ana", AT)
        except SavedMeanwhile as exc:
            outcome.append(exc)

    racing = threading.Thread(target=mine)
    racing.start()
    other.commit()
    other.close()
    racing.join()
    [refused] = outcome
    assert isinstance(refused, SavedMeanwhile) and refused.theirs.author == "bo"
    assert latest(records, "budgets").text == BUDGET + "\n"


def test_each_file_found_is_imported_once_when_the_store_holds_none_of_its_part(
    folder, tmp_path
) -> None:
    shutil.copy(EXAMPLES["pricing"], folder / "pricing.toml")
    store = embedded_store(tmp_path / "state")
    place = Place("store", Records(store, "acct"), folder, demo=False)
    found = document("pricing", place)
    assert found is not None
    assert found.where == "pricing, version 1 of the settings store (imported from pricing.toml)"
    (folder / "pricing.toml").write_text("not read any more")
    assert document("pricing", place).text == EXAMPLES["pricing"].read_text()
    assert document("teams", place) is None  # no teams.toml was found: none in force
    shutil.copy(EXAMPLES["teams"], folder / "teams.toml")  # a part the store never held
    assert document("teams", place).where.endswith("(imported from teams.toml)")
