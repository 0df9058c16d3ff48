"""`capacity backtest` and `capacity recommend` against the demo organization, their exit codes,
and the pricing file's catalogue: the example's options, a bad one refused in one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analytics.cli import app
from analytics.cli.shared import EXIT_USAGE
from analytics.cost.prices import PricingFileError, load_pricing, parse_pricing

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


def test_the_example_catalogue_is_labelled_as_examples_with_todays_plan_marked():
    catalogue = load_pricing(ROOT / "pricing.example.toml").catalogue
    assert len(catalogue) >= 3
    assert all(option.name.startswith("Example: ") for option in catalogue)
    assert [option.name for option in catalogue if option.current] == ["Example: today's plan"]


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
    with pytest.raises(PricingFileError) as refused:
        parse_pricing(text, "pricing.toml")
    assert str(refused.value).startswith(message)
    assert "\n" not in str(refused.value)


def test_a_bad_catalogue_stops_recommend_with_one_line_and_exit_2(tmp_path, demo_env):
    bad = tmp_path / "pricing.toml"
    bad.write_text(f'{PRICES}\n[[option]]\nname = "Yearly"\nprice_per_million_characters = -1\n')
    result = runner.invoke(app, ["capacity", "recommend", "--pricing", str(bad), "--demo"])
    assert result.exit_code == EXIT_USAGE
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
    assert "today's plan" in result.stdout


def test_recommend_json_carries_the_what_ifs_the_curve_and_the_accuracy(demo_env):
    args = ["capacity", "recommend", "--demo", "--format", "json", "--term", "6"]
    plain = json.loads(runner.invoke(app, args).stdout)
    shifted = json.loads(
        runner.invoke(
            app, [*args, "--growth", "10%", "--add", "speech pilot 500 minutes a month"]
        ).stdout
    )
    assert plain["term_months"] == 6 and plain["what_ifs"] == "none"
    assert shifted["what_ifs"] == "growth +10%; speech pilot 500 minutes a month"
    assert {row["option"] for row in plain["curve"]} >= {"Example: today's plan"}
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
        (["--year-start", "13-01"], "contract year start"),
        (["--term", "0"], "--term"),
    ],
)
def test_recommend_refuses_a_bad_what_if_or_setting_with_exit_2(extra, said, demo_env):
    result = runner.invoke(app, ["capacity", "recommend", "--demo", *extra])
    assert result.exit_code == EXIT_USAGE
    assert said in result.stderr


def test_recommend_without_a_catalogue_says_where_to_write_one(tmp_path, demo_env):
    bare = tmp_path / "pricing.toml"
    bare.write_text(PRICES)
    result = runner.invoke(app, ["capacity", "recommend", "--pricing", str(bare), "--demo"])
    assert result.exit_code == EXIT_USAGE
    assert f"{bare} has no [[option]] entries" in result.stderr
