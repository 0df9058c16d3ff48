"""The settings kept in the state store: export → import → export gives the same bytes (every
shipped example, and generated budgets), every rule of every file refused in the same words by
`settings import`, the one check the Settings page uses and the reader of every command, an
enforced budget no key limit can hold refused where it is imported, two saves from one version
(the second refused, nothing lost) on the embedded store and on PostgreSQL, a restore, each
file found imported once while the store holds none of its part, and SETTINGS_SOURCE=files
refusing every write."""

from __future__ import annotations

import itertools
import shutil
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import insert
from support.builders import invoke
from support.servers import ROOT

from analytics.alerts.alert_settings import AlertSettingsError
from analytics.cli import settings_in_force
from analytics.cli.failures import UsageProblem
from analytics.cost.prices import PricingSettingsError
from analytics.cost.teams import TeamSettingsError
from analytics.settings.in_force import Place, document
from analytics.settings.parts import PARTS, SettingsProblem, check
from analytics.settings.versions import SavedMeanwhile, history, latest, save
from analytics.storage.schema import settings_versions
from analytics.storage.state_store import embedded_store, open_store
from analytics.usage.calendar import utc_today
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


@pytest.fixture(scope="module")
def store_folder(tmp_path_factory) -> Path:
    """One store for every generated example, each example an account of its own in it."""
    return tmp_path_factory.mktemp("settings-store")


@settings(max_examples=15, deadline=None)
@given(st.lists(ENTRY, min_size=1, max_size=4), st.integers(1, 9))
def test_generated_budgets_come_back_byte_for_byte(store_folder, entries, warning: int) -> None:
    text = budgets_text(entries, warning)
    records = Records(embedded_store(store_folder), f"generated-{next(ACCOUNTS)}")
    place = Place("store", records, store_folder, demo=False)
    save(records, "budgets", text, 0, "ana@example.org", AT, "budgets.toml")
    exported = document("budgets", place)
    assert exported is not None and exported.text == text
    save(records, "budgets", exported.text + "\n# again\n", 1, "ana@example.org", AT)
    assert document("budgets", place).text.encode() == (text + "\n# again\n").encode()


# The start of each file's cases: a valid document that each case breaks with what it adds.
WEB = '[[team]]\nname = "Web"\nlabels = ["Web"]\n'
BUDGET = '[[budget]]\nmetric = "total_characters"\nperiod = "month"\nlimit = 1\n'
ROUTES = 'base_url = "https://usage.example.org"\n[[webhook]]\nkind = "json"\nurl_env = "HOOK"\n'
PRICE = (
    'currency = "EUR"\n[[price]]\nfrom = 2025-01-01\n[price.unit_prices]\n'
    "text_translation_characters = 20\ndocument_translation_characters = 20\n"
    "text_improvement_characters = 20\nspeech_to_text_minutes = 1\n"
)
MAIL = '[email]\nhost = "smtp.example.org"\nsecurity = "ssl"\nfrom = "usage@example.org"\n'
PRICED = (
    "text_translation_characters, document_translation_characters, "
    "text_improvement_characters, speech_to_text_minutes, speech_to_speech_minutes"
)
NOT_A_VALUE = (
    "must name an environment variable (letters, digits and _), not hold a value: the secret "
    "stays in the environment, out of the file"
)
# Every rule of every file, one case each: the words every surface must give. Raises that no
# file's text reaches are no rules of a file, and so not here:
# - `read_text`'s "no such file" and "cannot be read": a file missing or not UTF-8 is no text
#   (the Settings page edits text); tests/capacity, tests/cost and tests/alerts refuse those.
# - `_Claims.team_of`'s key or tag matched by two teams' patterns, and `assign_keys`' "a key has
#   two labels": about the keys of the usage data, not the file.
# - `alerts.alert_settings._email` and `_webhook` (credentials, an unset or wrong webhook
#   variable): the environment's, read when alerts are sent, since the host editing settings
#   holds no secret.
# - `Budget.kind` and `Budget.fixed_limit`: asked of a budget already parsed, by the code.
# - `parts.part_of`'s "not a settings file": about a file's name, not its text.
REFUSED = [
    (
        "teams",
        '[[team]\nname = "Web"\n',
        "not valid TOML: Expected ']]' at the end of an array declaration (at line 1, column 7)",
    ),
    ("budgets", 'warning_at = "high"\n' + BUDGET, "warning_at: Expected `float`, got `str`"),
    (
        "budgets",
        BUDGET.replace("limit = 1", 'limit = "a lot"'),
        "[[budget]] #1 (limit): Expected `float`, got `str`",
    ),
    (
        "budgets",
        BUDGET + "[guardrails]\nreserve_characters = 1.5\n",
        "guardrails.reserve_characters: Expected `int`, got `decimal`",
    ),
    (
        "pricing",
        'currency = "EUR"\n[[price]]\nfrom = 2025-01-01\n',
        "[[price]] #1: Object missing required field `unit_prices`",
    ),
    (
        "alerts",
        ROUTES.replace("url_env", "url"),
        "[[webhook]] #1: Object contains unknown field `url`",
    ),
    # pricing.toml
    (
        "pricing",
        PRICE + "total_characters = 1\n",
        f"[[price]] #1 (unit_prices): unknown metric 'total_characters'; expected {PRICED} (total "
        "characters is their sum: price the services)",
    ),
    (
        "pricing",
        PRICE + "[price.included_per_month]\nwords = 1\n",
        f"[[price]] #1 (included_per_month): unknown metric 'words'; expected {PRICED}",
    ),
    (
        "pricing",
        PRICE.replace("speech_to_text_minutes = 1", "speech_to_text_minutes = -1"),
        "[[price]] #1 (unit_prices): speech_to_text_minutes must be a finite amount ≥ 0, not -1",
    ),
    (
        "pricing",
        PRICE + "[price.included_per_month]\ntext_translation_characters = -1\n",
        "[[price]] #1 (included_per_month): text_translation_characters must be ≥ 0, not -1",
    ),
    (
        "pricing",
        PRICE + "[price.included_per_month]\nspeech_to_text_minutes = inf\n",
        "[[price]] #1 (included_per_month): speech_to_text_minutes must be a finite amount ≥ 0, "
        "not Infinity",
    ),
    (
        "pricing",
        PRICE + "[price.included_per_month]\nspeech_to_speech_minutes = 0.0000001\n",
        "[[price]] #1 (included_per_month): speech_to_speech_minutes has at most 6 decimals, not "
        "0.0000001",
    ),
    (
        "pricing",
        PRICE.replace("[price.unit_prices]", "monthly_fee = -250\n[price.unit_prices]"),
        "[[price]] #1: monthly_fee must be a finite amount ≥ 0, not -250",
    ),
    (
        "pricing",
        PRICE.replace('"EUR"', '"eur"'),
        "currency: unknown currency 'eur'; write it in capitals, 'EUR'",
    ),
    (
        "pricing",
        PRICE.replace('"EUR"', '"Euro"'),
        "currency: unknown currency 'Euro'; use an ISO 4217 code such as EUR, USD, GBP or JPY",
    ),
    (
        "pricing",
        'currency = "EUR"\n',
        "no [[price]] entries: a pricing file must define at least one",
    ),
    (
        "pricing",
        PRICE + PRICE.split("\n", 1)[1],
        "[[price]] #1 and #2 (from) both start on 2025-01-01: price periods must not overlap "
        "(each runs until the next one's from)",
    ),
    (
        "pricing",
        PRICE + '[[option]]\nname = " "\nprice_per_million_characters = 9\n',
        "[[option]] #1: ' ' (name): give the option a name",
    ),
    (
        "pricing",
        PRICE + '[[option]]\nname = "Pro"\nprice_per_million_characters = -9\n',
        "[[option]] #1: 'Pro' (price_per_million_characters): must be a finite amount ≥ 0, not -9",
    ),
    (
        "pricing",
        PRICE
        + '[[option]]\nname = "Pro"\nprice_per_million_characters = 9\nincluded_characters = -1\n',
        "[[option]] #1: 'Pro' (included_characters): must be ≥ 0, not -1",
    ),
    (
        "pricing",
        PRICE + '[[option]]\nname = "Pro"\nprice_per_million_characters = 9\nterm_months = 0\n',
        "[[option]] #1: 'Pro' (term_months): must be 1 or more months, not 0",
    ),
    (
        "pricing",
        PRICE + '[[option]]\nname = "Pro"\nprice_per_million_characters = 9\ndiscount = 1\n',
        "[[option]] #1: 'Pro' (discount): must be a fraction from 0 up to 1 (0.1 for 10 %), not 1",
    ),
    (
        "pricing",
        PRICE + '[[option]]\nname = "Pro"\nprice_per_million_characters = 9\n' * 2,
        "[[option]] #2 (name): 'Pro' is listed twice",
    ),
    # teams.toml
    ("teams", "", "no [[team]] entries: a teams file must define at least one"),
    (
        "teams",
        WEB.replace('"Web"\nlabels', '" "\nlabels'),
        "[[team]] #1: name must not be empty: give the team a name",
    ),
    (
        "teams",
        WEB.replace("owner", "x") + 'owner = "nobody"\n',
        "[[team]] #1: owner must be an e-mail address such as web@example.org, not 'nobody'",
    ),
    (
        "teams",
        WEB.replace('"Web"\nlabels', '"unassigned"\nlabels'),
        "[[team]] #1: name 'unassigned' is kept for the keys and tags no team claims: choose "
        "another name",
    ),
    (
        "teams",
        '[[team]]\nname = "Web"\n',
        "[[team]] #1: team 'Web' claims nothing: give it keys, labels, label_patterns, tags or "
        "tag_patterns",
    ),
    (
        "teams",
        WEB.replace('["Web"]', '["Web", " "]'),
        "[[team]] #1: labels: an empty text claims nothing; remove it",
    ),
    (
        "teams",
        WEB + 'keys = ["ab12cd34"]\n',
        "[[team]] #1: keys: 'ab12cd34' is not a masked key; name keys as the dashboard shows them "
        "(abcd****wxyz), never by the secret key itself",
    ),
    ("teams", WEB + WEB, "[[team]] #1 and #2 are both named 'Web'"),
    (
        "teams",
        WEB + WEB.replace('name = "Web"', 'name = "Shop"'),
        "[[team]] #1 and #2 (labels) both claim 'Web'",
    ),
    (
        "teams",
        WEB + '[[key]]\nkey = " "\npurpose = "Shop"\n',
        "[[key]] #1: key must name a key label or a masked key",
    ),
    (
        "teams",
        WEB + '[[key]]\nkey = "Web"\nowner = "web"\n',
        "[[key]] #1: owner must be an e-mail address such as web@example.org, not 'web'",
    ),
    (
        "teams",
        WEB + '[[key]]\nkey = "Web"\n',
        "[[key]] #1: key 'Web' says nothing: give it an owner or a purpose",
    ),
    (
        "teams",
        WEB + '[[key]]\nkey = "Web"\npurpose = "Shop"\n' * 2,
        "[[key]] #1 and #2 both name 'Web'",
    ),
    # budgets.toml
    ("budgets", "", "no [[budget]] entries: a budgets file must define at least one"),
    (
        "budgets",
        '[[budget]]\nmetric = "plan"\nlimit = 5\nteam = "Web"\n',
        "[[budget]] #1: a plan budget takes its limit and billing period from the plan, for the "
        "whole organization: remove limit and team",
    ),
    (
        "budgets",
        BUDGET.replace('"total_characters"', '"words"'),
        "[[budget]] #1: unknown metric 'words'; expected one of total_characters, "
        "text_translation_characters, document_translation_characters, "
        "text_improvement_characters, speech_to_text_minutes, speech_to_speech_minutes, cost or "
        "plan",
    ),
    (
        "budgets",
        BUDGET.replace('period = "month"\n', ""),
        "[[budget]] #1: missing required field `period`; expected one of month, quarter, year, "
        "usage",
    ),
    (
        "budgets",
        BUDGET.replace('"month"', '"week"'),
        "[[budget]] #1: unknown period 'week'; expected one of month, quarter, year, usage",
    ),
    ("budgets", BUDGET.replace("limit = 1\n", ""), "[[budget]] #1: missing required field `limit`"),
    (
        "budgets",
        BUDGET.replace("limit = 1", "limit = -1"),
        "[[budget]] #1: limit must be a finite number ≥ 0, not -1.0",
    ),
    (
        "budgets",
        BUDGET + 'key = ""\n',
        "[[budget]] #1: key must name a key label or a masked key; omit it for the org",
    ),
    (
        "budgets",
        BUDGET + 'team = " "\n',
        "[[budget]] #1: team must name a team of the teams file; omit it for the org",
    ),
    (
        "budgets",
        BUDGET + 'key = "Web"\nteam = "Web"\n',
        "[[budget]] #1: a budget names a key or a team, not both",
    ),
    (
        "budgets",
        BUDGET + "warning_at = 0\n",
        "[[budget]] #1: warning_at must be in (0, 1], e.g. 0.8 for 80 %, not 0.0",
    ),
    (
        "budgets",
        "warning_at = 2\n" + BUDGET,
        "warning_at must be in (0, 1], e.g. 0.8 for 80 %, not 2.0",
    ),
    (
        "budgets",
        'contract_year_start = "April"\n' + BUDGET,
        "contract year start 'April' is not in MM-DD form (e.g. 04-01)",
    ),
    (
        "budgets",
        'contract_year_start = "02-29"\n' + BUDGET,
        "contract year start 02-29 is not a day that exists every year (use MM-DD, e.g. 04-01)",
    ),
    (
        "budgets",
        BUDGET + "[guardrails]\nfloor_minutes = -1\n",
        "guardrails: floor_minutes must be a finite number ≥ 0, not -1.0",
    ),
    # an enforced budget no key limit can hold (`parts.check`'s own rule)
    (
        "budgets",
        '[[budget]]\nmetric = "plan"\nenforce = true\n',
        "[[budget]] #1 (enforce): Organization · plan characters · billing period cannot be "
        "enforced: the plan's own limit is the service's; a plan budget warns, it is not shared "
        "out",
    ),
    (
        "budgets",
        BUDGET.replace('"total_characters"', '"text_translation_characters"').replace(
            '"month"', '"usage"'
        )
        + "enforce = true\n",
        "[[budget]] #1 (enforce): Organization · Text translation characters · usage period "
        "cannot be enforced: key limits count text, document and improvement characters together "
        "and no speech-to-speech: budget total_characters (or cost) instead",
    ),
    (
        "budgets",
        BUDGET.replace('"month"', '"quarter"') + "enforce = true\n",
        "[[budget]] #1 (enforce): Organization · Total characters · quarter cannot be enforced: a "
        "calendar quarter cuts the usage periods and cannot be held across the cut: use period = "
        '"usage" or a contract year starting on a billing day',
    ),
    # alerts.toml
    (
        "alerts",
        ROUTES.replace("https://usage.example.org", "usage.example.org"),
        "base_url must be an http:// or https:// address",
    ),
    (
        "alerts",
        'base_url = "https://usage.example.org"\n',
        "no destination: add an [email] table or a [[webhook]] entry",
    ),
    (
        "alerts",
        ROUTES.replace("kind", 'name = "Ops"\nkind')
        + '[[webhook]]\nname = "Ops"\nkind = "slack"\nurl_env = "SLACK"\n',
        "[[webhook]] #2 (name): 'Ops' names another destination already; give each a name of its "
        "own",
    ),
    (
        "alerts",
        ROUTES.replace("HOOK", "https://hooks.example.org/T0/B0/secret"),
        f"[[webhook]] #1: url_env {NOT_A_VALUE}",
    ),
    (
        "alerts",
        ROUTES + MAIL.replace('"smtp.example.org"', '" "') + 'to = ["ops@example.org"]\n',
        "email: host must name the SMTP server",
    ),
    (
        "alerts",
        ROUTES + MAIL + 'to = ["ops@example.org"]\nport = 0\n',
        "email: port must be in 1..65535, not 0",
    ),
    ("alerts", ROUTES + MAIL + "to = []\n", "email: to must list at least one address"),
    (
        "alerts",
        ROUTES + MAIL.replace("usage@example.org", "usage") + 'to = ["ops@example.org"]\n',
        "email: from must be an e-mail address such as ops@example.org, not 'usage'",
    ),
    (
        "alerts",
        ROUTES + MAIL + 'to = ["ops@example.org", "ops"]\n',
        "email: to must be an e-mail address such as ops@example.org, not 'ops'",
    ),
    (
        "alerts",
        ROUTES + MAIL + 'to = ["ops@example.org"]\nusername_env = "ana@example.org"\n',
        f"email: username_env {NOT_A_VALUE}",
    ),
    (
        "alerts",
        ROUTES + "[rotations]\nquiet_days = -1\n",
        "rotations: quiet_days must be 0 or more whole days, not -1",
    ),
    (
        "alerts",
        ROUTES + "[rotations]\nremind_after_days = 0\n",
        "rotations: remind_after_days must be 1 or more whole days, not 0",
    ),
    (
        "alerts",
        ROUTES + "[rotations]\nmax_age_days = 0\n",
        "rotations: max_age_days must be 1 or more whole days, not 0",
    ),
    (
        "alerts",
        ROUTES + "[rotations]\nremind_after_days = 2.5\n",
        "rotations.remind_after_days: must be a whole number of days",
    ),
]


# How every command reads each file (`cli.settings_in_force`): the budgets through
# `parts.checked_budgets`, so an enforced budget no key limit can hold stops the command too.
def _settings(**given):
    return settings_in_force.command_settings(False, **given)


LOADERS = {
    "teams": (lambda path: settings_in_force.costing(_settings(teams=path)), TeamSettingsError),
    "pricing": (
        lambda path: settings_in_force.costing(_settings(pricing=path)),
        PricingSettingsError,
    ),
    "budgets": (
        lambda path: settings_in_force.budget_settings(_settings(budgets=path)),
        UsageProblem,
    ),
    "alerts": (lambda path: settings_in_force.alerts(path, "--notify"), AlertSettingsError),
}


@pytest.mark.parametrize(("part", "text", "words"), REFUSED, ids=[c[2][:48] for c in REFUSED])
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
    assert found.where == f"the prices, version 1, imported from pricing.toml on {utc_today()}"
    (folder / "pricing.toml").write_text("not read any more")
    assert document("pricing", place).text == EXAMPLES["pricing"].read_text()
    assert document("teams", place) is None  # no teams.toml was found: none in force
    shutil.copy(EXAMPLES["teams"], folder / "teams.toml")  # a part the store never held
    assert document("teams", place).where.endswith(f"imported from teams.toml on {utc_today()}")
