"""What the plan reads, asked through a ``KeyReader`` (the command line's or the dashboard's):
the usage period and the organization's count now (``/v2/usage``), the key list joined to
usage, and the closed days from the earliest enforced budget's start (and the forecast's
history, ``capacity.forecasting.forecast_start``) through yesterday. Each key's forecast for the
rest of the usage period is its share of the organization's one forecast
(``capacity.forecasting.expected_days``, as ``capacity.budgets.allowance`` projects).
``plan_now`` is the one answer the front ends ask for: the plan as of a day."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import date

import pandas as pd

from analytics.capacity import (
    BillingPeriod,
    BudgetSettings,
    billing_period,
    expected_days,
    forecast_start,
    plan_limits,
)
from analytics.cost import Pricing, Teams, key_teams
from analytics.guardrails.limit_plan import Plan, make_plan
from analytics.guardrails.memory import Memory
from analytics.guardrails.plan_inputs import KeyUse, Situation
from analytics.guardrails.rules import MEASURE_METRICS, MEASURES, Measure, span_of, units
from analytics.keys import KeyReader, join, masked
from analytics.service import DeveloperKey, PlanUsage
from analytics.usage import ONE_DAY, labels, within


class NoUsagePeriod(ValueError):
    """The service reports no usage period (a free plan): no budget can be enforced."""


def _forecast(
    usage: pd.DataFrame,
    api_key: str,
    measure: Measure,
    today: date,
    covered_from: date,
    period: BillingPeriod,
) -> float:
    """The key's expected use from today to the usage period's end, in service units."""
    window = (today, period.end, covered_from)
    expected = expected_days(usage, MEASURE_METRICS[measure], window, (api_key,))
    return float(expected.sum()) * units(measure, 1)


def _used_this_period(
    usage: pd.DataFrame, period: BillingPeriod, today: date
) -> dict[Measure, dict[str, float]]:
    """Each key's use of each measure over the usage period's closed days (api key → units
    of the frame): what the keys' counts and the budgets' room start from."""
    now = within(usage, period.start, today - ONE_DAY)
    sums = now.groupby("api_key", observed=True)[list(MEASURE_METRICS.values())].sum()
    return {
        m: dict(zip(map(str, sums.index), sums[MEASURE_METRICS[m]].astype(float), strict=True))
        for m in MEASURES
    }


def _using(usage: pd.DataFrame) -> dict[Measure, set[str]]:
    """The keys that used each measure in what was read. A forecast only for the keys a plan
    shares among (active ones) and for the measures they used in what was read: the others
    forecast nothing, and a plan with a thousand listed keys, most of them deactivated or
    never used, reads in a moment."""
    read_totals = usage.groupby("api_key", observed=True)[list(MEASURE_METRICS.values())].sum()
    return {
        m: {str(k) for k, v in read_totals[MEASURE_METRICS[m]].items() if v > 0} for m in MEASURES
    }


def _live(answer: PlanUsage) -> dict[Measure, int]:
    """The organization's count now, in service units: beyond the closed days' usage it
    holds today's use so far, which no key's count shows yet."""
    return {
        "characters": answer.character_count,
        "speech": units("speech", answer.speech_to_text_minutes_count or 0),
    }


def _plan_limits(answer: PlanUsage) -> dict[Measure, int | None]:
    """The plan's own limits in service units (None: none): the service's cap on the whole
    organization, which an enforced budget is shown beside."""
    limits = plan_limits(answer)
    return {
        "characters": None if limits.characters is None else units("characters", limits.characters),
        "speech": None
        if limits.speech_to_text_minutes is None
        else units("speech", limits.speech_to_text_minutes),
    }


def read_situation(
    reader: KeyReader, budgets: BudgetSettings, teams: Teams | None, today: date
) -> Situation:
    """The situation as of ``today``; ``NoUsagePeriod`` when the service reports none."""
    answer = reader.plan()
    period = billing_period(answer)
    if period is None:
        raise NoUsagePeriod(
            "the service reports no usage period (a free plan): key limits cannot hold a budget"
        )
    firsts = [span_of(b, budgets, period)[0] for b in budgets.enforced if not b.is_plan]
    first = min(period.start, forecast_start(today), *firsts)
    listed = reader.developer_keys()
    read = reader.usage(first, today - ONE_DAY)
    usage = read.frame
    joined = join(listed, labels(usage), reader.recorded_masks())
    used = _used_this_period(usage, period, today)

    def counted(api_key: str | None, measure: Measure) -> int:
        return units(measure, used[measure].get(api_key or "", 0.0), up=True)

    using = _using(usage)

    def forecast(key: DeveloperKey, api_key: str | None, measure: Measure) -> float:
        if key.is_deactivated or api_key is None or api_key not in using[measure]:
            return 0.0
        return _forecast(usage, api_key, measure, today, read.start, period)

    def team(api_key: str | None, key_id: str, label: str) -> str | None:
        if teams is None:
            return None
        name = api_key or masked(key_id)
        return key_teams(teams, {name: label})[name]

    keys = tuple(
        KeyUse(
            key=row.key,
            api_key=row.api_key,
            team=team(row.api_key, row.key.key_id, row.key.label),
            counted={m: counted(row.api_key, m) for m in MEASURES},
            forecast={m: forecast(row.key, row.api_key, m) for m in MEASURES},
        )
        for row in joined
        if row.key is not None
    )
    return Situation(
        today=today,
        period=period,
        keys=keys,
        usage=usage,
        frame_teams={} if teams is None else key_teams(teams, labels(usage)),
        live=_live(answer),
        team_names=None if teams is None else tuple(t.name for t in teams.teams),
        plan_limits=_plan_limits(answer),
    )


def plan_now(
    reader: KeyReader,
    budgets: BudgetSettings,
    costing: tuple[Teams | None, Pricing | None],
    today: date,
    remembered: Mapping[str, Memory],
    leave_out: Collection[str] = (),
) -> Plan:
    """The guardrails' plan as of ``today``: what ``reader`` reads now, the teams and prices
    in force, the keys' ``remembered`` limits; the budgets titled in ``leave_out`` are not
    enforced (restore)."""
    teams, pricing = costing
    found = read_situation(reader, budgets, teams, today)
    return make_plan(budgets, found, remembered, pricing, leave_out)
