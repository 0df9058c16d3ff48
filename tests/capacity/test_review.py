"""The capacity review of a range, computed once for the Capacity page and the meeting report:
the days it reads, its comparison, forecast paths with budget lines, budgets and notes.

Two keys on a hand-made frame: Website uses 1,000 characters and 2.5 speech minutes a day from
1 January 2025; "R&D" uses 200 a day, then 500 from 1 March. The review is of March, as of
20 April 2025 (closed days through the 19th).
"""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from support.builders import FIRST, budgets, pattern, usage_frame

from analytics.capacity.budgets.definitions import parse_budgets
from analytics.capacity.capacity_review import Limit, build_review, review_range
from analytics.cost.priced import PricesInForce
from analytics.cost.prices import parse_pricing
from analytics.cost.teams import parse_teams
from analytics.usage.calendar import YearStart
from analytics.usage.frames import within
from analytics.usage.pipeline import FetchedRange

TODAY = date(2025, 4, 20)
MARCH = (date(2025, 3, 1), date(2025, 3, 31))


@pytest.fixture(scope="module")
def usage() -> FetchedRange:
    key_day = usage_frame(
        {
            "aaaa****0001": [1000.0] * 120,
            "bbbb****0002": pattern(120, FIRST, lambda d, _: 500.0 if d.month >= 3 else 200.0),
        },
        labels={"aaaa****0001": "Website", "bbbb****0002": "R&D"},
        minutes={"aaaa****0001": [2.5] * 120},
    )
    return FetchedRange(key_day, FIRST, date(2025, 4, 19), mismatches=["window X: totals differ"])


def test_review_range_covers_comparisons_forecasts_and_the_backtest():
    # The forecast and its backtest read the five years before today, before last year's
    # March, the earliest comparison.
    history_first = date(2020, 4, 20)
    assert review_range(*MARCH, TODAY, YearStart(4, 1)) == (history_first, date(2025, 4, 19))
    assert review_range(*MARCH, TODAY, YearStart()) == (history_first, date(2025, 4, 19))
    # A range reaching past yesterday is read to its end.
    assert review_range(date(2025, 4, 1), date(2025, 4, 30), TODAY, YearStart()) == (
        history_first,
        date(2025, 4, 30),
    )
    # A range longer than two years reaches further back through its previous period.
    assert review_range(date(2020, 1, 1), date(2025, 4, 19), TODAY, YearStart(2, 1)) == (
        date(2014, 9, 13),
        date(2025, 4, 19),
    )


def test_review_without_budgets(usage):
    review = build_review(usage, None, TODAY, *MARCH)
    assert (review.start, review.end, review.today) == (*MARCH, TODAY)
    assert review.covered_from == FIRST
    assert review.year_start == YearStart(1, 1)
    assert review.mismatches == ("window X: totals differ",)
    assert [(p.metric, p.kind, p.title, p.limits) for p in review.paths] == [
        ("total_characters", "month", "Total characters — month to date", ()),
        ("total_characters", "year", "Total characters — contract year to date", ()),
        ("speech_to_text_minutes", "month", "Speech-to-text minutes — month to date", ()),
        ("speech_to_text_minutes", "year", "Speech-to-text minutes — contract year to date", ()),
    ]


def test_comparison_and_growth_drivers(usage):
    review = build_review(usage, None, TODAY, *MARCH)
    comparison = review.comparison
    assert comparison.previous == (date(2025, 2, 1), date(2025, 2, 28))  # March's: February
    assert comparison.last_year == (date(2024, 3, 1), date(2024, 3, 31))
    total = comparison.services.loc["total_characters"]
    assert (total["current"], total["previous"]) == (31 * 1500, 28 * 1200)
    drivers = review.drivers(5)  # R&D grew; Website by March's three days more than February
    assert drivers[["api_key_label", "previous", "current", "change"]].to_numpy().tolist() == [
        ["R&D", 28 * 200, 31 * 500, 9_900],
        ["Website", 28 * 1000, 31 * 1000, 3_000],
    ]


def test_forecast_paths_run_through_each_period(usage):
    review = build_review(usage, None, TODAY, *MARCH)
    month, year = review.paths[0].path, review.paths[1].path
    assert [month["day"].iloc[i].date() for i in (0, -1)] == [date(2025, 4, 1), date(2025, 4, 30)]
    assert month["actual"].dropna().iloc[-1] == 19 * 1500  # 1–19 April closed
    assert month["actual"].isna().sum() == 11  # 20–30 April ahead
    # The year so far: January and February at 1,200 a day, then 1,500 a day.
    assert year["actual"].dropna().iloc[-1] == 59 * 1200 + 50 * 1500
    minutes = review.paths[2].path
    assert minutes["actual"].dropna().iloc[-1] == pytest.approx(19 * 2.5)
    assert minutes["expected"].iloc[-1] == pytest.approx(30 * 2.5)


def test_key_forecasts_rank_this_months_projections(usage):
    review = build_review(usage, None, TODAY, *MARCH)
    table = review.key_forecasts
    assert table["api_key_label"].tolist() == ["Website", "R&D"]
    # Website used 1,000 of the organization's 1,500 a day over the last four weeks: two
    # thirds of what the organization is projected to use in the rest of April.
    month = review.paths[0].path  # the organization's characters this month
    assert month["actual"].dropna().iloc[-1] == 19 * 1500
    rest = month["expected"].iloc[-1] - 19 * 1500
    assert table["projected"].iloc[0] == pytest.approx(19 * 1000 + rest * 2 / 3)


def test_org_wide_budgets_become_lines_on_their_own_forecast(usage):
    text = budgets(
        'name = "Monthly cap"\nmetric = "total_characters"\nperiod = "month"\nlimit = 50000'
        "\nwarning_at = 0.9",
        'metric = "total_characters"\nperiod = "year"\nlimit = 400000',
        'metric = "total_characters"\nperiod = "quarter"\nlimit = 150000',  # not charted
        'key = "Website"\nmetric = "total_characters"\nperiod = "month"\nlimit = 40000',
        'metric = "speech_to_text_minutes"\nperiod = "month"\nlimit = 60',
        head='contract_year_start = "02-01"\n',
    )
    review = build_review(usage, parse_budgets(text), TODAY, *MARCH)
    assert review.year_start == YearStart(2, 1)
    limits = {(p.metric, p.kind): p.limits for p in review.paths}
    assert limits == {
        ("total_characters", "month"): (Limit("Monthly cap", 50000.0, 0.9),),
        ("total_characters", "year"): (
            Limit("Organization · Total characters · contract year", 400000.0, 0.8),
        ),
        ("speech_to_text_minutes", "month"): (
            Limit("Organization · Speech-to-text minutes · month", 60.0, 0.8),
        ),
        ("speech_to_text_minutes", "year"): (),
    }
    year = review.paths[1].path
    assert [year["day"].iloc[i].date() for i in (0, -1)] == [date(2025, 2, 1), date(2026, 1, 31)]


def test_forecast_note_says_how_well_past_forecasts_did(usage):
    review = build_review(usage, None, TODAY, *MARCH)
    # February (33,600) was forecast exactly from January's 1,200 a day; March (46,500) from
    # 1,200 a day missed by 9,300: 9,300 of 80,100, 11.6 %. Two months are too few to choose
    # a model by, so the run rate serves.
    assert review.outlooks["total_characters"].accuracy.months == (
        date(2025, 2, 1),
        date(2025, 3, 1),
    )
    assert (
        "Total characters: Month-ahead error (WAPE) over the 2 months 2025-02 to 2025-03, each "
        "forecast on its first day: 11.6\u202f%; run rate serves every period;"
    ) in review.forecast_note("total_characters")
    young = FetchedRange(usage.frame, date(2025, 4, 1), usage.end)
    young_review = build_review(young, None, TODAY, date(2025, 4, 1), date(2025, 4, 19))
    note = young_review.forecast_note("total_characters")
    assert "no month has been forecast and closed yet" in note


@pytest.mark.parametrize("days", [1, 7, 30, 90])
def test_the_stated_accuracy_is_the_same_for_every_range(days):
    """Over two and a half years of a usage that grows by the month, each range's review
    reads what ``review_range`` asks for, as the page and the command fetch it: the accuracy
    is that of one backtest as of today (twelve months), whatever the range."""
    first = date(2022, 11, 1)
    span = (TODAY - first).days
    frame = usage_frame(
        {"aaaa****0001": pattern(span, first, lambda d, _: 1000.0 + 40 * d.month + d.day)},
        first=first,
    )

    def note(start: date, end: date) -> str:
        read_first, read_last = review_range(start, end, TODAY, YearStart())
        read = FetchedRange(within(frame, read_first, read_last), read_first, read_last)
        return build_review(read, None, TODAY, start, end).forecast_note("total_characters")

    yesterday = TODAY - timedelta(days=1)
    short = note(yesterday - timedelta(days=days - 1), yesterday)
    assert "over the 12 months 2024-04 to 2025-03, each forecast on its first day" in short
    assert short == note(date(2023, 1, 1), yesterday)  # over two years


# 1 cent a text character and a 31.00 monthly fee; the Website key is the Web team's.
REVIEW_PRICES = (
    'currency = "EUR"\n[[price]]\nfrom = "2025-01-01"\nmonthly_fee = 31\n'
    "unit_prices = { text_translation_characters = 10_000, document_translation_characters = 0, "
    "text_improvement_characters = 0, speech_to_text_minutes = 0 }\n"
)


def test_with_prices_the_review_holds_spend_per_team_and_cost_forecasts(usage):
    prices = PricesInForce(
        parse_pricing(REVIEW_PRICES), parse_teams('[[team]]\nname = "Web"\nlabels = ["Website"]')
    )
    review = build_review(usage, None, TODAY, *MARCH, prices)
    assert review.currency == "EUR"
    # March: 31,000 and 15,500 characters; the fee shared 2 : 1 by largest remainder.
    spend = review.spend.set_index("team")
    assert spend["text_translation_characters"].to_dict() == {
        "Web": 31_000,
        "Unassigned": 15_500,
        "Total": 46_500,
    }
    assert spend["base_fee_minor"].tolist() == [2067, 1033, 3100]
    assert spend.loc["Total", "amount_minor"] == 49_600
    # February, March's previous month: 28 days of 1,200 and February's fee.
    assert review.previous_spend.set_index("team").loc["Total", "amount_minor"] == 33_600 + 3_100
    month = review.cost_forecasts.set_index("period").loc["month"]
    assert (month["start"], month["end"]) == (date(2025, 4, 1), date(2025, 4, 30))
    assert month["actual"] == pytest.approx(19 * 15.00 + 31 * 19 / 30)
    # The run rate projects 44,984 characters for April (see the report's test), each day's
    # forecast rounded to whole characters before it is priced; and the month's fee.
    assert month["projected"] == pytest.approx(449.84 + 31, abs=0.02)
    assert set(review.cost_forecasts["period"]) == {"month", "quarter", "year"}
    cost = [(p.kind, p.title, p.label) for p in review.paths if p.metric == "cost"]
    assert cost == [
        ("month", "Cost (EUR) — month to date", "Cost (EUR)"),
        ("year", "Cost (EUR) — contract year to date", "Cost (EUR)"),
    ]


def test_days_before_the_first_price_cost_nothing_and_are_named(usage):
    prices = PricesInForce(parse_pricing(REVIEW_PRICES.replace("2025-01-01", "2025-03-01")))
    review = build_review(usage, None, TODAY, *MARCH, prices)
    assert review.previous_spend is None  # February has no price: no change against it
    assert review.spend.set_index("team").loc["Total", "amount_minor"] == 46_500 + 3_100
    # The contract year started in January: January and February are named, and the year's
    # cost so far is March's (465.00 + 31.00) and 1-19 April's (19 × 15.00 + 19/30 of 31.00).
    assert review.unpriced == "no price in force on 2025-01-01..2025-02-28"
    assert set(review.cost_forecasts["period"]) == {"month", "quarter", "year"}
    year = review.cost_forecasts.set_index("period").loc["year"]
    assert year["actual"] == pytest.approx(465 + 31 + 19 * 15 + 31 * 19 / 30)
    march = build_review(usage, None, date(2025, 4, 1), *MARCH, prices)
    assert march.unpriced == "no price in force on 2025-01-01..2025-02-28"  # the year again
