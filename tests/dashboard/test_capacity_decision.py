"""The Capacity page's Decision section in the headless dashboard: the forecasts' stated
accuracy against the backtest worked out from the ledger, and the what-ifs kept in the address
(they change the recommendation, survive a rerun and open from a link)."""

from __future__ import annotations

import html as html_text
import json
import re
import tomllib
from collections import defaultdict
from datetime import date, timedelta

import pandas as pd
import pytest
from support.builders import ledger_totals
from support.headless import DEMO_DAYS, ROOT, TODAY, open_clean_page
from typer.testing import CliRunner

from analytics.capacity.forecasting.run_rate_model import run_rate
from analytics.cli import app
from analytics.storage import bundle
from analytics.usage.metrics import share_text

DAY = timedelta(days=1)
WORKLOAD = "50000000 characters a month"
runner = CliRunner()


def daily_characters(demo_ledger, first: date, last: date) -> dict[date, int]:
    """The organization's total characters of each day, summed from the ledger."""
    days: dict[date, int] = defaultdict(int)
    for row in demo_ledger.ledger(first, last):
        days[row.usage_date] += int(ledger_totals([row])["total_characters"])
    return days


def test_the_stated_error_is_the_backtests_worked_out_from_the_ledger(demo_env, demo_ledger):
    at = open_clean_page("capacity", period="Last 30 days")
    covered, last = TODAY - DEMO_DAYS * DAY, TODAY - DAY  # the demo's whole history
    days = daily_characters(demo_ledger, covered, last)
    # A forecast's history begins on the first day of use: the days before it are not a level
    # of zero (a demo whose first days are a weekend begins on the Monday).
    first = min(day for day, used in days.items() if used > 0)
    series = pd_series(days, first, last)
    # A month is scored from its first day when four weeks are known before it and it has
    # ended; with fewer than six such months the run rate is the model used.
    starts = [
        date(y, m, 1)
        for y in (TODAY.year - 1, TODAY.year)
        for m in range(1, 13)
        if first + 28 * DAY <= date(y, m, 1) and next_month(date(y, m, 1)) <= TODAY
    ]
    assert 1 <= len(starts) < 6
    errors, actuals = 0.0, 0.0
    for start in starts:
        month = [start + n * DAY for n in range((next_month(start) - start).days)]
        rate = run_rate(series, start, first)
        actual = sum(days[d] for d in month)
        errors += abs(actual - sum(rate.expected(d) for d in month))
        actuals += actual
    said = (
        f"Month-ahead error (WAPE) over the {len(starts)} months {starts[0]:%Y-%m} to "
        f"{starts[-1]:%Y-%m}, each forecast on its first day: {share_text(errors / actuals)}"
    )
    # The decision's first tab, open by default: total characters.
    [characters] = [c.value for c in at.caption if c.value.startswith("Month-ahead")]
    assert characters.startswith(f"{said}; run rate serves every period;"), characters


def pd_series(days: dict[date, int], first: date, last: date) -> pd.Series:
    index = pd.date_range(first, last, freq="D")
    return pd.Series([float(days.get(d.date(), 0)) for d in index], index=index)


def next_month(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1)


def options_table(at) -> pd.DataFrame:
    """The recommendation's table of every option, by name."""
    [options] = [df.value for df in at.dataframe if "option" in df.value.columns]
    return options.set_index("option")


def recommended(at) -> str:
    [said] = [s.value for s in at.success]
    return said.split("**")[1]


def test_what_ifs_in_the_address_change_the_recommendation_and_survive_a_rerun(demo_env):
    plain = open_clean_page("capacity", period="Last 30 days")
    assert recommended(plain) == "Example: pay as you go"

    at = open_clean_page("capacity", period="Last 30 days", add=WORKLOAD, risk="100")
    options = options_table(at)
    # At any risk the cheapest expected option is chosen; the workload adds its volume at the
    # pay-as-you-go price to that option's every month.
    assert recommended(at) == options["expected_cost"].idxmin() != "Example: pay as you go"
    before = options_table(plain)["expected_cost"]
    catalogue = tomllib.loads((ROOT / "pricing.example.toml").read_text())["option"]
    [payg] = [o for o in catalogue if o["name"] == "Example: pay as you go"]
    added = 12 * 50 * payg["price_per_million_characters"]
    assert options.loc[payg["name"], "expected_cost"] - before[payg["name"]] == pytest.approx(
        added, abs=0.01
    )

    shown = recommended(at)
    at.run()
    assert not at.exception and not at.error
    assert recommended(at) == shown
    assert at.text_area(key="add").value == WORKLOAD
    assert at.slider(key="risk").value == 100


def test_a_link_with_what_ifs_opens_them(demo_env):
    lines = f"speech pilot 500 minutes a month\n{TODAY:%Y}-12:{WORKLOAD}"
    at = open_clean_page(
        "capacity", period="Last 30 days", growth="10", add=lines, risk="50", term="6"
    )
    assert at.number_input(key="growth").value == 10
    assert at.text_area(key="add").value == lines
    assert at.slider(key="risk").value == 50
    assert at.selectbox(key="term").value == 6
    assert (
        f"What-ifs: growth +10.0\u202f%; speech pilot 500 minutes a month; {TODAY:%Y}-12: "
        "50,000,000 characters a month." in [c.value for c in at.caption]
    )
    assert "for the 6 months from" in at.success[0].value
    assert "within a 50.0\u202f% chance of overage" in at.success[0].value


def test_a_workload_that_cannot_be_read_is_named_and_left_out(demo_env):
    at = open_clean_page("capacity", period="Last 30 days")
    at.text_area(key="add").set_value("a lot of characters").run()
    assert not at.exception
    [error] = [e.value for e in at.error]
    assert error.startswith("Left out: a planned workload reads like")
    assert "What-ifs: none." in [c.value for c in at.caption]


def test_without_a_catalogue_one_caption_says_how_to_add_one(demo_env, monkeypatch, tmp_path):
    monkeypatch.setattr(bundle, "bundle_folder", lambda: tmp_path)  # no example pricing file
    at = open_clean_page("capacity", period="Last 30 days")
    assert not at.success
    [said] = [c.value for c in at.caption if c.value.startswith("No options to weigh")]
    assert "`[[option]]` entries" in said and "docs/capacity.md" in said
    assert len([c for c in at.caption if c.value.startswith("Month-ahead error")]) == 1


def contract_year_end(today: date) -> date:
    """The last day of the contract year holding ``today``, from budgets.example.toml's
    contract_year_start (the file in force in demo mode), worked out by hand."""
    start = tomllib.loads((ROOT / "budgets.example.toml").read_text())["contract_year_start"]
    month, day = (int(part) for part in start.split("-"))
    first = date(today.year, month, day)
    if first > today:
        first = date(today.year - 1, month, day)
    return date(first.year + 1, month, day) - DAY


def forecast_table(at):
    """The Decision's forecast table of the open metric (its first: total characters)."""
    [table] = [df for df in at.dataframe if "range_80" in df.value.columns]
    return table


def test_the_page_the_report_and_recommend_end_the_same_contract_year(demo_env, tmp_path):
    end = contract_year_end(TODAY)
    at = open_clean_page("capacity", period="Last 30 days")
    periods = forecast_table(at).value["period"].tolist()
    assert f"Contract year to {end:%Y-%m-%d}" in periods
    assert not [p for p in periods if p.startswith("Contract year") and str(end) not in p]
    written = tmp_path / "report.html"
    done = runner.invoke(app, ["report", "--period", "last-30-days", "-o", str(written), "--demo"])
    assert done.exit_code == 0, done.output
    report = written.read_text(encoding="utf-8")
    assert set(re.findall(r"Contract year to (\d{4}-\d\d-\d\d)", report)) == {str(end)}
    answer = runner.invoke(app, ["capacity", "recommend", "--demo"])
    assert answer.exit_code == 0, answer.output
    assert set(re.findall(r"Contract year to (\d{4}-\d\d-\d\d)", answer.stdout)) == {str(end)}


def test_the_decisions_todays_plan_is_the_plan_cards(demo_env, demo_ledger):
    plan = demo_ledger.plan  # what GET /v2/usage answers: the Plan card's limits
    at = open_clean_page("capacity", period="Last 30 days")
    card = [p.proto.text for p in at.get("progress")]
    limits = (
        plan.effective_character_limit,
        plan.speech_to_text_minutes_limit,
        plan.speech_to_speech_minutes_limit,
    )
    assert [re.search(r" of ([\d,]+) ", text)[1] for text in card] == [f"{n:,}" for n in limits]
    options = options_table(at)
    assert options.loc["Today's plan", "current"]
    assert options.loc["Today's plan", "committed_characters"] == limits[0]
    assert options.loc["Today's plan", "committed_minutes"] == limits[1]
    assert options["current"].sum() == 1
    [named] = [c.value for c in at.caption if c.value.startswith("Today's plan, as the service")]
    assert named.startswith(
        f"Today's plan, as the service reports it: {limits[0]:,} characters, {limits[1]:,} "
        f"speech-to-text minutes and {limits[2]:,} speech-to-speech minutes a billing period"
    )
    # The tile's difference is against the same plan's expected cost.
    [cost] = [m for m in at.metric if m.label.startswith("Expected cost")]
    chosen = options.loc[recommended(at), "expected_cost"]
    against = chosen - options.loc["Today's plan", "expected_cost"]
    assert cost.proto.delta == f"{against:+,.2f} EUR against today's plan"


def column_formats(table) -> dict[str, str]:
    """Each shown column's label and number format, as the browser receives them."""
    config = json.loads(table.proto.columns)
    return {
        name: (spec.get("label"), spec.get("type_config", {}).get("format"))
        for name, spec in config.items()
        if name != "_index"
    }


@pytest.mark.parametrize("outlook", ["Total characters", "Speech-to-text minutes"])
def test_decision_tiles_and_tables_show_whole_characters_and_minutes_to_the_hundredth(
    demo_env, outlook
):
    at = open_clean_page("capacity", period="Last 30 days", outlook=outlook, growth="7")
    minutes = outlook != "Total characters"
    unit, places = ("minutes", 2) if minutes else ("characters", 0)
    table = forecast_table(at)
    formats = column_formats(table)
    for column in ("used", "projected", "plain_projected"):
        label, shown = formats[column]
        assert label.endswith(f"({unit})") and shown == ("%,.2f" if minutes else "%,d")
        values = table.value[column]
        assert (values.round(places) == values).all(), (column, values.tolist())
    for column in ("range_80", "range_95"):
        assert formats[column][0].endswith(f"({unit})")
        for text in table.value[column]:
            figures = re.findall(r"\d[\d,]*(?:\.\d+)?", text)
            assert {len(f.partition(".")[2]) for f in figures} <= {places}, text
    options = next(df for df in at.dataframe if "option" in df.value.columns)
    formats = column_formats(options)
    assert formats["committed_characters"] == ("Characters a month", "%,d")
    assert formats["committed_minutes"] == ("Speech-to-text minutes a month", "%,.2f")
    assert formats["expected_cost"] == ("Expected cost (EUR)", "%,.2f")
    shown = options.value
    assert (shown["committed_characters"].dropna() % 1 == 0).all()
    minutes_a_month = shown["committed_minutes"].dropna()
    assert (minutes_a_month.round(2) == minutes_a_month).all()
    tiles = {m.label: m.value for m in at.metric}
    assert set(tiles) == {
        "Expected cost (EUR)",
        "Chance of overage",
        "Expected unused characters",
        "Expected unused speech-to-text minutes",
    }
    assert re.fullmatch(r"[\d,]+|no limit", tiles["Expected unused characters"])
    assert re.fullmatch(r"[\d,]+\.\d\d|no limit", tiles["Expected unused speech-to-text minutes"])
    assert re.fullmatch(r"[\d,]+\.\d\d", tiles["Expected cost (EUR)"])


@pytest.mark.parametrize(
    ("growth", "warned"),
    [
        (
            "-99",
            "Growth -99.0\u202f% is outside the plausible range (-90.0\u202f% to "
            "+1,000.0\u202f%): it is taken as",
        ),
        ("-90", None),
        ("1000", None),
        (
            "1500",
            "Growth +1,500.0\u202f% is outside the plausible range (-90.0\u202f% to "
            "+1,000.0\u202f%): it is taken as",
        ),
    ],
)
def test_an_implausible_growth_is_taken_with_a_warning_beside_the_plain_forecast(
    demo_env, growth, warned
):
    at = open_clean_page("capacity", period="Last 30 days", growth=growth)
    shown = [w.value for w in at.warning if "plausible" in w.value]
    if warned is None:
        assert shown == []
    else:
        assert len(shown) == 1 and shown[0].startswith(warned)
    # Taken as asked: the projection moves, and the one without the what-if is beside it.
    table = forecast_table(at)
    assert "plain_projected" in table.proto.column_order
    rows = table.value
    factor = 1 + float(growth) / 100
    ahead = rows["projected"] - rows["used"]
    plain_ahead = rows["plain_projected"] - rows["used"]
    # Both are shown rounded to whole characters, the plain one then scaled by the factor.
    assert ahead.tolist() == pytest.approx((factor * plain_ahead).tolist(), abs=factor + 1)
    assert [c.value for c in at.caption if c.value.startswith("Without the what-ifs (growth")]


def test_a_workload_over_ten_times_todays_usage_is_named(demo_env, demo_ledger):
    days = daily_characters(demo_ledger, TODAY - 30 * DAY, TODAY - DAY)
    today = sum(days.values())  # the last 30 closed days' characters, from the ledger
    over = f"{10 * today + 1} characters a month"
    at = open_clean_page("capacity", period="Last 30 days", add=over)
    [shown] = [w.value for w in at.warning if "times today's usage" in w.value]
    assert f"({today:,} characters in the last 30 days)" in shown
    at = open_clean_page("capacity", period="Last 30 days", add=f"{10 * today} characters")
    assert not [w for w in at.warning if "times today's usage" in w.value]


def test_each_forecast_tab_states_its_own_metrics_accuracy(demo_env):
    """The Forecasts section's Speech-to-text minutes tab states the minutes' accuracy, not
    the characters': the sentence the Decision's tab of that metric and `capacity backtest`
    state of it."""
    backtest = runner.invoke(app, ["capacity", "backtest", "--demo"])
    assert backtest.exit_code == 0, backtest.output
    said = {}
    for metric in ("Total characters", "Speech-to-text minutes"):
        at = open_clean_page("capacity", period="Last 30 days", forecast=metric, outlook=metric)
        [note] = [c.value for c in at.caption if c.value.startswith("Each projection is")]
        [decided] = [c.value for c in at.caption if c.value.startswith("Month-ahead error")]
        assert note.endswith(f" {metric}: {decided}"), note
        assert f"{metric}: {decided}" in backtest.stdout.splitlines()
        said[metric] = decided
    assert said["Total characters"] != said["Speech-to-text minutes"]


def test_the_page_the_report_and_recommend_name_one_model_for_each_period(demo_env, tmp_path):
    """The model serving a period is one name wherever the period is: the page's forecast
    table (its model column) and its accuracy sentence, `capacity recommend`'s rows and the
    report's sentence, each period named "Quarter to …" alike."""
    at = open_clean_page("capacity", period="Last 30 days")
    shown = forecast_table(at).value
    assert "model" in forecast_table(at).proto.column_order
    page = dict(zip(shown["period"], shown["model"], strict=True))
    answer = runner.invoke(app, ["capacity", "recommend", "--demo", "--format", "json"])
    rows = [r for r in json.loads(answer.stdout)["forecasts"] if r["metric"] == "total_characters"]
    names = {"month": "Month", "quarter": "Quarter", "year": "Contract year"}
    names["next 12 months"] = "Next 12 months"
    assert {f"{names[r['period']]} to {r['end']}": r["model"] for r in rows} == page
    said_twice = [c.value for c in at.caption if " serves " in c.value]
    [sentence] = [s for s in said_twice if not s.startswith("Each projection")]
    assert [s for s in said_twice if s.endswith(f"Total characters: {sentence}")]
    if len(set(page.values())) == 1:
        assert f"; {next(iter(page.values()))} serves every period;" in sentence
    for period, model in page.items() if len(set(page.values())) > 1 else ():
        said = sentence[: sentence.index(f"the {period[:1].lower()}{period[1:]}")]
        assert said.rfind(model) == max(said.rfind(m) for m in set(page.values()))
    written = tmp_path / "report.html"
    done = runner.invoke(app, ["report", "--period", "last-30-days", "-o", str(written), "--demo"])
    assert done.exit_code == 0, done.output
    report = html_text.unescape(written.read_text(encoding="utf-8"))
    assert f"Total characters: {sentence}" in report
    # The report's one forecast table names each period's model as the page's does.
    plain = re.sub(r' class="[^"]*"', "", report)
    for period, model in page.items():
        row = re.search(rf"<tr><td>Total characters</td><td>{period}</td>(.*?)</tr>", plain)
        assert row and row[1].endswith(f"<td>{model}</td>"), period
    # One table, shaped once: the page's columns, in its order, with the same figures.
    heads = re.search(r"<tr><th>Metric</th><th>Period</th>(.*?)</tr>", plain)
    assert heads and re.findall(r"<th>(.*?)</th>", heads[1]) == [
        "Used", "Projected", "80 % interval", "95 % interval", "Model",
    ]  # fmt: skip
    assert list(forecast_table(at).proto.column_order) == [
        "period", "used", "projected", "range_80", "range_95", "model",
    ]  # fmt: skip
    for shown_row in shown.itertuples():
        row = re.search(
            rf"<tr><td>Total characters</td><td>{shown_row.period}</td>(.*?)</tr>", plain
        )
        assert row and re.findall(r"<td>(.*?)</td>", row[1]) == [
            f"{shown_row.used:,.0f}",
            f"{shown_row.projected:,.0f}",
            shown_row.range_80,
            shown_row.range_95,
            shown_row.model,
        ]
