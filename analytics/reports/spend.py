"""The meeting report's Spend section: the range's spend by service and by team against the
previous range, and the cost forecast of each period (a review built with prices)."""

from __future__ import annotations

import html

import pandas as pd

from analytics.capacity import CapacityReview
from analytics.cost import (
    BASE_FEE,
    BASE_FEE_SHARE,
    COST_LABELS,
    PRICED_METRICS,
    TOTAL,
    TOTAL_COST,
    USAGE_COST,
    amount_text,
    unpriced_text,
)
from analytics.reports import blocks
from analytics.usage import PERIOD_TITLES, percent_text, range_text, relative_change


def _spend_rows(review: CapacityReview, currency: str) -> pd.DataFrame:
    """The range's spend by service, the base fee and the total, against the previous range
    (N/A where it has no prices)."""
    assert review.spend is not None
    lines = [*PRICED_METRICS, USAGE_MINOR, "base_fee_minor", "amount_minor"]
    now = _total(review.spend, lines)
    before = None if review.previous_spend is None else _total(review.previous_spend, lines)
    fee = BASE_FEE if review.withheld is None else BASE_FEE_SHARE
    names = [*(COST_LABELS[m] for m in PRICED_METRICS), USAGE_COST, fee, TOTAL_COST]
    return pd.DataFrame(
        {
            "Spend": names,
            "This period": [amount_text(now[line], currency) for line in lines],
            "Previous period": [
                "N/A" if before is None else amount_text(before[line], currency) for line in lines
            ],
            "Change": [
                percent_text(
                    None
                    if before is None
                    else _hundredfold(relative_change(now[line], before[line]))
                )
                for line in lines
            ],
        }
    )


def _total(spend: pd.DataFrame, lines: list[str]) -> dict[str, int]:
    """The ``Total`` row of a spend per team, in minor units (its usage cost too)."""
    [row] = _with_usage_cost(spend).loc[spend["team"] == TOTAL, lines].to_dict("records")
    return {line: int(row[line]) for line in lines}


USAGE_MINOR = "usage_minor"


def _with_usage_cost(spend: pd.DataFrame) -> pd.DataFrame:
    """A spend per team with each row's usage cost (total cost less the base fee share)."""
    return spend.assign(**{USAGE_MINOR: spend["amount_minor"] - spend["base_fee_minor"]})


def _hundredfold(change: float | None) -> float | None:
    return None if change is None else 100 * change


def _team_rows(spend: pd.DataFrame, currency: str) -> pd.DataFrame:
    """Each team's usage cost, base fee share and total cost, and its share of the total."""
    total = int(spend["amount_minor"].iloc[-1])
    return pd.DataFrame(
        {
            "Team": spend["team"],
            USAGE_COST: [
                amount_text(int(u), currency) for u in _with_usage_cost(spend)[USAGE_MINOR]
            ],
            BASE_FEE_SHARE: [amount_text(int(f), currency) for f in spend["base_fee_minor"]],
            TOTAL_COST: [amount_text(int(a), currency) for a in spend["amount_minor"]],
            "Share": [
                percent_text(100 * int(a) / total if total else None, signed=False)
                for a in spend["amount_minor"]
            ],
        }
    )


def _cost_forecast_rows(table: pd.DataFrame, currency: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Period": [
                f"{PERIOD_TITLES[p]} {range_text(s, e)}"
                for p, s, e in zip(table["period"], table["start"], table["end"], strict=True)
            ],
            "Cost so far": [blocks.amount(v, currency) for v in table["actual"]],
            "Projected": [blocks.amount(v, currency) for v in table["projected"]],
        }
    )


def spend_section(review: CapacityReview, currency: str) -> str:
    """Spend of the range (of its days with a price) and the cost forecast of each period; of
    some teams' review, their rows of Chargeback and, once, why there is no forecast."""
    parts = []
    if review.spend is not None:
        parts += [
            blocks.table(_spend_rows(review, currency), ["Spend"]),
            "<h3>Spend by team</h3>",
            f'<p class="note">{_SHARED if review.withheld is None else _TEAMS_SHARE}</p>',
            blocks.table(_team_rows(review.spend, currency), ["Team"]),
        ]
    else:
        parts.append('<p class="note">The usage of the range is not known: no spend.</p>')
    if review.unpriced:
        note = unpriced_text(review.unpriced, "the spend and its forecasts")
        parts.insert(0, f'<p class="note">{html.escape(note)}</p>')
    if review.withheld is not None:
        parts += ["<h3>Spend forecast</h3>", f'<p class="note">{html.escape(review.withheld)}</p>']
    elif review.cost_forecasts is not None and len(review.cost_forecasts):
        parts += [
            "<h3>Spend forecast</h3>",
            '<p class="note">The organization\'s cost, base fee included: the closed days, '
            "then each service's forecast priced to the period's end.</p>",
            blocks.table(_cost_forecast_rows(review.cost_forecasts, currency), ["Period"]),
        ]
    return blocks.section(f"Spend ({currency})", *parts)


_SHARED = (
    "Usage cost shared between teams pro rata to usage, the base fee pro rata to usage at list "
    "prices; keys no team claims are Unassigned."
)
_TEAMS_SHARE = (
    "Each team's rows of Chargeback: its share of the organization's usage cost (pro rata to "
    "usage) and of its base fee (pro rata to usage at list prices); Total is their sum."
)
