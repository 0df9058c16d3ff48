"""The scores of a backtest's rows (``backtesting``): WAPE, the sum of the absolute errors of
a horizon's totals over the sum of their actuals (months of little usage weigh little), and
how often the actual totals lay inside their intervals."""

from __future__ import annotations

import pandas as pd


def wape(rows: pd.DataFrame, column: str = "forecast") -> float:
    """Σ|actual − forecast| ÷ Σ actual (NaN without usage); ``column`` names the forecast."""
    actual = float(rows["actual"].sum())
    error = float((rows["actual"] - rows[column]).abs().sum())
    return error / actual if actual > 0 else float("nan")


def held(rows: pd.DataFrame, level: str) -> tuple[int, int]:
    """How many of the rows with an interval have their actual inside it, and how many rows
    have one."""
    low, high = rows[f"low_{level}"], rows[f"high_{level}"]
    known = low.notna()
    inside = rows.loc[known, "actual"].between(low[known], high[known])
    return int(inside.sum()), int(known.sum())


def coverage(rows: pd.DataFrame, level: str) -> float:
    """The share of the rows with an interval whose actual lies inside it."""
    inside, known = held(rows, level)
    return inside / known if known else float("nan")
