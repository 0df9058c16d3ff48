"""The capacity decision in one answer, for the command line, the Capacity page and the
meeting report alike: the forecasts with their accuracy record, and the option to buy for the
next term with the curve it was chosen from and the what-ifs it assumed.

Today's plan is asked of the service, never of the catalogue: ``todays_plan`` takes the plan's
limits as the service reports them (``budgets.plan_limits``, the Plan card's figures) and prices
them at the ``[[price]]`` period in force on the term's first day (``plan_terms``). A what-if
outside the plausible range is named (``whatif.warnings``), and whenever there are what-ifs
the decision carries its ``plain`` twin without them, shown beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Final

import pandas as pd

from analytics.capacity.budgets import PlanLimits, PlanReader, PriceList, Prices, plan_limits
from analytics.capacity.decision.recommend import (
    DEFAULT_RISK,
    Option,
    PlanTerms,
    Recommendation,
    Scenarios,
    TodaysPlan,
    recommend,
)
from analytics.capacity.decision.usage_scenarios import term_scenarios, term_start
from analytics.capacity.forecasting import (
    TODAY_DAYS,
    Outlook,
    WhatIf,
    backtest_table,
    forecast_rows,
    outlooks,
    period_text,
    warnings,
)
from analytics.service import ServiceError
from analytics.usage import (
    MINUTES,
    SERVICE_CHARACTERS,
    UsageReader,
    YearStart,
    all_history_range,
    format_value,
    rounded,
    share_text,
)

DEFAULT_TERM = 12
# The days whose mix of character services prices today's plan's characters.
MIX_DAYS: Final = 365
MICRO: Final = Decimal(1_000_000)  # micro-minutes in a minute


def read_outlooks(reader: UsageReader, today: date, demo_days: int | None) -> dict[str, Outlook]:
    """The decision metrics' outlooks from the organization's whole history up to yesterday
    (``calendar.all_history_range``: the demo organization's span of ``demo_days``, or the last
    five years): the backtest reaches 24 months back and the yearly season wants two years
    before its origins."""
    return read_history(reader, today, demo_days)[0]


def read_history(
    reader: UsageReader, today: date, demo_days: int | None
) -> tuple[dict[str, Outlook], dict[str, float]]:
    """``read_outlooks``' outlooks, and the character services' shares of the characters of
    the last ``MIX_DAYS`` of the same days (``service_mix``), which weigh their prices into
    today's plan's price of a million characters: one read of the history for both, so
    pricing today's plan reads nothing more."""
    first, last = all_history_range(today, demo_days)
    read = reader.usage(first, last)
    recent = read.frame["usage_date"] >= pd.Timestamp(last - timedelta(days=MIX_DAYS - 1))
    return outlooks(read.frame, read.start, today), service_mix(read.frame.loc[recent])


def service_mix(key_day: pd.DataFrame) -> dict[str, float]:
    """Each character service's share of the frame's characters; equal shares without any."""
    used = {metric: float(key_day[metric].sum()) for metric in SERVICE_CHARACTERS}
    total = sum(used.values())
    if total <= 0:
        return {metric: 1 / len(used) for metric in used}
    return {metric: value / total for metric, value in used.items()}


def plan_terms(price: PriceList, mix: Mapping[str, float]) -> PlanTerms:
    """What a price period charges for today's plan a month: its fee, the characters (of all
    services) and speech-to-text minutes it includes, and beyond them its speech-to-text price
    and a million characters at the services' prices weighted by ``mix``."""
    weighted = sum(
        (Decimal(str(mix.get(m, 0.0))) * price.unit_prices.of(m) for m in SERVICE_CHARACTERS),
        Decimal(0),
    )
    return PlanTerms(
        base_fee=price.monthly_fee,
        included_characters=sum(price.included_per_month.units(m) for m in SERVICE_CHARACTERS),
        included_minutes=Decimal(price.included_per_month.units(MINUTES)) / MICRO,
        price_per_million_characters=weighted,
        price_per_minute=price.unit_prices.of(MINUTES),
        prices_from=price.start,
        prices_name=price.name,
    )


def todays_plan(
    limits: PlanLimits | None, prices: Prices | None, day: date, mix: Mapping[str, float]
) -> TodaysPlan | str:
    """Today's plan for a term starting on ``day``: the service's ``limits`` priced at the
    price period in force that day; or, when it cannot be weighed, the sentence that says why
    (None ``limits``: the service's plan could not be read)."""
    if limits is None:
        return "today's plan: the service's plan could not be read"
    in_force = None if prices is None else prices.price_list(day)
    if prices is None or in_force is None:
        return f"today's plan: no price in force on {day}"
    return TodaysPlan(limits, plan_terms(in_force, mix), prices.currency)


def service_limits(reader: PlanReader) -> PlanLimits | None:
    """The plan's limits as the service reports them now (``budgets.plan_limits``, as the Plan
    card reads them); None when the service does not answer: the catalogue is still weighed,
    and today's plan named as not read."""
    try:
        return plan_limits(reader.plan())
    except ServiceError:
        return None


def plan_for_term(
    found: Mapping[str, Outlook],
    limits: PlanLimits | None,
    prices: Prices | None,
    mix: Mapping[str, float],
) -> TodaysPlan | str:
    """Today's plan as every front end weighs it (``todays_plan``): ``limits`` (the Plan
    card's, or ``service_limits``) priced for the term after ``found``'s day, characters at
    the services' ``mix`` (``read_history``)."""
    return todays_plan(limits, prices, term_start(next(iter(found.values())).as_of), mix)


@dataclass(frozen=True)
class Decision:
    """What a capacity meeting decides from: under ``what_if``, with the sentences that name
    its implausible what-ifs (``warnings``) and, when it has any what-if, the same decision
    without them (``plain``), which every front end shows beside it."""

    outlooks: dict[str, Outlook]
    forecasts: pd.DataFrame  # outlook.forecast_rows
    scenarios: Scenarios
    recommendation: Recommendation
    what_if: WhatIf
    term: int
    plan: TodaysPlan | None = None  # today's plan, when it was weighed
    warnings: tuple[str, ...] = ()
    plain: Decision | None = None

    @property
    def forecasts_beside_plain(self) -> pd.DataFrame:
        """The forecasts with ``plain_projected``, the projection without the what-ifs (the
        same as ``projected`` without any)."""
        plain = self.forecasts if self.plain is None else self.plain.forecasts
        return self.forecasts.assign(plain_projected=plain["projected"].to_numpy())

    @property
    def forecast_table(self) -> pd.DataFrame:
        """The forecasts as the Capacity page and the meeting report both show them, shaped
        here once: each metric's periods in words, used and projected (and, with what-ifs,
        the projection without them) rounded as the metric is written, each interval
        "low – high" in the metric's unit, and the model serving the period, named as
        ``capacity recommend`` names it."""
        rows = self.forecasts_beside_plain
        metrics = rows["metric"]

        def figures(column: str) -> list[float]:
            return [rounded(v, m) for v, m in zip(rows[column], metrics, strict=True)]

        def ranges(level: str) -> list[str]:
            bounds = zip(metrics, rows[f"low_{level}"], rows[f"high_{level}"], strict=True)
            return [f"{format_value(lo, m)} – {format_value(hi, m)}" for m, lo, hi in bounds]

        shown = ("used", "projected", *(("plain_projected",) if self.plain is not None else ()))
        return pd.DataFrame(
            {
                "metric": metrics,
                "period": [
                    period_text(p, e) for p, e in zip(rows["period"], rows["end"], strict=True)
                ],
                **{column: figures(column) for column in shown},
                "range_80": ranges("80"),
                "range_95": ranges("95"),
                "model": rows["model"],
            }
        ).reset_index(drop=True)

    @property
    def accuracy(self) -> pd.DataFrame:
        """The backtest's scores per metric, candidate and horizon (``backtest_table``)."""
        return backtest_table(self.outlooks)


def monthly_usage(found: Mapping[str, Outlook]) -> dict[str, float]:
    """Each decision metric's usage of the last ``TODAY_DAYS`` closed days: today's usage, the
    yardstick of a planned workload (``whatif.warnings``)."""
    return {metric: float(o.history.values[-TODAY_DAYS:].sum()) for metric, o in found.items()}


def decide(
    found: dict[str, Outlook],
    options: Sequence[Option],
    *,
    term: int = DEFAULT_TERM,
    what_if: WhatIf | None = None,
    risk: float = DEFAULT_RISK,
    year_start: YearStart | None = None,
    plan: TodaysPlan | str | None = None,
) -> Decision:
    """The forecasts and the recommendation among today's ``plan`` (or the sentence saying why
    it is not weighed; None: not asked) and ``options`` for the next ``term`` months, both with
    the what-ifs, and without them beside."""
    shifted = what_if or WhatIf()
    scenarios = term_scenarios(found, term, shifted)
    weighed = plan if isinstance(plan, TodaysPlan) else None
    said = (plan,) if isinstance(plan, str) else ()
    plain = None
    if shifted != WhatIf():
        plain = decide(found, options, term=term, risk=risk, year_start=year_start, plan=plan)
    return Decision(
        outlooks=found,
        forecasts=forecast_rows(found, shifted, year_start),
        scenarios=scenarios,
        recommendation=recommend(options, scenarios, risk, weighed, said),
        what_if=shifted,
        term=term,
        plan=weighed,
        warnings=warnings(shifted, monthly_usage(found)),
        plain=plain,
    )


def verdict(decision: Decision, money: Callable[[float], str]) -> str:
    """The recommendation in one sentence, as the command line and the meeting report say it:
    the option, why (within the risk, or the least likely to run over), its expected cost and
    chance of overage, and today's plan's expected cost beside it; ``money`` writes an amount
    in the pricing file's currency (the money layer's, which this layer does not import)."""
    found = decision.recommendation
    if found.chosen is None:
        return "No option of the catalogue fits the term."
    risk = share_text(found.risk)
    said = (
        f"the lowest expected cost within a {risk} chance of overage"
        if found.within_risk
        else f"no option stays within a {risk} chance of overage: the least likely to run over"
    )
    today_plan = found.current
    against = (
        ""
        if today_plan is None or today_plan is found.chosen
        else f"; today's plan is expected to cost {money(today_plan.expected_cost)}, chance "
        f"of reaching a limit {share_text(today_plan.overage_chance)}"
    )
    return (
        f"Recommended for the {decision.term} months from {decision.scenarios.months[0]}: "
        f"{found.chosen.name} ({said}), expected cost {money(found.chosen.expected_cost)}, "
        f"chance of overage {share_text(found.chosen.overage_chance)}{against}."
    )


def plain_verdict(decision: Decision, money: Callable[[float], str]) -> str | None:
    """What the what-ifs changed, in one sentence beside the verdict: the recommendation and
    its expected cost without them; None without what-ifs."""
    plain = decision.plain
    if plain is None:
        return None
    chosen, before = decision.recommendation.chosen, plain.recommendation.chosen
    if before is None:
        return "Without the what-ifs no option of the catalogue fits the term either."
    same = chosen is not None and chosen.name == before.name
    return (
        f"Without the what-ifs ({decision.what_if}) the recommendation is "
        f"{'the same, ' if same else ''}{before.name}: expected cost "
        f"{money(before.expected_cost)}, chance of overage {share_text(before.overage_chance)}."
    )


def plan_sentence(plan: TodaysPlan, money: Callable[[float], str]) -> str:
    """Today's plan as every front end names it: its limits as the Plan card shows them, and
    what the prices in force charge for it (``money`` writes an amount in their currency)."""
    terms = plan.terms
    named = f" ({terms.prices_name})" if terms.prices_name else ""
    minutes = format_value(float(terms.included_minutes), MINUTES)
    return (
        f"{plan.text}; at the prices in force from {terms.prices_from}{named}: "
        f"{money(float(terms.base_fee))} a month with {terms.included_characters:,} characters "
        f"and {minutes} speech-to-text minutes included, beyond them "
        f"{money(float(terms.price_per_million_characters))} a million characters (the "
        "character services' prices weighted by their shares of the last 12 months) and "
        f"{terms.price_per_minute} {plan.currency} a speech-to-text minute. Its volume is its "
        "limits: beyond one the service refuses usage, so its chance of overage is the chance "
        "of reaching a limit."
    )
