"""The recommendation on hand-worked catalogues: usage exactly at an option's included volume,
a commitment whose discount just pays off, a risk setting that changes the choice."""

from __future__ import annotations

import math
from datetime import date
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.capacity.budgets.billing import PlanLimits
from analytics.capacity.decision.recommend import (
    PlanTerms,
    Scenarios,
    TodaysPlan,
    cost_option,
    recommend,
)
from analytics.cost.prices import CatalogueOption

MONTHS = tuple(date(2027, m, 1) for m in range(1, 13))


def option(name: str, **fields: object) -> CatalogueOption:
    given = {"price_per_million_characters": Decimal(40), **fields}
    return CatalogueOption(name=name, **given)  # type: ignore[arg-type]


def scenarios(*characters_a_month: float, minutes: float = 0.0) -> Scenarios:
    """One equally likely scenario per monthly volume, the same every month."""
    rows = np.array([[c] * len(MONTHS) for c in characters_a_month], dtype=float)
    return Scenarios(MONTHS, rows, np.full_like(rows, minutes))


def test_usage_exactly_at_the_included_volume_costs_the_fee_and_never_runs_over():
    plan = option(
        "plan",
        base_fee=Decimal(300),
        included_characters=2_000_000,
        included_minutes=Decimal(100),
        price_per_minute=Decimal("0.05"),
    )
    at = cost_option(plan, scenarios(2_000_000, minutes=100))
    assert at.expected_cost == 12 * 300
    assert at.overage_chance == 0
    assert at.unused_characters == 0 and at.unused_minutes == 0
    # One character and one minute more a month: 12 characters at 40 a million, 12 minutes.
    over = cost_option(plan, scenarios(2_000_001, minutes=101))
    assert over.expected_cost == pytest.approx(3600 + 12 * 40 / 1e6 + 12 * 0.05)
    assert over.overage_chance == 1


@pytest.mark.parametrize(("discount", "chosen"), [("0.10", "yearly"), ("0.09", "monthly")])
def test_a_commitment_is_recommended_once_its_discount_pays_off(discount, chosen):
    # 1,000,000 characters a month either way; the commitment's fee is 110 instead of 100 a
    # month, so over a year 1,320 × (1 − discount) against 1,200: it pays off from 1/11 ≈ 9.1 %.
    monthly = option("monthly", base_fee=Decimal(100), included_characters=1_000_000)
    yearly = option(
        "yearly",
        base_fee=Decimal(110),
        included_characters=12_000_000,
        included_per="term",
        term_months=12,
        discount=Decimal(discount),
    )
    found = recommend([monthly, yearly], scenarios(1_000_000))
    costs = {c.name: c.expected_cost for c in found.options}
    assert costs["monthly"] == pytest.approx(1200)
    assert costs["yearly"] == pytest.approx(1320 * (1 - float(discount)))
    assert found.chosen is not None and found.chosen.name == chosen


def test_a_term_allowance_absorbs_a_busy_month_that_a_monthly_allowance_charges():
    busy = Scenarios(MONTHS, np.array([[500_000.0, 1_500_000.0] * 6]), np.zeros((1, len(MONTHS))))
    monthly = cost_option(option("m", included_characters=1_000_000), busy)
    term = cost_option(
        option("t", included_characters=12_000_000, included_per="term", term_months=12), busy
    )
    # Monthly: six months 500,000 over (3,000,000 at 40 a million), six 500,000 unused.
    assert monthly.expected_cost == pytest.approx(120)
    assert monthly.unused_characters == 3_000_000
    assert term.expected_cost == 0 and term.unused_characters == 0
    assert term.committed_characters == 1_000_000  # 12,000,000 over 12 months


@pytest.mark.parametrize(("risk", "chosen"), [(0.10, "roomy"), (0.50, "tight")])
def test_the_risk_setting_changes_the_choice(risk, chosen):
    # Two equally likely years: 1,000,000 or 1,300,000 characters a month.
    tight = option("tight", base_fee=Decimal(100), included_characters=1_200_000)
    roomy = option("roomy", base_fee=Decimal(110), included_characters=1_500_000)
    found = recommend([tight, roomy], scenarios(1_000_000, 1_300_000), risk=risk)
    costs = {c.name: (c.expected_cost, c.overage_chance) for c in found.options}
    # Tight: 1,200 a year, plus 100,000 over a month (48 a year) in the busy year.
    assert costs["tight"] == pytest.approx((1200 + 48 / 2, 0.5))
    assert costs["roomy"] == pytest.approx((1320, 0.0))
    assert found.chosen is not None and found.chosen.name == chosen
    assert found.within_risk


def test_without_an_option_within_the_risk_the_least_likely_to_run_over_is_named():
    small = option("small", included_characters=100)
    smaller = option("smaller", included_characters=10)
    found = recommend([smaller, small], scenarios(50, 200))
    assert not found.within_risk
    assert found.chosen is not None and found.chosen.name == "small"  # over in half the years


def test_an_option_whose_term_does_not_fit_is_left_out_and_the_curve_marks_the_choice():
    three_years = option("three years", term_months=36, included_characters=5)
    # `current` in a catalogue marks nothing: the catalogue holds alternatives only.
    marked = option("marked", included_characters=2_000_000, current=True, base_fee=Decimal(50))
    payg = option("pay as you go")
    found = recommend([three_years, marked, payg], scenarios(1_000_000))
    assert found.left_out == ("three years: its 36-month term does not fit a 12-month term",)
    curve = found.curve()
    assert curve["option"].tolist() == ["pay as you go", "marked"]  # by committed volume
    assert curve["expected_cost"].tolist() == pytest.approx([12 * 40, 12 * 50])
    assert curve["recommended"].tolist() == [True, False]
    assert curve["current"].tolist() == [False, False]
    assert found.current is None


def todays(limits: PlanLimits) -> TodaysPlan:
    """Today's plan at hand-written prices: 300 a month with 1,000,000 characters and 50
    minutes included, 20 a million characters and 0.05 a minute beyond."""
    terms = PlanTerms(
        base_fee=Decimal(300),
        included_characters=1_000_000,
        included_minutes=Decimal(50),
        price_per_million_characters=Decimal(20),
        price_per_minute=Decimal("0.05"),
        prices_from=date(2026, 1, 1),
    )
    return TodaysPlan(limits, terms, "EUR")


def test_todays_plan_is_priced_at_its_terms_and_runs_over_at_its_limits():
    # Two equally likely years of 1,500,000 or 2,500,000 characters and 80 minutes a month,
    # against limits of 2,000,000 characters and 100 minutes.
    plan = todays(PlanLimits(2_000_000, 100, 20))
    found = recommend([], scenarios(1_500_000, 2_500_000, minutes=80), plan=plan)
    [costed] = found.options
    minutes = 12 * 30 * 0.05  # 30 minutes a month beyond the 50 included
    quiet = 12 * 300 + 12 * 500_000 * 20 / 1e6 + minutes  # 3,738
    busy = 12 * 300 + 12 * 1_500_000 * 20 / 1e6 + minutes  # 3,978
    assert costed.name == "Today's plan" and costed.current
    assert costed.expected_cost == pytest.approx((quiet + busy) / 2)
    # Its volume is its limits, the Plan card's figures: the busy year reaches the limit.
    assert (costed.committed_characters, costed.committed_minutes) == (2_000_000, 100)
    assert costed.overage_chance == 0.5
    assert costed.unused_characters == pytest.approx((12 * 500_000 + 0) / 2)
    assert costed.unused_minutes == pytest.approx(12 * 20)
    assert found.current is costed
    assert found.curve()["current"].tolist() == [True]


def test_todays_plan_without_a_limit_never_reaches_one():
    plan = todays(PlanLimits(None, None, None))
    [costed] = recommend([], scenarios(9_000_000, minutes=5_000), plan=plan).options
    assert costed.overage_chance == 0
    assert math.isnan(costed.committed_characters) and math.isnan(costed.unused_characters)
    assert costed.expected_cost == pytest.approx(
        12 * 300 + 12 * 8_000_000 * 20 / 1e6 + 12 * 4_950 * 0.05
    )


def test_a_limit_of_zero_is_reached_by_any_use():
    plan = todays(PlanLimits(2_000_000, 0, None))
    assert recommend([], scenarios(1_000, minutes=0.01), plan=plan).options[0].overage_chance == 1
    assert recommend([], scenarios(1_000, minutes=0), plan=plan).options[0].overage_chance == 0


def test_todays_plan_is_weighed_first_and_kept_on_a_tie():
    plan = todays(PlanLimits(2_000_000, 100, 20))
    same = option(
        "same terms",
        base_fee=Decimal(300),
        included_characters=1_000_000,
        included_minutes=Decimal(50),
        price_per_million_characters=Decimal(20),
        price_per_minute=Decimal("0.05"),
    )
    found = recommend([same], scenarios(1_000_000), plan=plan, left_out=("nothing",))
    assert [c.name for c in found.options] == ["Today's plan", "same terms"]
    assert found.chosen is found.current
    assert found.left_out == ("nothing",)


amounts = st.integers(0, 500)
options = st.builds(
    lambda fee, included, price, discount, term: option(
        f"{fee}-{included}-{price}-{discount}-{term}",
        base_fee=Decimal(fee),
        included_characters=included * 10_000,
        price_per_million_characters=Decimal(price),
        discount=Decimal(discount) / 100,
        term_months=term,
        included_per="term" if term > 1 else "month",
    ),
    amounts,
    amounts,
    amounts,
    st.integers(0, 50),
    st.sampled_from([1, 3, 12]),
)


@settings(max_examples=60)
@given(
    st.lists(options, min_size=1, max_size=6, unique_by=lambda o: o.name),
    st.lists(st.integers(0, 8_000_000), min_size=1, max_size=5),
    st.sampled_from([0.0, 0.1, 0.5, 1.0]),
)
def test_the_recommendation_is_never_costlier_than_an_admissible_option(catalogue, usage, risk):
    found = recommend(catalogue, scenarios(*usage), risk=risk)
    admissible = [c for c in found.options if c.overage_chance <= risk]
    if admissible:
        assert found.chosen is not None and found.chosen.overage_chance <= risk
        assert all(found.chosen.expected_cost <= c.expected_cost for c in admissible)
