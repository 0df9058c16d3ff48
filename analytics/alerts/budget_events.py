"""Budget evaluations as alert events: one event per budget and period that needs attention.

A warning budget is a ``warning`` event and an exceeded one an ``exceeded`` event with the same
id, so a budget that goes from warning to exceeded within its period is sent again, once. A
budget naming an unknown key is a ``warning`` of its own (a different id): fixing the file
and then running into the threshold are two different messages.

An enforced budget adds two events of its own, from the guardrails' plan (what the hourly
``guardrails apply`` holds): a key stopped by its guardrail is a ``warning`` per key, budget,
measure and usage period, and a budget with nothing left this usage period (every key of it
stopped) is ``exceeded`` per budget, measure and usage period: the budget holds, and the
people who pay for it learn that its keys are refused before anyone asks why.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import pandas as pd

from analytics.alerts.events import Event
from analytics.capacity import Evaluation
from analytics.cost import MINOR_UNITS
from analytics.guardrails import MEASURE_NAMES, Plan, blocked, exhausted, limit_of, limit_text
from analytics.pages import GUARDRAILS_SECTION, page_at
from analytics.usage import METRIC_LABELS, share_text

LINK = page_at("capacity").link()  # the dashboard page with budgets and forecasts
# The Keys & limits page, its Guardrails section open.
GUARDRAILS_LINK = page_at("limits").link(**{GUARDRAILS_SECTION: "true"})


def unit_decimals(unit: str) -> int:
    """The decimals an amount in a budget's unit (``Evaluation.unit``) is shown with:
    characters whole, minutes to the hundredth, money to its currency's minor unit."""
    if unit == "characters":
        return 0
    if unit == "minutes":
        return 2
    return MINOR_UNITS.get(unit, 2)


def budget_amount(value: float, unit: str) -> str:
    """An amount in a budget's unit, for alerts and ``check-budgets`` alike (``1,234.56`` in
    EUR, ``1,235`` in JPY); "-" for none."""
    if math.isnan(value):
        return "-"
    return f"{value:,.{unit_decimals(unit)}f}"


def in_units(frame: pd.DataFrame) -> pd.DataFrame:
    """An evaluation frame (``evaluation_frame``) with its amounts rounded as ``budget_amount``
    writes them, each row in its unit: for a table whose columns hold several units."""
    shown = frame.copy()
    decimals = shown["unit"].map(unit_decimals)
    for column in ("used", "projected", "limit"):
        shown[column] = [round(v, d) for v, d in zip(shown[column], decimals, strict=True)]
    return shown


def _what(metric: str) -> str:
    if metric == "plan":
        return "characters of the plan's limit"
    if metric == "cost":
        return "cost"
    return METRIC_LABELS[metric].lower()


def _scope(evaluation: Evaluation, labels: Mapping[str, str]) -> str:
    if not evaluation.keys:
        return "Scope: the whole organization."
    named = ", ".join(f"{labels.get(key, key)} ({key})" for key in evaluation.keys)
    return f"Keys: {named}."


def _text(evaluation: Evaluation, labels: Mapping[str, str], currency: str | None) -> str:
    budget = evaluation.budget
    metric = budget.metric
    unit = evaluation.unit(currency or "")

    def amount(value: float) -> str:
        money = budget.is_cost and math.isfinite(value)
        return f"{budget_amount(value, unit)} {unit}" if money else budget_amount(value, unit)

    limit = math.nan if evaluation.limit is None else evaluation.limit
    sentences = [
        f"{budget.title}: {amount(evaluation.used)} of {amount(limit)} {_what(metric)} used "
        f"({share_text(evaluation.used_share)}) in {evaluation.period_text}, and "
        f"{amount(evaluation.projected)} ({share_text(evaluation.projected_share)}) projected by "
        "its end as forecast."
    ]
    if evaluation.overrun is not None:
        reached = "was reached" if evaluation.status == "exceeded" else "is reached"
        sentences.append(f"The limit {reached} on {evaluation.overrun}.")
    sentences.append(
        f"It warns at {share_text(evaluation.threshold)} of the limit, used or projected."
    )
    sentences.append(_scope(evaluation, labels))
    if evaluation.note:
        sentences.append(f"Note: {evaluation.note}.")
    return " ".join(sentences)


def _period(evaluation: Evaluation) -> str:
    return "billing-period" if evaluation.start is None else evaluation.start.isoformat()


def budget_events(
    evaluations: Iterable[Evaluation], labels: Mapping[str, str], currency: str | None = None
) -> list[Event]:
    """Events of the evaluations that are not ok. ``labels`` names masked keys (masked key →
    label); ``currency`` is the pricing file's, for cost budgets."""
    events = []
    for evaluation in evaluations:
        budget = evaluation.budget
        identity = f"budget:{budget.identity}:{_period(evaluation)}"
        if evaluation.status == "unknown key":
            events.append(
                Event(
                    id=f"{identity}:unknown-key",
                    level="warning",
                    subject=f"Budget names an unknown key: {budget.title}",
                    text=(
                        f"The budget {budget.title} names the key {budget.key!r}, but no key "
                        "has that label or masked key in the usage read: a typo, or a "
                        "retired key. Check the budgets file."
                    ),
                    link=LINK,
                )
            )
        elif evaluation.status in ("warning", "exceeded"):
            events.append(
                Event(
                    id=identity,
                    level=evaluation.status,
                    subject=f"Budget {evaluation.status}: {budget.title} "
                    f"({evaluation.period_text})",
                    text=_text(evaluation, labels, currency),
                    link=LINK,
                )
            )
    return events


def guardrail_events(plan: Plan) -> list[Event]:
    """Events of the guardrails' ``plan``: each enforced budget used up this usage period
    (``exceeded``), then each key its guardrail stops (``warning``)."""
    period = plan.period
    events = [
        Event(
            id=f"guardrail:{share.budget.identity}:{period.start}:{share.measure}:used-up",
            level="exceeded",
            subject=f"Enforced budget used up: {share.title}, usage period {period.text}",
            text=(
                f"{share.budget.title}: its allowance of "
                f"{limit_text(share.measure, share.allowance)} {MEASURE_NAMES[share.measure]} "
                f"this usage period ({period.text}) is used up. The guardrail holds it: every "
                f"key of the budget ({len(share.limits)}) is refused by the service once its "
                f"count reaches its limit, until the usage period ends on {period.end}. Raise "
                "the budget's limit, or end its enforcement, to let them work again."
            ),
            link=GUARDRAILS_LINK,
        )
        for share in exhausted(plan)
    ]
    for stop in blocked(plan):
        if not stop.by:
            continue  # the key's own limit stops it, not a guardrail
        key, measure = stop.key.key, stop.measure
        used = stop.key.use.counted[measure]
        events.append(
            Event(
                id=f"guardrail:{stop.by}:{period.start}:{measure}:key:{key.key_id}",
                level="warning",
                subject=f"Key blocked by its guardrail: {key.label} ({stop.by})",
                text=(
                    f"{stop.key.name} has used {limit_text(measure, used)} "
                    f"{MEASURE_NAMES[measure]} this usage period ({period.text}), reaching "
                    f"the limit of {limit_text(measure, limit_of(stop.key.new, measure))} that "
                    f"the enforced budget {stop.by} gives it: the service refuses its "
                    "requests until the guardrail raises the limit (as other keys leave "
                    f"allowance unused) or the usage period ends on {period.end}."
                ),
                link=GUARDRAILS_LINK,
            )
        )
    return events
