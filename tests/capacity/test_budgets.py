"""Budgets: parsing with clear errors, and evaluation at and around each threshold."""

from __future__ import annotations

import math
from datetime import date
from pathlib import Path

import pytest
from support.builders import (
    FIRST,
    assert_unreadable_files_refused,
    budgets,
    price_from,
    pricing,
    usage_frame,
)

from analytics.capacity.budgets.billing import Allowance, BillingPeriod, PlanSnapshot
from analytics.capacity.budgets.definitions import BudgetSettingsError, load_budgets, parse_budgets
from analytics.capacity.budgets.evaluation import (
    EVALUATION_COLUMNS,
    evaluate,
    evaluate_plan,
    evaluation_frame,
    in_file_order,
    status_for,
    worst,
)
from analytics.capacity.budgets.todays_status import budget_status
from analytics.cost.priced import PricesInForce
from analytics.cost.prices import parse_pricing
from analytics.usage.calendar import YearStart
from analytics.usage.pipeline import FetchedRange

ROOT = Path(__file__).resolve().parents[2]
AS_OF = date(2025, 3, 11)  # ten closed days of March


ORG_MONTH = 'metric = "total_characters"\nperiod = "month"\nlimit = {limit}'


def evaluate_one(kd, text: str, as_of: date = AS_OF):
    [result] = evaluate(parse_budgets(text), kd, as_of, FIRST)
    return result


@pytest.fixture(scope="module")
def flat():
    """100 characters a day for one key, from 1 January 2025."""
    return usage_frame({"aaaa****0001": [100.0] * 120}, labels={"aaaa****0001": "Website"})


def test_example_file_parses():
    parsed = load_budgets(ROOT / "budgets.example.toml")
    assert parsed.year_start == YearStart(4, 1)
    assert len(parsed.budgets) == 9
    assert {b.period for b in parsed.budgets[:6]} == {"month", "quarter", "year"}
    website = parsed.budgets[3]
    assert (website.key, website.limit, parsed.threshold(website)) == (
        "Production website",
        120_000,
        0.8,
    )
    assert parsed.threshold(parsed.budgets[4]) == 0.75
    assert parsed.cost_budgets == (parsed.budgets[5],)
    assert parsed.budgets[5].limit == 2_500
    organization, notebook = parsed.budgets[6:8]
    assert parsed.enforced == parsed.usage_period_budgets == (organization, notebook)
    assert (organization.key, organization.limit) == (None, 4_000_000)
    assert (notebook.key, notebook.limit) == ("Data team notebook", 200_000)
    assert parsed.plan_budgets == (parsed.budgets[8],)
    assert parsed.threshold(parsed.budgets[8]) == 0.9


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[budget]\nmetric = 1", "not valid TOML"),
        (
            budgets('metric = "characters"\nperiod = "month"\nlimit = 5'),
            "unknown metric 'characters'",
        ),
        (
            budgets('metric = "total_characters"\nperiod = "week"\nlimit = 5'),
            "unknown period 'week'",
        ),
        (budgets(ORG_MONTH.format(limit=-1)), "limit must be a finite number ≥ 0, not -1"),
        (budgets(ORG_MONTH.format(limit="nan")), "limit must be a finite number"),
        (budgets(ORG_MONTH.format(limit='"lots"')), "Expected `float`, got `str`"),
        (budgets(ORG_MONTH.format(limit=5) + "\nwarning_at = 0"), "warning_at must be in (0, 1]"),
        (budgets(ORG_MONTH.format(limit=5) + "\nwarning_at = 1.2"), "warning_at must be in (0, 1]"),
        (budgets(ORG_MONTH.format(limit=5), head="warning_at = 80\n"), "warning_at must be in"),
        (budgets(ORG_MONTH.format(limit=5) + '\nkey = " "'), "key must name a key label"),
        (budgets(ORG_MONTH.format(limit=5) + "\nlimt = 5"), "unknown field `limt`"),
        (budgets('metric = "total_characters"\nlimit = 5'), "missing required field `period`"),
        (budgets(ORG_MONTH.format(limit=5), head='contract_year_start = "02-29"\n'), "02-29"),
        ("warning_at = 0.9\n", "no [[budget]] entries"),
    ],
)
def test_bad_files_give_clear_errors(text, message):
    with pytest.raises(BudgetSettingsError) as raised:
        parse_budgets(text, "team.toml")
    assert str(raised.value).startswith("team.toml: ")
    assert message in str(raised.value)


def test_errors_name_the_entry_that_breaks_the_rule():
    text = budgets(ORG_MONTH.format(limit=5), ORG_MONTH.format(limit=-5))
    with pytest.raises(BudgetSettingsError, match=r"\[\[budget\]\] #2"):
        parse_budgets(text)


def test_missing_and_unreadable_files(tmp_path):
    assert_unreadable_files_refused(load_budgets, BudgetSettingsError, tmp_path)


@pytest.mark.parametrize(
    ("used", "projected", "expected"),
    [
        (79.99, 79.99, "ok"),  # just below the threshold, actual and projected
        (80, 80, "warning"),  # exactly 80 %
        (80.01, 80.01, "warning"),  # just above
        (50, 79.99, "ok"),
        (50, 80, "warning"),  # projected only
        (99.99, 150, "warning"),  # projected overrun, not yet exceeded
        (100, 100, "exceeded"),  # exactly 100 %: the budget is used up
        (130, 130, "exceeded"),
    ],
)
def test_status_at_and_around_each_threshold(used, projected, expected):
    assert status_for(used, projected, 100, 0.8) == expected


def test_status_of_a_zero_limit():
    assert status_for(0, 0, 0, 0.8) == "ok"
    assert status_for(0, 3, 0, 0.8) == "warning"
    assert status_for(1, 1, 0, 0.8) == "exceeded"


def test_evaluation_used_share_projection_and_overrun(flat):
    # 1,000 used over ten closed days, 3,100 projected for March.
    result = evaluate_one(flat, budgets(ORG_MONTH.format(limit=1250)))
    assert (result.start, result.end) == (date(2025, 3, 1), date(2025, 3, 31))
    assert result.used == 1000
    assert result.used_share == pytest.approx(0.8)
    assert result.projected == pytest.approx(3100)
    assert result.overrun == date(2025, 3, 13)  # 1,200 by the 12th, 1,300 by the 13th
    assert result.status == "warning"
    assert result.reach_text == "2025-03-13 (projected)"


def test_evaluation_exceeded_dates_the_actual_crossing(flat):
    result = evaluate_one(flat, budgets(ORG_MONTH.format(limit=1000)))
    assert result.used_share == pytest.approx(1.0)
    assert result.status == "exceeded"
    assert result.overrun == date(2025, 3, 10)
    assert result.reach_text == "2025-03-10 (reached)"


def test_evaluation_projected_only_warning_and_ok(flat):
    projected_80 = evaluate_one(flat, budgets(ORG_MONTH.format(limit=3875)))
    assert projected_80.used_share == pytest.approx(1000 / 3875)
    assert projected_80.projected_share == pytest.approx(0.8)
    assert (projected_80.status, projected_80.overrun) == ("warning", None)
    assert projected_80.reach_text == "not within the period"
    below = evaluate_one(flat, budgets(ORG_MONTH.format(limit=3900)))
    assert below.status == "ok"
    stricter = evaluate_one(flat, budgets(ORG_MONTH.format(limit=3900) + "\nwarning_at = 0.5"))
    assert stricter.status == "warning"


def test_key_budgets_by_label_masked_key_shared_label_and_unknown_key():
    kd = usage_frame(
        {"aaaa****0001": [100.0] * 90, "bbbb****0002": [10.0] * 90, "cccc****0003": [1.0] * 90},
        labels={"aaaa****0001": "Website", "bbbb****0002": "Bots", "cccc****0003": "Bots"},
    )
    entry = 'key = "{key}"\nmetric = "total_characters"\nperiod = "month"\nlimit = 100000'
    text = budgets(*(entry.format(key=k) for k in ("Website", "bbbb****0002", "Bots", "Webiste")))
    by_label, by_key, shared, unknown = evaluate(parse_budgets(text), kd, AS_OF, FIRST)
    assert (by_label.keys, by_label.used) == (("aaaa****0001",), 1000)
    assert (by_key.keys, by_key.used) == (("bbbb****0002",), 100)
    assert (shared.keys, shared.used) == (("bbbb****0002", "cccc****0003"), 110)
    assert (unknown.status, unknown.keys, unknown.used) == ("unknown key", (), 0)
    assert worst([by_label, unknown]) == "unknown key"


def test_minutes_budget_and_contract_year():
    kd = usage_frame(
        {"aaaa****0001": [100.0] * 120},
        minutes={"aaaa****0001": [2.5] * 120},
    )
    head = 'contract_year_start = "02-01"\n'
    text = budgets(
        'metric = "speech_to_text_minutes"\nperiod = "year"\nlimit = 1000',
        'metric = "speech_to_text_minutes"\nperiod = "quarter"\nlimit = 100',
        head=head,
    )
    year, quarter = evaluate(parse_budgets(text), kd, AS_OF, FIRST)
    assert (year.start, year.end) == (date(2025, 2, 1), date(2026, 1, 31))
    assert year.used == pytest.approx(2.5 * 38)  # 1 February to 10 March
    assert year.projected == pytest.approx(2.5 * 365)
    assert year.status == "warning"  # 912.5 projected of 1,000
    assert quarter.used == pytest.approx(2.5 * 69)
    assert quarter.status == "exceeded"
    assert quarter.overrun == date(2025, 2, 9)  # the 40th day reaches 100 minutes


def test_worst_and_evaluation_frame(flat):
    text = budgets(ORG_MONTH.format(limit=100000), ORG_MONTH.format(limit=1000))
    results = evaluate(parse_budgets(text), flat, AS_OF, FIRST)
    assert worst(results[:1]) == "ok"
    assert worst(results) == "exceeded"
    assert worst([]) == "ok"
    frame = evaluation_frame(results)
    assert list(frame.columns) == EVALUATION_COLUMNS
    assert list(frame["status"]) == ["ok", "exceeded"]
    assert list(frame["used %"]) == pytest.approx([1.0, 100.0])
    assert frame["period"].iloc[0] == "2025-03-01 – 2025-03-31"
    assert list(frame["unit"]) == ["characters", "characters"]


# -- plan budgets ----------------------------------------------------------------------------------

PLAN_BUDGET = 'metric = "plan"'
MARCH = BillingPeriod(date(2025, 3, 1), date(2025, 3, 31))


def plan_of(used: int, limit: int | None, projected: float | None, reached=None, period=MARCH):
    """A snapshot whose characters are written out here (the snapshot's own tests check how
    they are computed)."""
    return PlanSnapshot(AS_OF, period, (Allowance("characters", used, limit, projected, reached),))


def test_an_unnamed_budget_is_titled_in_the_pages_words_and_identified_in_the_files():
    """Tables and alerts read "Text translation characters"; the alert identity keeps the
    file's field name, so an alert sent before a change of wording is not sent again."""
    text = 'key = "Website"\nmetric = "text_translation_characters"\nperiod = "quarter"\nlimit = 5'
    [budget] = parse_budgets(f"[[budget]]\n{text}").budgets
    assert budget.title == "Website · Text translation characters · quarter"
    assert budget.identity == "Website · text_translation_characters · quarter"
    [cost] = parse_budgets('[[budget]]\nmetric = "cost"\nperiod = "year"\nlimit = 5').budgets
    assert cost.title == "Organization · Cost · contract year"


def test_a_plan_budget_names_no_period_limit_or_key():
    [budget] = parse_budgets(budgets(PLAN_BUDGET + "\nwarning_at = 0.9")).budgets
    assert (budget.is_plan, budget.scope) == (True, "Organization")
    assert budget.title == "Organization · plan characters · billing period"
    for extra, named in [
        ('period = "month"', "remove period"),
        ("limit = 5", "remove limit"),
        ('key = "Website"', "remove key"),
        ('period = "month"\nlimit = 5', "remove period and limit"),
    ]:
        with pytest.raises(BudgetSettingsError, match=named):
            parse_budgets(budgets(f"{PLAN_BUDGET}\n{extra}"))
    with pytest.raises(BudgetSettingsError, match="speech_to_speech_minutes, cost or plan"):
        parse_budgets(budgets('metric = "plans"'))
    with pytest.raises(BudgetSettingsError, match="missing required field `limit`"):
        parse_budgets(budgets('metric = "total_characters"\nperiod = "month"'))


@pytest.mark.parametrize(
    ("used", "projected", "threshold", "status"),
    [
        (500, 790.0, 0.8, "ok"),
        (500, 800.0, 0.8, "warning"),  # projected reaches 80 % of the limit
        (850, 900.0, 0.8, "warning"),  # used reaches it
        (500, 850.0, 0.9, "ok"),  # the budget's own threshold
        (1000, 1400.0, 0.8, "exceeded"),  # used up: used ≥ limit
    ],
)
def test_plan_budget_status_on_the_plans_limit(used, projected, threshold, status):
    parsed = parse_budgets(budgets(f"{PLAN_BUDGET}\nwarning_at = {threshold}"))
    [result] = evaluate_plan(parsed, plan_of(used, 1000, projected, date(2025, 3, 20)))
    assert (result.status, result.used, result.projected, result.limit) == (
        status,
        used,
        projected,
        1000,
    )
    assert (result.start, result.end, result.overrun, result.note) == (
        *(MARCH.start, MARCH.end),
        date(2025, 3, 20),
        "",
    )


def test_plan_budget_without_a_limit_or_a_period():
    parsed = parse_budgets(budgets(PLAN_BUDGET))
    [unlimited] = evaluate_plan(parsed, plan_of(10**9, None, 2e9))
    assert (unlimited.status, unlimited.note) == ("ok", "the plan has no character limit")
    assert math.isnan(unlimited.used_share)
    [free] = evaluate_plan(parsed, plan_of(450, 500, None, period=None))
    assert (free.status, free.projected) == ("warning", 450)  # used alone: 90 %
    assert free.note == "no projection: the service reports no billing period"
    row = evaluation_frame([free]).iloc[0]
    assert (row["period"], row["metric"], row["limit"]) == (
        "billing period (not reported)",
        "plan",
        500,
    )


def test_usage_and_plan_budgets_together_in_the_files_order(flat):
    parsed = parse_budgets(
        budgets(ORG_MONTH.format(limit=1000), PLAN_BUDGET, ORG_MONTH.format(limit=5000))
    )
    usage = evaluate(parsed, flat, AS_OF, FIRST)
    assert [e.budget.fixed_limit for e in usage] == [1000, 5000]  # plan budgets are not read here
    together = in_file_order(parsed, usage, evaluate_plan(parsed, plan_of(1, 10, 2.0)))
    assert [e.budget.metric for e in together] == ["total_characters", "plan", "total_characters"]
    assert worst(together) == "exceeded"


class PlanUnreadable:
    """A reader of the flat usage whose plan cannot be read, as from a failing service."""

    def __init__(self, frame):
        self.frame = frame

    def usage(self, first, last):
        return FetchedRange(self.frame, FIRST, last)

    def plan(self):
        raise RuntimeError("the plan cannot be read")


def test_without_the_plan_a_front_end_has_the_other_budgets_and_asks_no_plan(flat):
    parsed = parse_budgets(budgets(ORG_MONTH.format(limit=1000), PLAN_BUDGET))
    reader = PlanUnreadable(flat)
    [usage], read = budget_status(reader, parsed, AS_OF, None, plan_budgets=False)
    assert (usage.budget.metric, usage.used, usage.status) == ("total_characters", 1000, "exceeded")
    assert read.end == date(2025, 3, 10)
    with pytest.raises(RuntimeError, match="the plan cannot be read"):
        budget_status(reader, parsed, AS_OF, None)  # the plan budget asks for the plan


# -- cost budgets ------------------------------------------------------------------------------

# 20.00 EUR per million text characters; with 1,500,000 of them included per month.
COST_PRICES = (
    "unit_prices = { text_translation_characters = 20.00, document_translation_characters = 0, "
    "text_improvement_characters = 0, speech_to_text_minutes = 0 }"
)
FEB_15 = date(2025, 2, 15)  # fourteen closed days of February


def priced(included: str = "") -> PricesInForce:
    return PricesInForce(
        parse_pricing(pricing(price_from("2025-01-01", included, prices=COST_PRICES)))
    )


def cost_budget(limit: int, key: str = "") -> str:
    head = f'key = "{key}"\n' if key else ""
    return budgets(head + f'metric = "cost"\nperiod = "month"\nlimit = {limit}')


def test_an_org_cost_budget_prices_the_run_rate_forecast():
    # 100,000 characters every day: 2.00 EUR a day; February is 56.00, 28.00 of it by the 15th.
    frame = usage_frame({"aaaa****0001": [100_000] * 45})
    [result] = evaluate(parse_budgets(cost_budget(40)), frame, FEB_15, FIRST, priced())
    assert result.used == pytest.approx(28.00) and result.projected == pytest.approx(56.00)
    assert result.overrun == date(2025, 2, 20)  # 20 days × 2.00 reach 40.00
    assert result.status == "warning"
    assert result.reach_text == "2025-02-20 (projected)"
    [row] = evaluation_frame([result], "EUR").to_dict("records")
    assert (row["unit"], row["reached"], row["limit"]) == ("EUR", "2025-02-20 (projected)", 40)


def test_a_key_cost_budget_shares_the_included_volume_with_the_rest_of_the_organization():
    # Projected February: 4,200,000 characters, 1,500,000 included, so 2.7/4.2 of each day is
    # charged: key A's 2.00 a day costs 1.2857…, 18.00 by the 15th and 36.00 in February.
    frame = usage_frame({"aaaa****0001": [100_000] * 45, "bbbb****0002": [50_000] * 45})
    included = "included_per_month = { text_translation_characters = 1_500_000 }"
    text = cost_budget(30, key="aaaa****0001")
    [result] = evaluate(parse_budgets(text), frame, FEB_15, FIRST, priced(included))
    # Each day's item is within a cent of its exact share.
    assert result.used == pytest.approx(18.00, abs=0.14)
    assert result.projected == pytest.approx(36.00, abs=0.28)
    assert result.overrun == date(2025, 2, 24)  # 23 days cost 29.57, 24 days 30.86
    assert result.status == "warning" and result.keys == ("aaaa****0001",)


def test_without_prices_a_cost_budget_is_not_evaluated():
    frame = usage_frame({"aaaa****0001": [100_000] * 45})
    [result] = evaluate(parse_budgets(cost_budget(40)), frame, FEB_15, FIRST)
    assert result.status == "ok" and result.note == "no pricing file: cost not evaluated"
    assert result.reach_text == "-"
