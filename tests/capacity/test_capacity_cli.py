"""`capacity backtest` and `capacity recommend` against the demo organization, their exit codes,
and the pricing file's catalogue: the example's options, a bad one refused in one line."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from support.headless import TODAY
from support.orgfiles import contract_year_end
from typer.testing import CliRunner

from analytics.capacity.forecasting import Outlook
from analytics.cli import app
from analytics.cli import capacity as capacity_cli
from analytics.cost.prices import PricingSettingsError, load_pricing, parse_pricing
from analytics.exit_codes import USAGE

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

PRICES = """currency = "EUR"
[[price]]
from = "2025-01-01"
[price.unit_prices]
text_translation_characters = 20
document_translation_characters = 20
text_improvement_characters = 20
speech_to_text_minutes = 0.02
"""


def test_the_example_catalogue_is_labelled_as_examples_and_lists_alternatives_only():
    catalogue = load_pricing(ROOT / "pricing.example.toml").catalogue
    assert len(catalogue) >= 3
    assert all(option.name.startswith("Example: ") for option in catalogue)
    # Today's plan is the service's, never a catalogue entry standing in for it.
    assert not [option.name for option in catalogue if option.current]
    assert not [option.name for option in catalogue if "today" in option.name.lower()]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            'name = "Yearly"\nprice_per_million_characters = 20\ndiscount = 1.5',
            "pricing.toml: [[option]] #2: 'Yearly' (discount): must be a fraction from 0 up to 1",
        ),
        (
            'name = "Yearly"\nprice_per_million_characters = 20\nterm_months = 0',
            "pricing.toml: [[option]] #2: 'Yearly' (term_months): must be 1 or more months",
        ),
        (
            'name = "Yearly"\nprice_per_million_characters = "cheap"',
            "pricing.toml: [[option]] #2 (price_per_million_characters): Invalid decimal",
        ),
        (
            'name = "Yearly"\nprice_per_million_characters = 20\nincluded_per = "year"',
            "pricing.toml: [[option]] #2 (included_per): Invalid enum value 'year'",
        ),
        (
            'name = "Monthly"\nprice_per_million_characters = 20',
            "pricing.toml: [[option]] #2 (name): 'Monthly' is listed twice",
        ),
    ],
)
def test_a_bad_catalogue_is_refused_naming_the_file_the_option_and_the_field(entry, message):
    first = '[[option]]\nname = "Monthly"\nprice_per_million_characters = 25\n'
    text = f"{PRICES}\n{first}\n[[option]]\n{entry}\n"
    with pytest.raises(PricingSettingsError) as refused:
        parse_pricing(text, "pricing.toml")
    assert str(refused.value).startswith(message)
    assert "\n" not in str(refused.value)


def test_a_bad_catalogue_stops_recommend_with_one_line_and_exit_2(tmp_path, demo_env):
    bad = tmp_path / "pricing.toml"
    bad.write_text(f'{PRICES}\n[[option]]\nname = "Yearly"\nprice_per_million_characters = -1\n')
    result = runner.invoke(app, ["capacity", "recommend", "--pricing", str(bad), "--demo"])
    assert result.exit_code == USAGE.code
    assert result.stderr.splitlines() == [
        f"error: {bad}: [[option]] #1: 'Yearly' (price_per_million_characters): must be a "
        "finite amount ≥ 0, not -1"
    ]


def test_backtest_prints_every_candidate_and_marks_the_chosen_one(demo_env):
    table = runner.invoke(app, ["capacity", "backtest", "--demo"])
    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["metric", "candidate", "horizon", "scored", "WAPE", "in", "80",
                                "%", "in", "95", "%"]  # fmt: skip
    # One candidate chosen per metric, marked on each horizon the history could score.
    marked = [re.split(r"\s{2,}", line) for line in lines if " * " in f"{line} "]
    chosen = {(metric, candidate) for metric, candidate, *_ in marked}
    assert sorted(metric for metric, _ in chosen) == ["Speech-to-text minutes", "Total characters"]
    # The table ends with each metric's one accuracy figure: its served forecast's month.
    assert lines[-3] == ""
    for metric, said in zip(
        ("Total characters", "Speech-to-text minutes"), lines[-2:], strict=True
    ):
        [served] = [
            re.split(r"\s{2,}", line)[4]
            for line in lines
            if re.split(r"\s{2,}", line)[:3] == [metric, "forecast", "month"]
        ]
        assert said.startswith(f"{metric}: Month-ahead error (WAPE) over the ")
        assert f"each forecast on its first day: {served};" in said
    found = json.loads(
        runner.invoke(app, ["capacity", "backtest", "--demo", "--format", "json"]).stdout
    )
    assert {row["metric"] for row in found} == {"total_characters", "speech_to_text_minutes"}
    assert sum(row["chosen"] for row in found if row["horizon"] == "month") == 2
    month = [row for row in found if row["horizon"] == "month"]
    assert all(row["scored"] >= 1 and row["wape"] >= 0 for row in month)


def test_recommend_prices_the_example_catalogue_and_names_the_recommendation(demo_env):
    result = runner.invoke(app, ["capacity", "recommend", "--demo"])
    assert result.exit_code == 0, result.output
    assert "What-ifs: none" in result.stdout
    assert "Recommended for the 12 months from " in result.stdout
    assert "Today's plan, as the service reports it: " in result.stdout


def test_recommend_json_carries_the_what_ifs_the_curve_and_the_accuracy(demo_env):
    args = ["capacity", "recommend", "--demo", "--format", "json", "--term", "6"]
    plain = json.loads(runner.invoke(app, args).stdout)
    shifted = json.loads(
        runner.invoke(
            app, [*args, "--growth", "10%", "--add", "speech pilot 500 minutes a month"]
        ).stdout
    )
    assert plain["term_months"] == 6 and plain["what_ifs"] == "none"
    assert shifted["what_ifs"] == "growth +10.0\u202f%; speech pilot 500 minutes a month"
    assert {row["option"] for row in plain["curve"]} >= {"Today's plan"}
    assert [row["recommended"] for row in plain["curve"]].count(True) == 1
    assert plain["recommended"] in {row["option"] for row in plain["curve"]}
    # The 12-month commitments do not fit a 6-month term.
    assert any("12-month term does not fit a 6-month term" in note for note in plain["left_out"])

    def next_12_months(found: dict, metric: str) -> float:
        return next(
            row["projected"]
            for row in found["forecasts"]
            if row["metric"] == metric and row["period"] == "next 12 months"
        )

    minutes = "speech_to_text_minutes"
    assert next_12_months(shifted, minutes) == pytest.approx(
        1.1 * next_12_months(plain, minutes) + 12 * 500, rel=0.01
    )


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--growth", "lots"], "growth must be a percentage"),
        (["--add", "500 pages"], "a planned workload reads like"),
        (["--risk", "150%"], "--risk must be a percentage from 0% to 100%"),
        (["--year-start", "04-01"], "--year-start is no longer read: the contract year is the"),
        (["--budgets", "missing.toml"], "missing.toml"),
        (["--term", "0"], "--term"),
    ],
)
def test_recommend_refuses_a_bad_what_if_or_setting_with_exit_2(extra, said, demo_env):
    result = runner.invoke(app, ["capacity", "recommend", "--demo", *extra])
    assert result.exit_code == USAGE.code
    assert said in result.stderr


def test_recommend_without_a_catalogue_says_where_to_write_one(tmp_path, demo_env):
    bare = tmp_path / "pricing.toml"
    bare.write_text(PRICES)
    result = runner.invoke(app, ["capacity", "recommend", "--pricing", str(bare), "--demo"])
    assert result.exit_code == USAGE.code
    assert f"{bare} has no [[option]] entries" in result.stderr


def cells(line: str) -> list[str]:
    return re.split(r"\s{2,}", line.strip())


def test_recommend_reads_the_contract_year_of_the_budgets_in_force(demo_env, tmp_path):
    result = runner.invoke(app, ["capacity", "recommend", "--demo"])
    assert result.exit_code == 0, result.output
    end = contract_year_end(TODAY)
    years = [cells(line)[1] for line in result.stdout.splitlines() if "Contract year" in line]
    assert years == [f"Contract year to {end}"] * 2  # characters and minutes
    # Another budgets file, another year: the file is the one place that holds it.
    other = tmp_path / "budgets.toml"
    other.write_text(
        'contract_year_start = "01-01"\n[[budget]]\nmetric = "total_characters"\n'
        'period = "month"\nlimit = 1\n'
    )
    answer = runner.invoke(
        app, ["capacity", "recommend", "--demo", "--budgets", str(other), "--format", "json"]
    )
    rows = json.loads(answer.stdout)["forecasts"]
    assert {row["end"] for row in rows if row["period"] == "year"} == {f"{TODAY.year}-12-31"}


def test_backtest_names_the_contract_year_of_the_budgets_in_force(demo_env, tmp_path, monkeypatch):
    """The demo's budgets start the year on 04-01: the sentence `backtest` ends with names
    the contract year `recommend` and the page name, and another file another year. Each
    horizon is served by a model of its own here, so the sentence names every period."""
    read = capacity_cli._outlooks

    def one_model_a_horizon(demo: bool) -> dict[str, Outlook]:
        found = read(demo)
        models = {"month": "run rate", "quarter": "seasonal naive", "12 months": "ETS auto"}
        return {
            metric: replace(
                o, models=models, paths=dict.fromkeys(models.values(), o.paths[o.chosen])
            )
            for metric, o in found.items()
        }

    monkeypatch.setattr(capacity_cli, "_outlooks", one_model_a_horizon)

    def sentences(*extra: str) -> list[str]:
        result = runner.invoke(app, ["capacity", "backtest", "--demo", *extra])
        assert result.exit_code == 0, result.output
        return result.stdout.splitlines()[-2:]

    end = contract_year_end(TODAY)
    for said in sentences():
        assert f"the contract year to {end:%Y-%m-%d}" in said, said
    other = tmp_path / "budgets.toml"
    other.write_text(
        'contract_year_start = "01-01"\n[[budget]]\nmetric = "total_characters"\n'
        'period = "month"\nlimit = 1\n'
    )
    for said in sentences("--budgets", str(other)):
        assert f"the contract year to {TODAY.year}-12-31" in said, said


def test_todays_plan_is_the_services_with_its_limits(demo_env, demo_ledger):
    plan = demo_ledger.plan  # the emulator's plan: what GET /v2/usage answers
    found = json.loads(
        runner.invoke(app, ["capacity", "recommend", "--demo", "--format", "json"]).stdout
    )
    [today_plan] = [o for o in found["options"] if o["current"]]
    assert today_plan["name"] == "Today's plan"
    assert today_plan["committed_characters"] == plan.effective_character_limit
    assert today_plan["committed_minutes"] == plan.speech_to_text_minutes_limit
    assert found["todays_plan"]["limits"] == {
        "characters": plan.effective_character_limit,
        "speech_to_text_minutes": plan.speech_to_text_minutes_limit,
        "speech_to_speech_minutes": plan.speech_to_speech_minutes_limit,
    }
    # Priced at the example's price period in force on the term's first day.
    example = tomllib.loads((ROOT / "pricing.example.toml").read_text())["price"]
    first = date.fromisoformat(found["term_start"])
    in_force = max(
        (p for p in example if date.fromisoformat(p["from"]) <= first), key=lambda p: p["from"]
    )
    assert found["todays_plan"]["base_fee"] == in_force["monthly_fee"]
    assert (
        found["todays_plan"]["price_per_minute"]
        == in_force["unit_prices"]["speech_to_text_minutes"]
    )
    text = runner.invoke(app, ["capacity", "recommend", "--demo"]).stdout
    limits = (
        f"{plan.effective_character_limit:,} characters, {plan.speech_to_text_minutes_limit:,} "
        f"speech-to-text minutes and {plan.speech_to_speech_minutes_limit:,} speech-to-speech "
        "minutes a billing period"
    )
    assert f"Today's plan, as the service reports it: {limits}" in text


def test_recommend_writes_whole_characters_and_minutes_to_the_hundredth(demo_env):
    result = runner.invoke(app, ["capacity", "recommend", "--demo", "--growth", "7%"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    header = lines.index(next(line for line in lines if line.startswith("metric ")))
    forecasts = [cells(line) for line in lines[header + 1 :] if line.strip()][:8]
    for row in forecasts:
        figures = re.findall(r"\d[\d,]*(?:\.\d+)?", " ".join(row[2:6]))
        decimals = {len(f.partition(".")[2]) for f in figures}
        assert decimals == ({0} if row[0] == "Total characters" else {2}), row
    start = lines.index(next(line for line in lines if line.startswith("option ")))
    head = cells(lines[start])
    assert head[2:8] == ["characters/month", "speech-to-text minutes/month",
                         "expected cost (EUR)", "chance of overage", "unused characters",
                         "unused speech-to-text minutes"]  # fmt: skip
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        row = cells(line)
        assert "." not in row[2] and "." not in row[6], row
        assert re.fullmatch(r"[\d,]+\.\d\d|no limit", row[3]) and re.fullmatch(
            r"[\d,]+\.\d\d|no limit", row[7]
        ), row
        assert re.fullmatch(r"[\d,]+\.\d\d EUR", row[4]), row
    found = json.loads(
        runner.invoke(app, ["capacity", "recommend", "--demo", "--format", "json"]).stdout
    )
    for row in found["forecasts"]:
        places = 0 if row["metric"] == "total_characters" else 2
        for name in ("used", "projected", "low_80", "high_80", "plain_projected"):
            value = row[name]  # null: an interval not measured yet
            assert value is None or round(value, places) == value, (row["metric"], name)
    assert all(isinstance(o["committed_characters"], int) for o in found["options"])


@pytest.mark.parametrize(
    ("what_ifs", "warned"),
    [
        (
            ["--growth", "-99%"],
            "growth -99.0\u202f% is outside the plausible range (-90.0\u202f% to +1,000.0\u202f%)",
        ),
        (["--growth", "1200%"], "growth +1,200.0\u202f% is outside the plausible range"),
        (
            ["--add", "100000000 characters a month"],
            "the workload '100,000,000 characters a month' is more than 10 times",
        ),
        (["--growth", "-90%"], None),
        (["--growth", "1000%", "--add", "1000 characters a month"], None),
    ],
)
def test_an_implausible_what_if_is_taken_with_a_warning_beside_the_plain_answer(
    what_ifs, warned, demo_env
):
    result = runner.invoke(app, ["capacity", "recommend", "--demo", *what_ifs])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    if warned is None:
        assert warnings == []
    else:
        assert len(warnings) == 1 and warnings[0].startswith(f"warning: {warned}")
    # Taken as asked, and shown beside the plain forecast and recommendation.
    assert "without what-ifs" in result.stdout.splitlines()[2]
    assert "\nWithout the what-ifs (" in result.stdout
    found = json.loads(
        runner.invoke(
            app, ["capacity", "recommend", "--demo", "--format", "json", *what_ifs]
        ).stdout
    )
    assert len(found["warnings"]) == (0 if warned is None else 1)
    assert found["without_what_ifs"]["recommended"]
