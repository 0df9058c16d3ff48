"""The meeting report's Decision section: the recommendation, the curve it was chosen from,
today's plan as the service reports it, the forecasts with their accuracy record, and the
what-ifs used, named when implausible, with the projection and the recommendation without
them beside."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from functools import partial

import pandas as pd

from analytics.capacity import (
    Costed,
    Decision,
    accuracy_text,
    plain_verdict,
    plan_sentence,
    verdict,
)
from analytics.figures import cost_curve_figure, past_forecasts_figure
from analytics.reports import blocks
from analytics.usage import METRIC_LABELS, MINUTES, TOTAL_CHARACTERS, YearStart, share_text

# The forecast table's columns as the report heads them: one table for every metric, each
# row's figures in the unit its metric names.
FORECAST_HEADINGS = {
    "metric": "Metric",
    "period": "Period",
    "used": "Used",
    "projected": "Projected",
    "plain_projected": "Without what-ifs",
    "range_80": "80 % interval",
    "range_95": "95 % interval",
    "model": "Model",
}


def _decision_forecast_rows(decision: Decision) -> pd.DataFrame:
    """Each metric's forecasts as the Capacity page shows them (``Decision.forecast_table``),
    its figures written in the unit its row's metric names."""
    table = decision.forecast_table
    metrics = table["metric"]
    figures = [c for c in ("used", "projected", "plain_projected") if c in table]
    return table.assign(
        metric=[METRIC_LABELS[m] for m in metrics],
        **{column: blocks.numbers(table[column], metrics) for column in figures},
    ).rename(columns=FORECAST_HEADINGS)


def _accuracy_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The backtest's scores; ``*`` marks the candidate each metric's forecasts use."""
    return pd.DataFrame(
        {
            "Metric": [METRIC_LABELS[m] for m in table["metric"]],
            "Candidate": [
                f"{c}{' *' if chosen else ''}"
                for c, chosen in zip(table["candidate"], table["chosen"], strict=True)
            ],
            "Horizon": table["horizon"],
            "Scored": table["scored"],
            "WAPE": [share_text(_known(v)) for v in table["wape"]],
            "In 80 %": [share_text(_known(v)) for v in table["coverage_80"]],
            "In 95 %": [share_text(_known(v)) for v in table["coverage_95"]],
        }
    )


def _known(value: float) -> float | None:
    return None if math.isnan(value) else value


def _volume(value: float, metric: str) -> str:
    """An option's volume, or "no limit" where today's plan has none."""
    return "no limit" if math.isnan(value) else blocks.number(value, metric)


def _option_rows(options: Sequence[Costed], chosen: Costed | None, currency: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Option": [c.name for c in options],
            "Term": [f"{c.term_months} mo" for c in options],
            "Characters a month": [
                _volume(c.committed_characters, TOTAL_CHARACTERS) for c in options
            ],
            "Speech-to-text minutes a month": [
                _volume(c.committed_minutes, MINUTES) for c in options
            ],
            f"Expected cost ({currency})": [
                blocks.amount(c.expected_cost, currency) for c in options
            ],
            "Chance of overage": [share_text(c.overage_chance) for c in options],
            "Unused characters": [_volume(c.unused_characters, TOTAL_CHARACTERS) for c in options],
            "Unused speech-to-text minutes": [_volume(c.unused_minutes, MINUTES) for c in options],
            "": [
                ", ".join(
                    [
                        *(["recommended"] if chosen is not None and c.name == chosen.name else []),
                        *(["the service's plan, its limits"] if c.current else []),
                    ]
                )
                for c in options
            ],
        }
    )


def decision_section(decision: Decision, currency: str | None, year_start: YearStart) -> str:
    """The recommendation, its curve and every option (with a catalogue), the forecasts with
    their accuracy (the contract year from ``year_start``) and the backtest's record, and the
    what-ifs used."""
    found = decision.recommendation
    asked = (
        f"What-ifs: {decision.what_if} · risk setting {share_text(found.risk)} · term "
        f"{decision.term} months"
    )
    parts = [f'<p class="note">{html.escape(asked)}</p>']
    parts += [
        f'<p class="warning">Warning: {html.escape(warning)}.</p>' for warning in decision.warnings
    ]
    if found.options and currency is not None:
        money = partial(blocks.amount, currency=currency)
        said = verdict(decision, money)
        without = plain_verdict(decision, money)
        parts += [
            f"<p><strong>{html.escape(said)}</strong></p>",
            *([] if without is None else [f"<p>{html.escape(without)}</p>"]),
            *(
                []
                if decision.plan is None
                else [f'<p class="note">{html.escape(plan_sentence(decision.plan, money))}</p>']
            ),
            blocks.figure(cost_curve_figure(found.curve(), currency, decision.term)),
            blocks.table(_option_rows(found.options, found.chosen, currency), ["Option"]),
            *(f'<p class="note">Left out: {html.escape(note)}.</p>' for note in found.left_out),
        ]
    else:
        parts.append(
            '<p class="note">No recommendation: the pricing file lists no options to buy '
            "([[option]] entries, see pricing.example.toml).</p>"
        )
    parts += ["<h3>Forecasts and their accuracy</h3>"]
    parts += [
        f'<p class="note">{html.escape(METRIC_LABELS[metric])}: '
        f"{html.escape(accuracy_text(found_one, year_start))}</p>"
        for metric, found_one in decision.outlooks.items()
    ]
    parts.append(
        blocks.table(
            _decision_forecast_rows(decision),
            ["Metric", "Period", "Model"],
        )
    )
    parts += [
        blocks.figure(past_forecasts_figure(o.recent, metric))
        for metric, o in decision.outlooks.items()
    ]
    parts += [
        "<h3>Accuracy record</h3>",
        '<p class="note">From each month start of the last 24 months, each candidate\'s forecast '
        "of the month, quarter and 12 months ahead against what happened: WAPE and the share "
        "of actual totals inside the 80 % and 95 % intervals.</p>",
        blocks.table(_accuracy_rows(decision.accuracy), ["Metric", "Candidate", "Horizon"]),
    ]
    return blocks.section("Decision", *parts)
