"""What-ifs: a growth percentage and planned workloads, read as a meeting says them, shift the
forecast and the recommendation at once."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

from analytics.capacity.decision import decide
from analytics.capacity.outlook import Outlook, outlook, term_scenarios
from analytics.capacity.whatif import WhatIf, WhatIfError, Workload, parse_growth, parse_workload
from analytics.cost.prices import CatalogueOption
from analytics.usage.metrics import MINUTES, TOTAL_CHARACTERS

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
    assert parse_workload(text) == expected


@pytest.mark.parametrize("text", ["2026-13:5 characters", "500 pages", "characters 500"])
def test_a_workload_that_cannot_be_read_is_refused_saying_how_to_write_it(text):
    with pytest.raises(WhatIfError, match=r"2026-06:2000000 characters|is not a month"):
        parse_workload(text)


def test_growth_is_a_percentage():
    assert parse_growth("10%") == pytest.approx(0.10)
    assert parse_growth("-5 %") == pytest.approx(-0.05)
    assert parse_growth("+12.5") == pytest.approx(0.125)
    for bad in ("ten", "-100%"):
        with pytest.raises(WhatIfError):
            parse_growth(bad)


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
