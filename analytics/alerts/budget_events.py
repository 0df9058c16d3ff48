"""Budget evaluations as alert events: one event per budget and period that needs attention.

A warning budget is a ``warning`` event and an exceeded one an ``exceeded`` event with the same
id, so a budget that goes from warning to exceeded within its period is sent again, once. A
budget naming an unknown key is a ``warning`` of its own (a different id): fixing the file
and then running into the threshold are two different messages.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from analytics.alerts.events import Event
from analytics.capacity.budgets import Evaluation
from analytics.cost.currencies import MINOR_UNITS
from analytics.usage.metrics import METRIC_LABELS, share_text

LINK = "/capacity"  # the dashboard page with budgets and forecasts


def budget_amount(value: float, unit: str) -> str:
    """An amount in a budget's unit (``Evaluation.unit``), for alerts and ``check-budgets``
    alike: characters whole, minutes to the hundredth, money to its currency's minor unit
    (``1,234.56`` in EUR, ``1,235`` in JPY); "-" for none."""
    if math.isnan(value):
        return "-"
    if unit == "characters":
        return f"{value:,.0f}"
    if unit == "minutes":
        return f"{value:,.2f}"
    return f"{value:,.{MINOR_UNITS[unit]}f}"


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
        "its end at the current run rate."
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
