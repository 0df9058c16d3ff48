"""`--team NAME` on `export`, `report` and `check-budgets`: what that team's lead sees.

The oracle is the demo organization's ledger (`demo_ledger`) and the teams of
teams.example.toml, matched by hand here from the keys' labels: Documents claims the labels
Finance reporting, Product docs and Localization CI, every label starting "Document pipeline",
and the tags quarterly-report, release-notes and legal-review.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest
from support.builders import budgets, invoke, ledger_totals
from support.headless import TODAY

TEAM = "Documents"
TEAM_TAGS = {"quarterly-report", "release-notes", "legal-review"}
LAST = TODAY - dt.timedelta(days=1)
FIRST = LAST - dt.timedelta(days=59)
RANGE = ["--demo", "--start", FIRST.isoformat(), "--end", LAST.isoformat()]
NO_SUCH_TEAM = (
    "error: --team 'Accounts' is no team of the teams, version 1, imported from "
    f"teams.example.toml on {TODAY}; its teams are Web shop, Customer support, Marketing, "
    "Documents, Internal tools\n"
)


def of_team(label: str) -> bool:
    return label in {"Finance reporting", "Product docs", "Localization CI"} or label.startswith(
        "Document pipeline"
    )


def others(demo_ledger) -> list[str]:
    """Every label, masked key, key id and custom tag of the organization that is not the
    team's."""
    keys = demo_ledger.store.developer_keys()
    rows = demo_ledger.ledger(FIRST, LAST)
    theirs = [r for r in rows if not of_team(r.api_key_label)]
    tags = {r.custom_tag for r in demo_ledger.tag_ledger(FIRST, LAST)} - TEAM_TAGS
    return sorted(
        {r.api_key_label for r in theirs}
        | {r.api_key for r in theirs}
        | {k.published_id for k in keys if not of_team(k.label)}
        | {k.masked for k in keys if not of_team(k.label)}
        | tags
    )


def team_rows(demo_ledger) -> list:
    return [r for r in demo_ledger.ledger(FIRST, LAST) if of_team(r.api_key_label)]


def assert_none_of(text: str, names: list[str]) -> None:
    assert names, "the organization has other teams"
    assert [name for name in names if name in text] == []


def export(tmp_path: Path, name: str, *args: str) -> pd.DataFrame:
    out = tmp_path / name
    result = invoke("export", *RANGE, *args, "-o", str(out))
    assert result.exit_code == 0, result.stderr
    if out.suffix == ".parquet":
        return pd.read_parquet(out)
    return pd.read_csv(out, dtype=str, keep_default_na=False)


@pytest.mark.parametrize(
    ("grouping", "fmt"),
    [("key_and_day", "csv"), ("key", "parquet"), ("team", "parquet"), ("team_and_day", "csv")],
)
def test_a_teams_usage_export_holds_its_keys_alone_and_the_ledgers_sums(
    demo_env, demo_ledger, tmp_path, grouping, fmt
):
    table = export(tmp_path, f"t.{fmt}", "--team", TEAM, "--group-by", grouping)
    text = (tmp_path / f"t.{fmt}").read_bytes().decode("latin-1")
    assert_none_of(text, others(demo_ledger))
    for column in table.columns:  # a Parquet file's categories too
        if isinstance(table[column].dtype, pd.CategoricalDtype):
            assert_none_of(" ".join(map(str, table[column].cat.categories)), others(demo_ledger))
    rows = team_rows(demo_ledger)
    assert rows, "the team used the service in the range"
    expected = ledger_totals(rows)
    for metric in ("total_characters", "document_translation_characters"):
        assert table[metric].astype("int64").sum() == expected[metric]
    if grouping.startswith("team"):
        assert set(table["team"].astype(str)) == {TEAM}
    else:
        assert set(table["api_key_label"].astype(str)) == {r.api_key_label for r in rows}


def test_a_teams_money_is_its_row_of_the_organizations_chargeback(demo_env, demo_ledger, tmp_path):
    cost = ["--with-cost", "--group-by"]
    organization = export(tmp_path, "org.csv", *cost, "team").set_index("team").loc[TEAM]
    [total] = export(tmp_path, "none.csv", "--team", TEAM, *cost, "none").to_dict("records")
    assert total["total_characters"] == str(
        ledger_totals(team_rows(demo_ledger))["total_characters"]
    )
    for figure in ("usage_cost_eur", "base_fee_share_eur", "total_cost_eur"):
        assert Decimal(total[figure]) == Decimal(organization[figure])
    assert Decimal(total["base_fee_share_eur"]) > 0
    by_key = export(tmp_path, "keys.csv", "--team", TEAM, *cost, "key")
    org_keys = export(tmp_path, "org_keys.csv", *cost, "key").set_index("api_key")
    assert by_key.set_index("api_key").equals(org_keys.loc[by_key["api_key"]])
    assert sum(map(Decimal, by_key["total_cost_eur"])) == Decimal(organization["total_cost_eur"])


def test_a_teams_tags_and_pairs_name_nobody_else(demo_env, demo_ledger, tmp_path):
    tags = export(tmp_path, "tags.csv", "--team", TEAM, "--source", "tags", "--group-by", "tag")
    tag_rows = [r for r in demo_ledger.tag_ledger(FIRST, LAST) if r.custom_tag in TEAM_TAGS]
    assert set(tags["custom_tag"]) == {r.custom_tag for r in tag_rows} != set()
    assert sum(map(int, tags["text_translation_characters"])) == sum(
        r.text_translation_characters for r in tag_rows
    )
    pairs = ["--team", TEAM, "--source", "language-pairs", "--group-by"]
    by_key = export(tmp_path, "pairs.csv", *pairs, "pair_and_key")
    by_pair = export(tmp_path, "pair.csv", *pairs, "pair")
    for name in ("tags.csv", "pairs.csv", "pair.csv"):
        assert_none_of((tmp_path / name).read_text(), others(demo_ledger))
    assert set(by_key["api_key_label"]) <= {r.api_key_label for r in team_rows(demo_ledger)}
    pair_rows = [r for r in demo_ledger.pair_ledger(FIRST, LAST) if of_team(r.api_key_label)]
    attributed = sum(r.text_translation_characters for r in pair_rows if r.attributed)
    assert sum(map(int, by_pair["text_translation_characters"])) == attributed


@pytest.mark.parametrize(
    ("command", "name"),
    [
        (["export", *RANGE, "-o"], "out.csv"),
        (["report", *RANGE, "-o"], "out.html"),
        (["check-budgets", "--demo", "--budgets"], "budgets.toml"),
    ],
)
def test_a_team_the_settings_do_not_have_is_refused_in_one_line(demo_env, tmp_path, command, name):
    out = tmp_path / name
    if command[0] == "check-budgets":
        out.write_text(TEAM_BUDGETS)
    result = invoke(*command, str(out), "--team", "Accounts")
    assert (result.exit_code, result.stderr, result.stdout) == (2, NO_SUCH_TEAM, "")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        {"history", name} - {"out.csv", "out.html"}
    )


TEAM_BUDGETS = budgets(
    f'name = "Documents monthly"\nteam = "{TEAM}"\nmetric = "total_characters"\n'
    'period = "month"\nlimit = 10_000_000',
    'name = "Marketing monthly"\nteam = "Marketing"\nmetric = "total_characters"\n'
    'period = "month"\nlimit = 10_000_000',
    'name = "Organization monthly"\nmetric = "total_characters"\nperiod = "month"\n'
    "limit = 10_000_000",
)


def month_used(demo_ledger) -> int:
    month = [r for r in team_rows(demo_ledger) if r.usage_date >= TODAY.replace(day=1)]
    return int(ledger_totals([r for r in month if r.usage_date < TODAY])["total_characters"])


def test_check_budgets_of_a_team_evaluates_its_budgets_over_its_keys(
    demo_env, demo_ledger, tmp_path
):
    file = tmp_path / "budgets.toml"
    file.write_text(TEAM_BUDGETS)
    result = invoke("check-budgets", "--demo", "--budgets", str(file), "--team", TEAM)
    assert result.exit_code == 0, result.stderr
    assert "Documents monthly" in result.stdout
    assert "Marketing monthly" not in result.stdout and "Organization" not in result.stdout
    assert_none_of(result.stdout, others(demo_ledger))
    [line] = [line for line in result.stdout.splitlines() if "Documents monthly" in line]
    assert f"  {month_used(demo_ledger):,}  " in line


def test_a_teams_report_shows_its_usage_and_budgets_and_nobody_elses(
    demo_env, demo_ledger, tmp_path
):
    file, out = tmp_path / "budgets.toml", tmp_path / "team.html"
    file.write_text(TEAM_BUDGETS)
    result = invoke("report", *RANGE, "--budgets", str(file), "--team", TEAM, "-o", str(out))
    assert result.exit_code == 0, result.stderr
    page = html.unescape(out.read_text(encoding="utf-8"))
    assert_none_of(page, others(demo_ledger))
    assert "Documents monthly" in page and "Marketing monthly" not in page
    assert "Organization monthly" not in page
    # Its spend is its own row of Chargeback: no other team's, nor the Unassigned keys'.
    spend = page[page.index("<h2>Spend (EUR)") :]
    teams = {cell for cell in re.findall(r'<td class="text">([^<]+)</td>', spend)}
    assert {TEAM, "Total"} <= teams and not teams & {"Marketing", "Unassigned", "Web shop"}
    assert "the organization-wide budgets, the plan's limits" in page
    assert f"{month_used(demo_ledger):,}" in page
