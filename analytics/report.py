"""The capacity meeting report: one self-contained HTML file.

Everything the file needs is inside it: the plotly.js library once in the head, then each
figure as a div without its own copy. No web fonts, no CDN, no external links, so the report
opens offline, can be mailed as an attachment, and prints on white with page breaks between
sections.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable
from datetime import date, timedelta

import pandas as pd
import plotly.graph_objects as go
import plotly.offline

from analytics import charts, views
from analytics.budgets import BudgetFile, evaluate, evaluation_frame
from analytics.capacity_charts import forecast_figure
from analytics.compare import compare, comparison_start, growth_drivers, within
from analytics.forecast import (
    PERIOD_KINDS,
    PERIOD_TITLES,
    YearStart,
    backtest,
    daily_series,
    forecast_table,
    key_forecasts,
    period_bounds,
    projection_path,
    required_start,
    run_rate,
)
from analytics.frames import METRICS
from analytics.pipeline import Usage

TOP_KEYS = 10
CHART_KEYS = 8
DRIVERS = 5

STYLE = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
       color: #1b2733; background: #fff; margin: 0 auto; max-width: 1180px; padding: 24px 32px;
       line-height: 1.4; }
h1 { font-size: 1.7rem; margin: 0 0 4px; color: #0F2B46; }
h2 { font-size: 1.25rem; margin: 32px 0 8px; padding-bottom: 4px; color: #0F2B46;
     border-bottom: 2px solid #0F2B46; }
.meta, .note { color: #4a5a6a; font-size: 0.9rem; }
.kpis { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 10px; }
.kpi { border: 1px solid #c9d3dd; border-radius: 6px; padding: 10px 12px; }
.kpi .label { font-size: 0.82rem; color: #4a5a6a; }
.kpi .value { font-size: 1.35rem; font-weight: 600; }
.kpi .delta { font-size: 0.82rem; color: #4a5a6a; }
table { border-collapse: collapse; width: 100%; font-size: 0.86rem; margin: 6px 0 14px; }
th, td { border-bottom: 1px solid #dde3e9; padding: 4px 8px; text-align: right; }
th { background: #eef2f6; color: #1b2733; }
th:first-child, td:first-child, .text { text-align: left; }
.status-ok { color: #2d7a52; font-weight: 600; }
.status-warning, .status-unknown-key { color: #9a5a00; font-weight: 600; }
.status-exceeded { color: #b02a22; font-weight: 600; }
.chart { break-inside: avoid; page-break-inside: avoid; }
@media print {
  body { max-width: none; padding: 0; }
  section { break-before: page; page-break-before: always; }
  section:first-of-type { break-before: auto; page-break-before: auto; }
  table, .kpis, .chart { break-inside: avoid; page-break-inside: avoid; }
  th { background: #fff; border-bottom: 2px solid #1b2733; }
}
"""


def report_range(start: date, end: date, today: date, year_start: YearStart) -> tuple[date, date]:
    """The days a report on ``start``–``end`` reads: comparisons, forecasts and their history."""
    first = min(comparison_start(start, end), required_start(today, year_start))
    return first, max(end, today - timedelta(days=1))


def _number(value: float, metric: str) -> str:
    return views.format_value(value, metric)


def _numbers(values: Iterable[float], metrics: Iterable[str]) -> list[str]:
    return [_number(v, m) for v, m in zip(values, metrics, strict=True)]


def _percent(value: float | None, signed: bool = True) -> str:
    """A percentage for a table cell; N/A where there was nothing to compare against."""
    if value is None or math.isnan(value) or math.isinf(value):
        return "N/A"
    return f"{value:+.1f} %" if signed else f"{value:.1f} %"


def _table(frame: pd.DataFrame, text_columns: Iterable[str] = ()) -> str:
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


def _figure(fig: go.Figure) -> str:
    fig.update_layout(template="plotly_white", paper_bgcolor="#fff", plot_bgcolor="#fff")
    div = fig.to_html(full_html=False, include_plotlyjs=False, config={"displayModeBar": False})
    return f'<div class="chart">{div}</div>'


def _section(title: str, *parts: str) -> str:
    return f"<section><h2>{html.escape(title)}</h2>{''.join(parts)}</section>"


def _kpis(services: pd.DataFrame) -> str:
    tiles = []
    for metric in METRICS:
        row = services.loc[metric]
        tiles.append(
            '<div class="kpi">'
            f'<div class="label">{html.escape(views.METRIC_LABELS[metric])}</div>'
            f'<div class="value">{_number(row["current"], metric)}</div>'
            f'<div class="delta">{_percent(row["change %"])} vs previous period · '
            f"{_percent(row['yoy %'])} vs last year</div></div>"
        )
    return f'<div class="kpis">{"".join(tiles)}</div>'


def _services_table(services: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Service": [views.METRIC_LABELS[m] for m in services.index],
            "This period": [_number(v, m) for m, v in services["current"].items()],
            "Previous period": [_number(v, m) for m, v in services["previous"].items()],
            "Change": [_percent(v) for v in services["change %"]],
            "Same period last year": [_number(v, m) for m, v in services["last_year"].items()],
            "Year on year": [_percent(v) for v in services["yoy %"]],
        }
    )


def _keys_table(keys: pd.DataFrame, metric: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Key": keys["api_key_label"].astype(str),
            "Masked key": keys["api_key"].astype(str),
            "Previous period": [_number(v, metric) for v in keys["previous"]],
            "This period": [_number(v, metric) for v in keys["current"]],
            "Change": [_number(v, metric) for v in keys["change"]],
            "Change %": [_percent(v) for v in keys["change %"]],
        }
    )


def _forecast_rows(table: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Metric": [views.METRIC_LABELS[m] for m in table["metric"]],
            "Period": [
                f"{PERIOD_TITLES[p]} {s:%Y-%m-%d} – {e:%Y-%m-%d}"
                for p, s, e in zip(table["period"], table["start"], table["end"], strict=True)
            ],
            "Used so far": _numbers(table["actual"], table["metric"]),
            "Projected": _numbers(table["projected"], table["metric"]),
            "Band": _bands(table, table["metric"]),
        }
    )


def _bands(table: pd.DataFrame, metrics: Iterable[str]) -> list[str]:
    return [
        f"{_number(lo, m)} – {_number(hi, m)}"
        for m, lo, hi in zip(metrics, table["low"], table["high"], strict=True)
    ]


def _key_forecast_rows(table: pd.DataFrame) -> pd.DataFrame:
    metric = ["total_characters"] * len(table)
    return pd.DataFrame(
        {
            "Key": table["api_key_label"],
            "Masked key": table["api_key"],
            "Used so far": _numbers(table["actual"], metric),
            "Projected": _numbers(table["projected"], metric),
            "Band": _bands(table, metric),
        }
    )


def _budget_rows(frame: pd.DataFrame) -> pd.DataFrame:
    metric = frame["metric"]
    return pd.DataFrame(
        {
            "Budget": frame["budget"],
            "Period": frame["period"],
            "Limit": _numbers(frame["limit"], metric),
            "Used": _numbers(frame["used"], metric),
            "Used %": [_percent(v, signed=False) for v in frame["used %"]],
            "Projected": _numbers(frame["projected"], metric),
            "Projected %": [_percent(v, signed=False) for v in frame["projected %"]],
            "Projected overrun": [str(d) if d else "—" for d in frame["overrun"]],
            "Status": frame["status"],
        }
    )


def build_report(
    usage: Usage,
    budgets: BudgetFile | None,
    today: date,
    *,
    start: date | None = None,
    end: date | None = None,
    title: str = "Capacity review",
) -> str:
    """The report on ``start``–``end`` (default: the usage's whole range) as one HTML page.

    ``usage`` should cover ``report_range(start, end, today, year_start)`` so the comparisons
    and forecasts have their history; days before ``usage.start`` count as unknown. Forecasts
    and budgets are as of ``today`` (closed days before it).
    """
    start, end = start or usage.start, end or usage.end
    key_day, covered_from = usage.key_day, usage.start
    year_start = budgets.year_start if budgets else YearStart()
    period = within(key_day, start, end)
    comparison = compare(key_day, start, end, covered_from=covered_from)
    granularity = views.auto_granularity(start, end)
    over_time = views.usage_over_time(period, start, end, granularity)
    top = views.top_n_over_time(period, "total_characters", CHART_KEYS, start, end, granularity)
    top_totals = views.top_n_totals(period, "total_characters", TOP_KEYS)
    forecasts = forecast_table(key_day, today, covered_from, year_start=year_start)
    key_forecasts_top = key_forecasts(key_day, today, covered_from, year_start=year_start)
    key_forecasts_top = key_forecasts_top.head(TOP_KEYS)

    notes = "".join(
        f'<p class="note">Warning: totals do not reconcile: {html.escape(m)}</p>'
        for m in usage.mismatches
    )
    header = (
        f"<header><h1>{html.escape(title)}</h1>"
        f'<p class="meta">Period {start:%Y-%m-%d} – {end:%Y-%m-%d} (UTC days) · compared with '
        f"{comparison.previous[0]:%Y-%m-%d} – {comparison.previous[1]:%Y-%m-%d} and "
        f"{comparison.last_year[0]:%Y-%m-%d} – {comparison.last_year[1]:%Y-%m-%d} · "
        f"forecasts as of {today:%Y-%m-%d} · contract year starts {year_start}</p>{notes}</header>"
    )
    sections = [
        _section(
            "Summary",
            _kpis(comparison.services),
            _table(_services_table(comparison.services), ["Service"]),
        ),
        _section(
            "Usage by service",
            _figure(charts.service_mix(over_time, granularity)),
            _figure(charts.minutes_over_time(over_time, granularity)),
        ),
        _section(
            "Usage by key",
            _figure(charts.keys_over_time(top, "total_characters", granularity)),
            _figure(charts.top_keys_bar(top_totals, "total_characters")),
            "<h3>Top keys by total characters</h3>",
            _table(
                _keys_table(comparison.keys.head(TOP_KEYS), comparison.metric),
                ["Key", "Masked key"],
            ),
        ),
        _section(
            "Growth drivers",
            '<p class="note">Keys whose total characters changed most against the previous '
            "period.</p>",
            _table(
                _keys_table(growth_drivers(comparison, DRIVERS), comparison.metric),
                ["Key", "Masked key"],
            ),
        ),
        _section(
            "Forecasts",
            f'<p class="note">{html.escape(forecast_note(key_day, covered_from, today))}</p>',
            *map(_figure, forecast_figures(key_day, today, covered_from, year_start, budgets)),
            _table(_forecast_rows(forecasts), ["Metric", "Period"]),
            "<h3>Total characters this month: keys with the largest projections</h3>",
            _table(_key_forecast_rows(key_forecasts_top), ["Key", "Masked key"]),
        ),
    ]
    if budgets is not None:
        evaluations = evaluate(budgets, key_day, today, covered_from)
        sections.append(
            _section(
                "Budget status",
                _table(_budget_rows(evaluation_frame(evaluations)), ["Budget", "Period"]),
            )
        )
    body = header + "".join(sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style>"
        f'<script type="text/javascript">{plotly.offline.get_plotlyjs()}</script>'
        f"</head><body>{body}</body></html>\n"
    )


def forecast_note(key_day: pd.DataFrame, covered_from: date, today: date) -> str:
    """How the forecasts are made and how well they did over the last twelve months."""
    test = backtest(key_day, covered_from=covered_from, covered_to=today - timedelta(days=1))
    accuracy = (
        f" Over the last {len(test.months)} months, forecasts made on each month's first day "
        f"missed the month's total characters by {100 * test.mape:.1f} % on average."
        if len(test.months)
        else ""
    )
    return (
        "Run rate: the mean day of the last 28 days, shaped by each weekday's "
        "share of the last 12 weeks. The band is ± one standard deviation of weekly totals per "
        f"week still ahead.{accuracy}"
    )


def forecast_figures(
    key_day: pd.DataFrame,
    today: date,
    covered_from: date,
    year_start: YearStart,
    budgets: BudgetFile | None,
) -> list[go.Figure]:
    """Cumulative total characters and minutes for the month and the contract year, with their
    forecast bands and the org-wide budget lines (the report and the capacity page show these)."""
    figures = []
    for metric in ("total_characters", "speech_to_text_minutes"):
        series = daily_series(key_day, metric)
        rate = run_rate(series, today, covered_from)
        for kind in PERIOD_KINDS:
            if kind == "quarter":
                continue  # month and contract year frame the meeting; the table holds all three
            first, last = period_bounds(kind, today, year_start)
            limits = [
                (b.title, b.limit, budgets.threshold(b))
                for b in (budgets.budgets if budgets else ())
                if b.key is None and b.metric == metric and b.period == kind
            ]
            path = projection_path(series, first, last, rate, covered_from)
            name = f"{views.METRIC_LABELS[metric]} — {PERIOD_TITLES[kind].lower()} to date"
            figures.append(forecast_figure(path, metric, name, limits))
    return figures
