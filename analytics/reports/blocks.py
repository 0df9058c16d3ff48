"""The meeting report's HTML building blocks: numbers in their metric's format, amounts in
the currency, escaped tables, figures drawn by the report's one plotly.js (`plotlyjs`), sections."""

from __future__ import annotations

import html
from collections.abc import Iterable

import pandas as pd
import plotly.graph_objects as go

from analytics.cost import estimate_text
from analytics.reports import plotlyjs
from analytics.usage import format_value


def number(value: float, metric: str) -> str:
    return format_value(value, metric)


def numbers(values: Iterable[float], metrics: Iterable[str]) -> list[str]:
    return [number(v, m) for v, m in zip(values, metrics, strict=True)]


def table(frame: pd.DataFrame, text_columns: Iterable[str] = ()) -> str:
    """An escaped HTML table; ``text_columns`` are left-aligned."""
    text = set(text_columns)
    aligned = ' class="text"'
    head = "".join(
        f"<th{aligned if c in text else ''}>{html.escape(str(c))}</th>" for c in frame.columns
    )
    rows = []
    for record in frame.itertuples(index=False):
        cells = []
        for column, value in zip(frame.columns, record, strict=True):
            css = aligned if column in text else ""
            if column == "Status":
                css = f' class="status-{str(value).replace(" ", "-")}"'
            cells.append(f"<td{css}>{html.escape(str(value))}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def figure(fig: go.Figure) -> str:
    fig.update_layout(template="plotly_white", paper_bgcolor="#fff", plot_bgcolor="#fff")
    return f'<div class="chart">{plotlyjs.chart(fig)}</div>'


def section(title: str, *parts: str) -> str:
    return f"<section><h2>{html.escape(title)}</h2>{''.join(parts)}</section>"


def amount(value: float, currency: str) -> str:
    """A forecast or budget amount (currency units) as money, to the minor unit."""
    return estimate_text(value, currency)


def in_unit(values: Iterable[float], metrics: Iterable[str], currency: str | None) -> list[str]:
    """Usage in its metric's format, and cost budgets' values in the currency."""
    return [
        amount(v, currency) if m == "cost" and currency else number(v, m)
        for v, m in zip(values, metrics, strict=True)
    ]
