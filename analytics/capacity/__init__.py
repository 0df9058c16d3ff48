"""Capacity: how much the organization will use, whether that fits its budgets and its plan,
and what to buy next, in three packages that import downwards only: ``forecasting`` (the one
forecast and its backtest), ``budgets`` (budgets and the plan measured against usage, read
through forecasting) and ``decision`` (the buying decision, read through both).

What composes all three is here: the period comparison (``comparison``) and the capacity review
the Capacity page shows and the meeting report renders (``capacity_review``)."""

from analytics.capacity.capacity_review import (
    Asked,
    CapacityReview,
    ForecastPath,
    accuracy_text,
    decision_of,
    review_of,
)
from analytics.capacity.comparison import comparison_text

__all__ = [
    "Asked",
    "CapacityReview",
    "ForecastPath",
    "accuracy_text",
    "comparison_text",
    "decision_of",
    "review_of",
]
