"""The Usage / Cost switch and the grouping by team on Overview, Keys and Trends, in the headless
dashboard, against amounts computed here from the emulator's ledger.

The prices make every amount exact in cents, whatever the share: a text translation character
costs 1 cent, a document character 2, a text improvement character 3, a micro-minute of
speech-to-text 1 cent and of speech-to-speech 2 (unit prices per million characters and per
minute). So a key's cost is its ledger usage weighted by those cents, to the cent, and the
apportioning of lines cannot blur the oracle.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from streamlit.proto.Metric_pb2 import Metric
from support.headless import DEMO_DAYS, TODAY, chart_specs, open_clean_page, open_page

from analytics.pages import page_at
from analytics.storage import bundle
from analytics.usage.calendar import previous_range

DAY = timedelta(days=1)
YESTERDAY = TODAY - DAY
START = TODAY - 30 * DAY  # Last 30 days
# What the last 30 days are compared with: the 30 days before, or the calendar month before
# when they are one (1-30 June, seen on 1 July).
PREVIOUS, PREVIOUS_END = previous_range(START, YESTERDAY)
FEE = Decimal("300.00")
CENTS = {
    "text_translation_characters": 1,
    "document_translation_characters": 2,
    "text_improvement_characters": 3,
    "speech_to_text_minutes": 1,  # per micro-minute
    "speech_to_speech_minutes": 2,
}
PRICING = f"""
currency = "EUR"

[[price]]
from = "2020-01-01"
monthly_fee = {FEE}

[price.unit_prices]
text_translation_characters = 10_000
document_translation_characters = 20_000
text_improvement_characters = 30_000
speech_to_text_minutes = 10_000
speech_to_speech_minutes = 20_000
"""
# teams.example.toml's rules on the labels of the demo organization's eight keys (the dormant
# "Legacy integration" is no team's).
TEAMS = {
    "Production website": "Web shop",
    "Finance reporting": "Documents",
    "Customer support (EU)": "Customer support",
    "Support desk": "Customer support",
    "Marketing launch": "Marketing",
    "Writing assistant": "Internal tools",
    "Meeting transcription": "Internal tools",
    "Document pipeline": "Documents",
}
# All history: the headless demo's whole span; a pricing.toml whose first price starts inside
# it leaves the days before unpriced.
ALL_START = TODAY - DEMO_DAYS * DAY
FIRST_PRICE = YESTERDAY - 44 * DAY
NOT_PRICED = f"No price in force on {ALL_START}..{FIRST_PRICE - DAY}"


@pytest.fixture
def priced(demo_env, monkeypatch, tmp_path):
    """The dashboard reads this pricing.toml from its folder; teams: the example (demo)."""
    (tmp_path / "pricing.toml").write_text(PRICING)
    monkeypatch.chdir(tmp_path)


def cents(row) -> dict[str, int]:
    """One ledger row's cost per metric, in cents, and its total."""
    costs = {
        metric: round(Decimal(str(getattr(row, metric))) * 10**6) * price
        if metric.endswith("minutes")
        else getattr(row, metric) * price
        for metric, price in CENTS.items()
    }
    return {**costs, "total_characters": sum(costs.values())}


def cost_of(rows, group=lambda row: row.api_key) -> dict[str, dict[str, int]]:
    """Cents per metric for each group of ledger rows."""
    sums: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        for metric, value in cents(row).items():
            sums[group(row)][metric] += value
    return sums


def euros(amount: int) -> Decimal:
    return Decimal(amount).scaleb(-2)


def fee_of(start: date, end: date) -> int:
    """The fee of each month's days in the range, rounded half up per month (cents)."""
    days: dict[tuple[int, int], int] = defaultdict(int)
    day = start
    while day <= end:
        days[day.year, day.month] += 1
        day += DAY
    total = 0
    for (year, month), count in days.items():
        following = date(year + month // 12, month % 12 + 1, 1)
        length = (following - date(year, month, 1)).days
        total += int(Fraction(int(FEE * 100) * count, length) + Fraction(1, 2))
    return total


def latest_labels(rows) -> dict[str, str]:
    return {row.api_key: row.api_key_label for row in sorted(rows, key=lambda r: r.usage_date)}


def test_overview_tiles_show_the_cost_of_each_service_and_the_total(priced, demo_ledger):
    at = open_page("overview", period="Last 30 days", show="Cost")
    assert not at.exception and not at.error and not at.warning
    now = cost_of(demo_ledger.ledger(START, YESTERDAY), lambda row: "all")["all"]
    before = cost_of(demo_ledger.ledger(PREVIOUS, PREVIOUS_END), lambda row: "all")["all"]
    total, previous = (
        now["total_characters"] + fee_of(START, YESTERDAY),
        before["total_characters"] + fee_of(PREVIOUS, PREVIOUS_END),
    )
    tiles = {tile.label: tile for tile in at.metric}
    assert list(tiles) == [
        "Total cost",
        "Text translation cost",
        "Documents cost",
        "Text improvement cost",
        "Speech-to-text cost",
        "Speech-to-speech cost",
    ]
    assert tiles["Total cost"].value == f"{euros(total):,} EUR"
    assert tiles["Total cost"].delta == f"{100 * (total / previous - 1):+.1f}\u202f%"
    assert tiles["Documents cost"].value == (
        f"{euros(now['document_translation_characters']):,} EUR"
    )
    assert tiles["Speech-to-speech cost"].value == (
        f"{euros(now['speech_to_speech_minutes']):,} EUR"
    )
    [mix] = chart_specs(at)
    assert {trace["name"] for trace in mix["data"]} >= {"Text translation", "Speech-to-speech"}
    charted = sum(sum(trace["y"]) for trace in mix["data"])
    assert charted == pytest.approx(float(euros(now["total_characters"])))  # usage, no fee
    assert mix["layout"]["yaxis"]["title"]["text"] == "Cost (EUR)"


def test_usage_is_the_default_and_the_switch_turns_the_page_to_cost(priced):
    # The URL side (show=Cost in the address) is the browser test's.
    at = open_page("overview", period="Last 30 days")
    assert at.segmented_control(key="show_switch").value == "usage"
    assert at.metric[0].label == "Total characters"
    at.segmented_control(key="show_switch").set_value("cost").run()
    assert at.metric[0].label == "Total cost"


def test_the_cost_switch_is_the_sessions_on_every_page_and_in_every_url(priced):
    at = open_clean_page("overview", period="Last 30 days")
    at.segmented_control(key="show_switch").set_value("cost").run()
    assert at.query_params["show"] == "Cost"
    # A page without the switch keeps the choice in its URL; the next one with it shows it.
    at.switch_page(str(page_at("pairs").file)).run()
    assert at.query_params["show"] == "Cost"
    at.switch_page(str(page_at("keys").file)).run()
    assert not at.exception and not at.error
    assert at.segmented_control(key="show_switch").value == "cost"
    assert at.selectbox(key="metric").options[0] == "Usage cost"
    # Set back on Keys, it is usage again on Overview, and gone from the URL.
    at.segmented_control(key="show_switch").set_value("usage").run()
    at.switch_page(str(page_at("overview").file)).run()
    assert at.metric[0].label == "Total characters"
    assert "show" not in at.query_params


def test_keys_table_shows_each_keys_cost_per_metric(priced, demo_ledger):
    at = open_clean_page("keys", period="Last 30 days", show="Cost")
    table = at.dataframe[0].value.set_index("api_key")
    expected = cost_of(demo_ledger.ledger(START, YESTERDAY))
    assert set(table.index) == set(expected)
    for key, costs in expected.items():
        for metric in (*CENTS, "total_characters"):
            assert table.loc[key, metric] == euros(costs[metric]), (key, metric)
    assert table["share"].sum() == pytest.approx(100.0)  # shown in percent
    biggest = max(expected, key=lambda key: expected[key]["total_characters"])
    assert at.dataframe[0].value["api_key"].iloc[0] == biggest
    [top, one] = chart_specs(at)
    assert top["layout"]["xaxis"]["title"]["text"] == "Usage cost (EUR)"
    assert one["layout"]["yaxis"]["title"]["text"] == "Cost (EUR)"


def test_trends_plot_cost_and_break_a_period_down_in_cents(priced, demo_ledger):
    at = open_clean_page(
        "trends",
        period="Last 30 days",
        show="Cost",
        metric="Text improvement cost",
        granularity="Day",
        day=f"{YESTERDAY:%Y-%m-%d (%a)}",
    )
    assert at.selectbox(key="metric").value == "text_improvement_characters"
    [chart] = chart_specs(at)
    assert chart["layout"]["yaxis"]["title"]["text"] == "Text improvement cost (EUR)"
    whole = cost_of(demo_ledger.ledger(START, YESTERDAY), lambda row: "all")["all"]
    charted = sum(sum(trace["y"]) for trace in chart["data"])
    assert charted == pytest.approx(float(euros(whole["text_improvement_characters"])))
    breakdown = at.dataframe[-1].value.set_index("api_key")
    that_day = cost_of(demo_ledger.ledger(YESTERDAY, YESTERDAY))
    for key, costs in that_day.items():
        if costs["total_characters"]:
            assert breakdown.loc[key, "total_characters"] == euros(costs["total_characters"])


def test_keys_grouped_by_team_keep_unassigned(priced, demo_ledger):
    # Over the whole history: the dormant key, the one no team claims, was used early on.
    at = open_clean_page("keys", period="All history", group="Team")
    rows = demo_ledger.ledger(ALL_START, YESTERDAY)
    teams = {key: TEAMS.get(label, "Unassigned") for key, label in latest_labels(rows).items()}
    expected: dict[str, int] = defaultdict(int)
    for row in rows:
        used = (
            row.text_translation_characters
            + row.document_translation_characters
            + row.text_improvement_characters
        )
        expected[teams[row.api_key]] += used
    table = at.dataframe[0].value.set_index("api_key")
    assert table["total_characters"].to_dict() == dict(expected)
    assert {"Web shop", "Documents", "Unassigned"} <= set(table.index)
    assert at.text_input(key="q").label == "Search teams"
    assert at.selectbox(key="team").value in expected


def test_trends_by_team_in_cost(priced, demo_ledger):
    at = open_clean_page("trends", period="Last 30 days", show="Cost", group="Team", top="2")
    rows = demo_ledger.ledger(START, YESTERDAY)
    teams = {key: TEAMS.get(label, "Unassigned") for key, label in latest_labels(rows).items()}
    per_team = cost_of(rows, lambda row: teams[row.api_key])
    [chart] = chart_specs(at)
    names = [trace["name"] for trace in chart["data"]]
    leaders = sorted(per_team, key=lambda team: -per_team[team]["total_characters"])[:2]
    assert names == [*leaders, "Other"]
    first = next(trace for trace in chart["data"] if trace["name"] == leaders[0])
    assert sum(first["y"]) == pytest.approx(float(euros(per_team[leaders[0]]["total_characters"])))
    assert at.multiselect(key="teams").label == "Teams (all when empty)"


def test_without_a_pricing_file_cost_says_how_and_the_page_shows_usage(
    demo_env, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(bundle, "bundle_folder", lambda: tmp_path)  # no examples either
    for page in ("overview", "keys", "trends"):
        at = open_page(page, show="Cost", group="Team")
        assert not at.exception and not at.error, page
        notes = " ".join(info.value for info in at.info)
        assert "Money views need prices: put a pricing.toml" in notes, page
        assert "Grouping by team needs teams" in notes or page == "overview", page
        table = at.dataframe[0].value if page != "overview" else None
        assert table is None or table["api_key"].str.contains(r"\*\*\*\*").all(), page
    assert open_page("overview", show="Cost").metric[0].label == "Total characters"


@pytest.fixture
def priced_late(demo_env, monkeypatch, tmp_path):
    """The dashboard reads a pricing.toml whose first price is FIRST_PRICE."""
    (tmp_path / "pricing.toml").write_text(PRICING.replace("2020-01-01", str(FIRST_PRICE)))
    monkeypatch.chdir(tmp_path)


def price_notes(at) -> list[str]:
    return [info.value for info in at.info if "price" in info.value]


def test_overview_in_cost_over_all_history_prices_the_priced_days_and_names_the_others(
    priced_late, demo_ledger
):
    at = open_clean_page("overview", period="All history", show="Cost")
    assert not at.warning  # no fall back to usage
    assert price_notes(at) == [f"{NOT_PRICED}: costs and totals cover the priced days only."]
    now = cost_of(demo_ledger.ledger(FIRST_PRICE, YESTERDAY), lambda row: "all")["all"]
    tiles = {tile.label: tile for tile in at.metric}
    total = now["total_characters"] + fee_of(FIRST_PRICE, YESTERDAY)
    assert tiles["Total cost"].value == f"{euros(total):,} EUR"
    assert tiles["Total cost"].delta == "N/A"  # the previous range has no price
    assert tiles["Documents cost"].value == (
        f"{euros(now['document_translation_characters']):,} EUR"
    )
    [mix] = chart_specs(at)
    charted = sum(sum(trace["y"]) for trace in mix["data"])
    assert charted == pytest.approx(float(euros(now["total_characters"])))


def test_keys_in_cost_price_the_days_with_a_price_and_name_the_others(
    demo_env, demo_ledger, monkeypatch, tmp_path
):
    (tmp_path / "pricing.toml").write_text(PRICING.replace("2020-01-01", str(YESTERDAY)))
    monkeypatch.chdir(tmp_path)
    at = open_clean_page("keys", period="Last 7 days", show="Cost")
    assert not at.warning
    [note] = price_notes(at)
    assert note == (
        f"No price in force on {TODAY - 7 * DAY}..{YESTERDAY - DAY}: costs and totals cover "
        "the priced days only."
    )
    table = at.dataframe[0].value.set_index("api_key")
    for key, costs in cost_of(demo_ledger.ledger(YESTERDAY, YESTERDAY)).items():
        assert table.loc[key, "total_characters"] == euros(costs["total_characters"]), key


def test_chargeback_over_all_history_bills_the_priced_months_and_names_the_others(
    priced_late, demo_ledger
):
    at = open_clean_page("chargeback", period="All history")
    assert not at.warning
    assert price_notes(at) == [
        f"{NOT_PRICED}: the months and the Total row cover the priced days only."
    ]
    rows = demo_ledger.ledger(ALL_START, YESTERDAY)
    teams = {key: TEAMS.get(label, "Unassigned") for key, label in latest_labels(rows).items()}
    priced = [row for row in rows if row.usage_date >= FIRST_PRICE]
    table = at.dataframe[0].value
    # Every month with a priced day, used or not (its share of the base fee is billed), and
    # no month before the first price.
    days = (FIRST_PRICE + n * DAY for n in range((YESTERDAY - FIRST_PRICE).days + 1))
    months = sorted({f"{day:%Y-%m}" for day in days})
    assert sorted(set(table["month"]) - {""}) == months
    [total] = at.dataframe[1].value.to_dict("records")  # the Total row, below the teams
    assert total["team"] == "Total"
    assert total["amount"] == euros(
        cost_of(priced, lambda row: "all")["all"]["total_characters"]
        + fee_of(FIRST_PRICE, YESTERDAY)
    )
    usage_cost = table[table["team"] != "Total"].groupby("team")["usage_amount"].sum()
    expected = cost_of(priced, lambda row: teams[row.api_key])
    assert usage_cost[usage_cost != 0].to_dict() == {
        team: euros(costs["total_characters"]) for team, costs in expected.items()
    }


# -- the Capacity page and the Plan panel --------------------------------------------------------

MONTH_START = TODAY.replace(day=1)
NEXT_MONTH = (MONTH_START + 32 * DAY).replace(day=1)
SPEND_BUDGET = """
[[budget]]
name = "Spend, monthly"
metric = "cost"
period = "month"
limit = 1
"""


def test_capacity_evaluates_cost_budgets_and_forecasts_cost(priced, demo_ledger, tmp_path):
    (tmp_path / "budgets.toml").write_text(SPEND_BUDGET)
    at = open_clean_page("capacity", period="Last 30 days", forecast="Cost (EUR)")
    [row] = at.dataframe[0].value.to_dict("records")
    # The month's closed days: their usage, and of the monthly fee one day's share each.
    closed = cost_of(demo_ledger.ledger(MONTH_START, YESTERDAY), lambda r: "all")["all"]
    days_in_month = (NEXT_MONTH - MONTH_START).days
    used = closed["total_characters"] / 100 + float(FEE) * (TODAY.day - 1) / days_in_month
    assert row["unit"] == "EUR" and row["note"] == ""
    assert row["used"] == pytest.approx(used, abs=0.005)
    if TODAY.day > 1:  # on the 1st, nothing is used yet
        assert row["status"] == "exceeded"  # a limit of 1.00 EUR
        assert row["reached"].endswith("(reached)")
    titles = [spec["layout"]["title"]["text"] for spec in chart_specs(at)]
    assert "Cost (EUR) — month to date" in titles
    # The cost forecasts come first of the forecast tables, the usage forecasts after them.
    forecasts = next(df.value for df in at.dataframe if "actual" in df.value.columns)
    forecasts = forecasts.set_index("period")
    assert forecasts.loc["Month", "actual"] == pytest.approx(used, abs=0.005)
    assert forecasts.loc["Month", "projected"] >= forecasts.loc["Month", "actual"]


def test_the_plan_panel_shows_the_billing_periods_spend(priced, demo_ledger):
    at = open_clean_page("overview")
    first, _ = demo_ledger.plan.period(TODAY)
    closed = cost_of(demo_ledger.ledger(first, YESTERDAY), lambda r: "all")["all"]
    so_far = closed["total_characters"] + fee_of(first, YESTERDAY)
    [line] = [m.value for m in at.markdown if m.value.startswith("**Spend**")]
    assert line.startswith(f"**Spend** — {euros(so_far):,} EUR so far, ")
    assert line.endswith(" EUR projected for the billing period")


def test_the_tag_table_prices_each_tag_at_list_prices_with_its_team(priced, demo_ledger, tmp_path):
    (tmp_path / "teams.toml").write_text('[[team]]\nname = "Shop"\ntag_patterns = ["check*"]\n')
    # In Usage (the session's switch) the table holds usage alone.
    assert "cost" not in open_clean_page("tags", period="Last 30 days").dataframe[0].value
    at = open_page("tags", period="Last 30 days", show="Cost")
    assert not at.exception and not at.error and not at.warning
    expected: dict[str, int] = defaultdict(int)
    for row in demo_ledger.tag_ledger(START, YESTERDAY):  # 1 and 3 cents a character
        expected[row.custom_tag] += (
            row.text_translation_characters + 3 * row.text_improvement_characters
        )
    table = at.dataframe[0].value.set_index("custom_tag")
    assert table["cost"].to_dict() == {tag: euros(cents) for tag, cents in expected.items()}
    assert table.loc["checkout", "team"] == "Shop"
    assert set(table["team"]) == {"Shop", "Unassigned"}


def test_a_falling_cost_is_green_and_a_cost_of_zero_next_to_usage_says_why(
    demo_env, demo_ledger, monkeypatch, tmp_path
):
    monkeypatch.setenv("SETTINGS_SOURCE", "files")  # the file is the settings: written twice
    included = "\n[price.included_per_month]\ndocument_translation_characters = 1_000_000_000\n"
    (tmp_path / "pricing.toml").write_text(PRICING + included)
    monkeypatch.chdir(tmp_path)
    rows = demo_ledger.ledger(START, YESTERDAY)
    assert sum(row.document_translation_characters for row in rows) > 0
    at = open_clean_page("overview", period="Last 30 days", show="Cost")
    tiles = {tile.label: tile for tile in at.metric}
    documents = tiles["Documents cost"]
    assert documents.value == "0.00 EUR"
    assert documents.delta == "within the organization's included volume"  # not −100 %
    assert documents.proto.color == Metric.MetricColor.GRAY
    changes = [tile for tile in tiles.values() if tile.delta[:1] in "+-"]
    assert changes
    for tile in changes:  # less money spent is good news
        good = tile.delta.startswith("-")
        assert tile.proto.color == (Metric.MetricColor.GREEN if good else Metric.MetricColor.RED)
    # Every service within its included volume: a key's usage costs nothing, and says why.
    everything = "\n".join(f"{metric} = 1_000_000_000" for metric in CENTS)
    (tmp_path / "pricing.toml").write_text(f"{PRICING}\n[price.included_per_month]\n{everything}\n")
    at = open_clean_page("keys", period="Last 30 days", show="Cost", key=rows[0].api_key)
    assert (
        "This key's usage in this range costs nothing: within the organization's "
        "included volume." in [info.value for info in at.info]
    )


def test_a_previous_range_without_usage_is_no_comparison_even_with_a_base_fee(priced):
    # All history: the previous 120 days lie before the demo organization's first day.
    at = open_clean_page("overview", period="All history", show="Cost")
    assert {tile.label: tile.delta for tile in at.metric}["Total cost"] == "N/A"
