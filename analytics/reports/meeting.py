"""The capacity meeting report: one self-contained HTML file.

Everything the file needs is inside it: the plotly.js library once in the head, then each
figure as a div without its own copy. No web fonts, no CDN, no external links, so the report
opens offline, can be mailed as an attachment, and prints on white with page breaks between
sections. A review built with prices adds a Spend section (the range's spend by service and by
team against the previous period, the cost forecast of each period) and budget status in the
currency. Given the capacity decision, a Decision section carries the recommendation, the curve
it was chosen from, the forecasts with their accuracy record and the what-ifs used.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from functools import partial

import pandas as pd
import plotly.graph_objects as go
import plotly.offline

from analytics.capacity.budgets import Evaluation, evaluation_frame
from analytics.capacity.compare import comparison_text
from analytics.capacity.decision import Decision, verdict
from analytics.capacity.outlook import PERIOD_NAMES
from analytics.capacity.recommend import Costed
from analytics.capacity.review import CapacityReview, accuracy_text
from analytics.cost.chargeback import TOTAL
from analytics.cost.currencies import MINOR_UNITS
from analytics.cost.money import amount_text
from analytics.cost.priced import BASE_FEE, BASE_FEE_SHARE, COST_LABELS, TOTAL_COST, USAGE_COST
from analytics.cost.prices import PRICED_METRICS, unpriced_text
from analytics.figures.capacity import forecast_figure
from analytics.figures.decision import cost_curve_figure, past_forecasts_figure
from analytics.figures.usage import keys_over_time, minutes_over_time, service_mix, top_keys_bar
from analytics.reports.settings import PageSize
from analytics.usage.calendar import PERIOD_TITLES, auto_granularity, range_text
from analytics.usage.frames import within
from analytics.usage.metrics import (
    METRIC_LABELS,
    METRICS,
    MINUTES,
    TOTAL_CHARACTERS,
    format_value,
    percent_text,
    share_text,
)
from analytics.usage.tables import relative_change, top_n_over_time, top_n_totals, usage_over_time

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


def _number(value: float, metric: str) -> str:
    return format_value(value, metric)


def _numbers(values: Iterable[float], metrics: Iterable[str]) -> list[str]:
    return [_number(v, m) for v, m in zip(values, metrics, strict=True)]


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
    ordered = services.reindex(list(METRICS))
    columns = (ordered[c].to_numpy(dtype=float) for c in ("current", "change %", "yoy %"))
    tiles = [
        '<div class="kpi">'
        f'<div class="label">{html.escape(METRIC_LABELS[metric])}</div>'
        f'<div class="value">{_number(current, metric)}</div>'
        f'<div class="delta">{percent_text(change)} vs previous period · '
        f"{percent_text(yoy)} vs last year</div></div>"
        for metric, current, change, yoy in zip(METRICS, *columns, strict=True)
    ]
    return f'<div class="kpis">{"".join(tiles)}</div>'


def _services_table(services: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Service": [METRIC_LABELS[m] for m in services.index],
            "This period": _numbers(services["current"], services.index),
            "Previous period": _numbers(services["previous"], services.index),
            "Change %": [percent_text(v) for v in services["change %"]],
            "Same period last year": _numbers(services["last_year"], services.index),
            "Year on year %": [percent_text(v) for v in services["yoy %"]],
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
            "Change %": [percent_text(v) for v in keys["change %"]],
        }
    )


def _forecast_rows(table: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Metric": [METRIC_LABELS[m] for m in table["metric"]],
            "Period": [
                f"{PERIOD_TITLES[p]} {range_text(s, e)}"
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


def _amount(value: float, currency: str) -> str:
    """A forecast or budget amount (currency units) as money, to the minor unit."""
    if math.isnan(value):
        return "N/A"
    return amount_text(round(value * 10 ** MINOR_UNITS[currency]), currency)


def _in_unit(values: Iterable[float], metrics: Iterable[str], currency: str | None) -> list[str]:
    """Usage in its metric's format, and cost budgets' values in the currency."""
    return [
        _amount(v, currency) if m == "cost" and currency else _number(v, m)
        for v, m in zip(values, metrics, strict=True)
    ]


def _budget_rows(frame: pd.DataFrame, currency: str | None) -> pd.DataFrame:
    metric = frame["metric"]
    return pd.DataFrame(
        {
            "Budget": frame["budget"],
            "Period": frame["period"],
            "Limit": _in_unit(frame["limit"], metric, currency),
            "Used": _in_unit(frame["used"], metric, currency),
            "Used %": [percent_text(v, signed=False) for v in frame["used %"]],
            "Projected": _in_unit(frame["projected"], metric, currency),
            "Projected %": [percent_text(v, signed=False) for v in frame["projected %"]],
            "Limit reached": frame["reached"],
            "Status": frame["status"],
        }
    )


def _spend_rows(review: CapacityReview, currency: str) -> pd.DataFrame:
    """The range's spend by service, the base fee and the total, against the previous range
    (N/A where it has no prices)."""
    assert review.spend is not None
    lines = [*PRICED_METRICS, USAGE_MINOR, "base_fee_minor", "amount_minor"]
    now = _total(review.spend, lines)
    before = None if review.previous_spend is None else _total(review.previous_spend, lines)
    names = [*(COST_LABELS[m] for m in PRICED_METRICS), USAGE_COST, BASE_FEE, TOTAL_COST]
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
            "Cost so far": [_amount(v, currency) for v in table["actual"]],
            "Projected": [_amount(v, currency) for v in table["projected"]],
        }
    )


def _spend_section(review: CapacityReview, currency: str) -> str:
    """Spend of the range (of its days with a price) and the cost forecast of each period."""
    parts = []
    if review.spend is not None:
        parts += [
            _table(_spend_rows(review, currency), ["Spend"]),
            "<h3>Spend by team</h3>",
            '<p class="note">Usage cost shared between teams pro rata to usage, the base fee '
            "pro rata to usage at list prices; keys no team claims are Unassigned.</p>",
            _table(_team_rows(review.spend, currency), ["Team"]),
        ]
    else:
        parts.append('<p class="note">The usage of the range is not known: no spend.</p>')
    if review.unpriced:
        note = unpriced_text(review.unpriced, "the spend and its forecasts")
        parts.insert(0, f'<p class="note">{html.escape(note)}</p>')
    if review.cost_forecasts is not None and len(review.cost_forecasts):
        parts += [
            "<h3>Spend forecast</h3>",
            '<p class="note">The organization\'s cost, base fee included: the closed days, '
            "then each service's run rate priced to the period's end.</p>",
            _table(_cost_forecast_rows(review.cost_forecasts, currency), ["Period"]),
        ]
    return _section(f"Spend ({currency})", *parts)


def _decision_forecast_rows(table: pd.DataFrame) -> pd.DataFrame:
    metrics = table["metric"]
    return pd.DataFrame(
        {
            "Metric": [METRIC_LABELS[m] for m in metrics],
            "Period": [
                f"{PERIOD_NAMES[p]} to {e:%Y-%m-%d}"
                for p, e in zip(table["period"], table["end"], strict=True)
            ],
            "Used": _numbers(table["used"], metrics),
            "Projected": _numbers(table["projected"], metrics),
            **{
                f"{level} % interval": [
                    f"{_number(lo, m)} – {_number(hi, m)}"
                    for m, lo, hi in zip(
                        metrics, table[f"low_{level}"], table[f"high_{level}"], strict=True
                    )
                ]
                for level in ("80", "95")
            },
            "Model": table["model"],
        }
    )


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


def _option_rows(options: Sequence[Costed], chosen: Costed | None, currency: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Option": [c.name for c in options],
            "Term": [f"{c.term_months} mo" for c in options],
            "Characters a month": [
                _number(c.committed_characters, TOTAL_CHARACTERS) for c in options
            ],
            "Minutes a month": [_number(c.committed_minutes, MINUTES) for c in options],
            "Expected cost": [_amount(c.expected_cost, currency) for c in options],
            "Chance of overage": [share_text(c.overage_chance) for c in options],
            "Unused characters": [_number(c.unused_characters, TOTAL_CHARACTERS) for c in options],
            "Unused minutes": [_number(c.unused_minutes, MINUTES) for c in options],
            "": [
                ", ".join(
                    [
                        *(["recommended"] if chosen is not None and c.name == chosen.name else []),
                        *(["today's plan"] if c.current else []),
                    ]
                )
                for c in options
            ],
        }
    )


def _decision_section(decision: Decision, currency: str | None) -> str:
    """The recommendation, its curve and every option (with a catalogue), the forecasts with
    their accuracy and the backtest's record, and the what-ifs used."""
    found = decision.recommendation
    asked = (
        f"What-ifs: {decision.what_if} · risk setting {share_text(found.risk)} · term "
        f"{decision.term} months"
    )
    parts = [f'<p class="note">{html.escape(asked)}</p>']
    if found.options and currency is not None:
        parts += [
            f"<p><strong>{html.escape(verdict(decision, partial(_amount, currency=currency)))}"
            "</strong></p>",
            _figure(cost_curve_figure(found.curve(), currency, decision.term)),
            _table(_option_rows(found.options, found.chosen, currency), ["Option"]),
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
        f"{html.escape(accuracy_text(found_one))}</p>"
        for metric, found_one in decision.outlooks.items()
    ]
    parts.append(_table(_decision_forecast_rows(decision.forecasts), ["Metric", "Period", "Model"]))
    parts += [
        _figure(past_forecasts_figure(o.recent, metric, o.chosen))
        for metric, o in decision.outlooks.items()
    ]
    parts += [
        "<h3>Accuracy record</h3>",
        '<p class="note">From each month start of the last 24 months, each candidate\'s forecast '
        "of the month, quarter and 12 months ahead against what happened: WAPE and the share "
        "of actual totals inside the 80 % and 95 % intervals.</p>",
        _table(_accuracy_rows(decision.accuracy), ["Metric", "Candidate", "Horizon"]),
    ]
    return _section("Decision", *parts)


def render(
    key_day: pd.DataFrame,
    review: CapacityReview,
    title: str = "Capacity review",
    key_limits: Sequence[Evaluation] = (),
    page_size: PageSize = "A4",
    decision: Decision | None = None,
) -> str:
    """The review as one HTML page, with usage charts of its range from ``key_day`` (which
    covers at least that range), and each key against its own limits (``key_limits``, as
    ``analytics.keys.limits`` evaluates them) when there are any, and the capacity
    ``decision`` (its options priced in the review's currency, the pricing file's) when given;
    printed (by a browser or ``pdf.html_to_pdf``) on ``page_size`` paper."""
    start, end = review.start, review.end
    comparison = review.comparison
    period = within(key_day, start, end)
    granularity = auto_granularity(start, end)
    over_time = usage_over_time(period, start, end, granularity)
    top = top_n_over_time(period, "total_characters", CHART_KEYS, start, end, granularity)
    top_totals = top_n_totals(period, "total_characters", TOP_KEYS)

    notes = "".join(
        f'<p class="note">Warning: totals do not reconcile: {html.escape(m)}</p>'
        for m in review.mismatches
    )
    header = (
        f"<header><h1>{html.escape(title)}</h1>"
        f'<p class="meta">Period {range_text(start, end)} (UTC days) · compared with the '
        f"{html.escape(comparison_text(comparison))} · "
        f"forecasts as of {review.today:%Y-%m-%d} · contract year starts {review.year_start}"
        f"</p>{notes}</header>"
    )
    sections = [
        _section(
            "Summary",
            _kpis(comparison.services),
            _table(_services_table(comparison.services), ["Service"]),
        ),
        _section(
            "Usage by service",
            _figure(service_mix(over_time, granularity)),
            _figure(minutes_over_time(over_time, granularity)),
        ),
        _section(
            "Usage by key",
            _figure(keys_over_time(top, "total_characters", granularity)),
            _figure(top_keys_bar(top_totals, "total_characters")),
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
            _table(_keys_table(review.drivers(DRIVERS), comparison.metric), ["Key", "Masked key"]),
        ),
        _section(
            "Forecasts",
            f'<p class="note">{html.escape(review.forecast_note)}</p>',
            *(_figure(forecast_figure(path)) for path in review.paths),
            _table(_forecast_rows(review.forecasts), ["Metric", "Period"]),
            "<h3>Total characters this month: keys with the largest projections</h3>",
            _table(_key_forecast_rows(review.key_forecasts.head(TOP_KEYS)), ["Key", "Masked key"]),
        ),
    ]
    if decision is not None:
        sections.append(_decision_section(decision, review.currency))
    if review.currency is not None:
        sections.append(_spend_section(review, review.currency))
    if review.evaluations is not None:
        budgets = evaluation_frame(review.evaluations, review.currency or "")
        sections.append(
            _section(
                "Budget status",
                _table(_budget_rows(budgets, review.currency), ["Budget", "Period"]),
            )
        )
    if key_limits:
        limits = evaluation_frame(key_limits)
        sections.append(
            _section(
                "Keys against their own limits",
                '<p class="note">Each key\'s limits per usage period (the billing period), '
                "as the service enforces them.</p>",
                _table(_budget_rows(limits, None), ["Budget", "Period"]),
            )
        )
    body = header + "".join(sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>"
        f"<style>{STYLE}@page {{ size: {page_size}; margin: 12mm; }}</style>"
        f'<script type="text/javascript">{plotly.offline.get_plotlyjs()}</script>'
        f"</head><body>{body}</body></html>\n"
    )
