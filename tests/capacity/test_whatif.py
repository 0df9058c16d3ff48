"""What-ifs: a growth percentage and planned workloads, read as a meeting says them, shift the
forecast and the recommendation at once."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.capacity.decision.buying import decide, plain_verdict
from analytics.capacity.decision.usage_scenarios import term_scenarios
from analytics.capacity.forecasting import whatif
from analytics.capacity.forecasting.outlook import Outlook, outlook
from analytics.capacity.forecasting.whatif import WhatIf, WhatIfError, Workload
from analytics.cost.prices import CatalogueOption
from analytics.usage.metrics import MINUTES, TOTAL_CHARACTERS, format_change

FIRST = date(2024, 1, 1)
AS_OF = date(2026, 5, 20)  # history through 19 May 2026: 870 days


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-06:2000000 characters", Workload(TOTAL_CHARACTERS, 2_000_000, date(2026, 6, 1))),
        (
            "speech pilot 500 minutes a month",
            Workload(MINUTES, 500, None, "speech pilot"),
        ),
        (
            "2026-09: new team 1,500,000 characters",
            Workload(TOTAL_CHARACTERS, 1_500_000, date(2026, 9, 1), "new team"),
        ),
    ],
)
def test_workloads_are_read_as_a_meeting_says_them(text, expected):
    assert whatif.parse_workload(text) == expected


@pytest.mark.parametrize("text", ["2026-13:5 characters", "500 pages", "characters 500"])
def test_a_workload_that_cannot_be_read_is_refused_saying_how_to_write_it(text):
    with pytest.raises(WhatIfError, match=r"2026-06:2000000 characters|is not a month"):
        whatif.parse_workload(text)


def test_growth_is_a_percentage():
    assert whatif.parse_growth("10%") == pytest.approx(0.10)
    assert whatif.parse_growth("-5 %") == pytest.approx(-0.05)
    assert whatif.parse_growth("+12.5") == pytest.approx(0.125)
    for bad in ("ten", "-100%"):
        with pytest.raises(WhatIfError):
            whatif.parse_growth(bad)


def test_a_workload_adds_its_month_share_to_each_day_from_its_month():
    pilot = WhatIf(workloads=(Workload(MINUTES, 600, date(2026, 6, 1)),))
    added = pilot.added(MINUTES, date(2026, 5, 30), 4)  # 30, 31 May, 1, 2 June
    assert added.tolist() == [0, 0, 20, 20]  # June: 600 over 30 days
    assert pilot.added(TOTAL_CHARACTERS, date(2026, 5, 30), 4).tolist() == [0] * 4
    grown = WhatIf(growth=0.1).apply(MINUTES, date(2026, 5, 30), np.array([10.0, 20.0]))
    assert grown.tolist() == pytest.approx([11.0, 22.0])


@pytest.fixture(scope="module")
def flat() -> dict[str, Outlook]:
    """1,000 characters and 10 minutes every day: every forecast is exact, every ratio 1."""
    days = pd.date_range(FIRST, AS_OF - pd.Timedelta(days=1), freq="D")
    return {
        metric: outlook(pd.Series(value, index=days), metric, FIRST, AS_OF)
        for metric, value in ((TOTAL_CHARACTERS, 1000.0), (MINUTES, 10.0))
    }


def test_what_ifs_shift_the_forecast_of_each_period(flat):
    what_if = WhatIf(
        0.10,
        (
            Workload(TOTAL_CHARACTERS, 3_100, date(2026, 5, 1)),  # 100 a day in May
            Workload(MINUTES, 300, date(2026, 6, 1)),  # 10 a day in June
        ),
    )
    may = flat[TOTAL_CHARACTERS].period("month", what_if)
    # 19 days used at 1,000; 12 days ahead at 1,100, plus 100 a day of the workload.
    assert may["used"] == 19_000
    assert may["projected"] == pytest.approx(19_000 + 12 * 1_100 + 12 * 100)
    assert may["low_80"] == pytest.approx(may["projected"])  # the flat past was exact
    quarter = flat[MINUTES].period("quarter", what_if)  # April – June
    assert quarter["projected"] == pytest.approx(49 * 10 + 42 * 11 + 30 * 10)


def test_what_ifs_shift_the_term_and_the_recommendation(flat):
    plain = term_scenarios(flat, 12, WhatIf())
    june = plain.months.index(date(2026, 6, 1))
    assert plain.months[0] == date(2026, 6, 1) and len(plain.months) == 12
    assert plain.characters[0, june] == pytest.approx(30_000)
    pilot = WhatIf(0.10, (Workload(TOTAL_CHARACTERS, 2_000_000, date(2026, 9, 1)),))
    shifted = term_scenarios(flat, 12, pilot)
    september = shifted.months.index(date(2026, 9, 1))
    assert shifted.characters[0, june] == pytest.approx(33_000)
    assert shifted.characters[0, september] == pytest.approx(33_000 + 2_000_000)

    small = CatalogueOption(
        name="small",
        base_fee=Decimal(10),
        included_characters=1_000_000,
        price_per_million_characters=Decimal(40),
    )
    large = CatalogueOption(
        name="large",
        base_fee=Decimal(50),
        included_characters=3_000_000,
        price_per_million_characters=Decimal(40),
    )
    before = decide(flat, [small, large]).recommendation.chosen
    after = decide(flat, [small, large], what_if=pilot).recommendation.chosen
    assert before is not None and before.name == "small"
    assert after is not None and after.name == "large"


@settings(max_examples=200)
@given(st.floats(min_value=-0.99, max_value=50, allow_nan=False))
def test_a_growth_outside_minus_90_to_plus_1000_percent_is_named(growth):
    said = whatif.warnings(WhatIf(growth), {})
    implausible = growth < -0.9 or growth > 10
    assert bool(said) == implausible
    if implausible:
        [sentence] = said
        assert sentence.startswith(f"growth {format_change(growth)} is outside the plausible")
        assert "(-90.0\u202f% to +1,000.0\u202f%)" in sentence and "taken as asked" in sentence


@pytest.mark.parametrize(("growth", "named"), [(-0.9, False), (10.0, False), (-0.91, True)])
def test_the_plausible_range_holds_its_ends(growth, named):
    assert bool(whatif.warnings(WhatIf(growth), {})) == named


@settings(max_examples=200)
@given(
    st.floats(min_value=0, max_value=1e7, allow_nan=False),
    st.floats(min_value=0, max_value=1e9, allow_nan=False),
)
def test_a_workload_over_ten_times_todays_usage_is_named(today, per_month):
    workload = Workload(TOTAL_CHARACTERS, per_month, None, "pilot")
    said = whatif.warnings(WhatIf(0.0, (workload,)), {TOTAL_CHARACTERS: today})
    assert bool(said) == (per_month > 10 * today)
    if said:
        assert said[0].startswith(f"the workload '{workload}' is more than 10 times today's")


def test_todays_usage_is_the_last_30_closed_days_of_the_history(flat):
    # 1,000 characters a day: 30,000 in the last 30 days; 300,000 a month is ten times that.
    at_ten = WhatIf(0.0, (Workload(TOTAL_CHARACTERS, 300_000),))
    over_ten = WhatIf(0.0, (Workload(TOTAL_CHARACTERS, 300_001), Workload(MINUTES, 3_001)))
    assert decide(flat, [], what_if=at_ten).warnings == ()
    said = decide(flat, [], what_if=over_ten).warnings
    assert [s.split(" is more")[0] for s in said] == [
        "the workload '300,001 characters a month'",
        "the workload '3,001 minutes a month'",
    ]
    assert "(30,000 characters in the last 30 days)" in said[0]
    assert "(300.00 minutes in the last 30 days)" in said[1]


def test_a_decision_with_what_ifs_carries_the_plain_one_beside_it(flat):
    # 31,000 characters a month cost 297.60 a year as they go, 120 with the small plan; at
    # 310 a month, 2.98 as they go.
    small = CatalogueOption(
        name="small",
        base_fee=Decimal(10),
        included_characters=40_000,
        price_per_million_characters=Decimal(40),
    )
    payg = CatalogueOption(name="pay as you go", price_per_million_characters=Decimal(800))
    plain = decide(flat, [small, payg])
    assert plain.plain is None and plain.warnings == ()
    # −99 % is taken as asked: the recommendation turns over, and the plain one stays beside.
    shrunk = decide(flat, [small, payg], what_if=WhatIf(-0.99))
    assert shrunk.warnings and shrunk.warnings[0].startswith("growth -99.0\u202f% is outside")
    assert shrunk.plain is not None
    assert shrunk.plain.recommendation.chosen == plain.recommendation.chosen
    assert plain.recommendation.chosen is not None and plain.recommendation.chosen.name == "small"
    assert shrunk.recommendation.chosen is not None
    assert shrunk.recommendation.chosen.name == "pay as you go"
    beside = shrunk.forecasts_beside_plain
    assert beside["plain_projected"].tolist() == pytest.approx(plain.forecasts["projected"])
    # The next 12 months: 365 days at 10 characters against 1,000 without the what-if.
    year = beside[(beside["metric"] == TOTAL_CHARACTERS) & (beside["period"] == "next 12 months")]
    assert year["projected"].iloc[0] == pytest.approx(3_650)
    assert year["plain_projected"].iloc[0] == pytest.approx(365_000)
    said = plain_verdict(shrunk, lambda v: f"{v:.2f} EUR")
    assert said == (
        "Without the what-ifs (growth -99.0\u202f%) the recommendation is small: expected cost "
        f"{plain.recommendation.chosen.expected_cost:.2f} EUR, chance of overage 0.0\u202f%."
    )
