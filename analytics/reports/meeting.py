"""The capacity meeting report: one self-contained HTML file.

Everything the file needs is inside it: each figure as a div with its JSON, then plotly.js's
basic bundle once, packed small enough to mail, which draws them (`plotlyjs`). No web fonts, no
CDN, no external links, so the report opens offline, can be mailed as an attachment, and
prints on white with page breaks between sections. A review built with prices adds a Spend
section (the range's spend by service and by team against the previous period, the cost
forecast of each period) and budget status in the currency. Given the capacity decision, a
Decision section carries the recommendation, the curve it was chosen from, the forecasts with
their accuracy record and the what-ifs used.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

import pandas as pd

from analytics.capacity import (
    CapacityReview,
    Decision,
    Evaluation,
    comparison_text,
    evaluation_frame,
)
from analytics.figures import (
    forecast_figure,
    keys_over_time,
    minutes_over_time,
    service_mix,
    top_keys_bar,
)
from analytics.reports import blocks, plotlyjs
from analytics.reports.decision import decision_section
from analytics.reports.paper import PageSize
from analytics.reports.spend import spend_section
from analytics.usage import (
    METRIC_LABELS,
    METRICS,
    auto_granularity,
    percent_text,
    range_text,
    top_n_over_time,
    top_n_totals,
    usage_over_time,
    within,
)

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
.warning { color: #9a5a00; font-weight: 600; }
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


def _kpis(services: pd.DataFrame) -> str:
    ordered = services.reindex(list(METRICS))
    columns = (ordered[c].to_numpy(dtype=float) for c in ("current", "change %", "yoy %"))
    tiles = [
        '<div class="kpi">'
        f'<div class="label">{html.escape(METRIC_LABELS[metric])}</div>'
        f'<div class="value">{blocks.number(current, metric)}</div>'
        f'<div class="delta">{percent_text(change)} vs previous period · '
        f"{percent_text(yoy)} vs last year</div></div>"
        for metric, current, change, yoy in zip(METRICS, *columns, strict=True)
    ]
    return f'<div class="kpis">{"".join(tiles)}</div>'


def _services_table(services: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Service": [METRIC_LABELS[m] for m in services.index],
            "This period": blocks.numbers(services["current"], services.index),
            "Previous period": blocks.numbers(services["previous"], services.index),
            "Change %": [percent_text(v) for v in services["change %"]],
            "Same period last year": blocks.numbers(services["last_year"], services.index),
            "Year on year %": [percent_text(v) for v in services["yoy %"]],
        }
    )


def _keys_table(keys: pd.DataFrame, metric: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Key": keys["api_key_label"].astype(str),
            "Masked key": keys["api_key"].astype(str),
            "Previous period": [blocks.number(v, metric) for v in keys["previous"]],
            "This period": [blocks.number(v, metric) for v in keys["current"]],
            "Change": [blocks.number(v, metric) for v in keys["change"]],
            "Change %": [percent_text(v) for v in keys["change %"]],
        }
    )


def _bands(table: pd.DataFrame, metrics: Iterable[str]) -> list[str]:
    return [
        f"{blocks.number(lo, m)} – {blocks.number(hi, m)}"
        for m, lo, hi in zip(metrics, table["low"], table["high"], strict=True)
    ]


def _key_forecast_rows(table: pd.DataFrame) -> pd.DataFrame:
    metric = ["total_characters"] * len(table)
    return pd.DataFrame(
        {
            "Key": table["api_key_label"],
            "Masked key": table["api_key"],
            "Used so far": blocks.numbers(table["actual"], metric),
            "Projected": blocks.numbers(table["projected"], metric),
            "80 % interval": _bands(table, metric),
        }
    )


def _budget_rows(frame: pd.DataFrame, currency: str | None) -> pd.DataFrame:
    metric = frame["metric"]
    return pd.DataFrame(
        {
            "Budget": frame["budget"],
            "Period": frame["period"],
            "Limit": blocks.in_unit(frame["limit"], metric, currency),
            "Used": blocks.in_unit(frame["used"], metric, currency),
            "Used %": [percent_text(v, signed=False) for v in frame["used %"]],
            "Projected": blocks.in_unit(frame["projected"], metric, currency),
            "Projected %": [percent_text(v, signed=False) for v in frame["projected %"]],
            "Limit reached": frame["reached"],
            "Status": frame["status"],
        }
    )


def team_note(scope: str) -> str:
    """The one line a team's review says of what it leaves out (``scope``: its name, e.g.
    "team Web shop"), in the report and on the Capacity page alike."""
    return (
        f"One team's review ({scope}): the organization-wide budgets, the plan's limits, the "
        "cost forecasts and the capacity decision are the organization's figures and are left "
        "out; its spend is its rows of Chargeback, as export --team --with-cost writes them"
    )


def render(
    key_day: pd.DataFrame,
    review: CapacityReview,
    title: str = "Capacity review",
    budgets: Sequence[Evaluation] | None = None,
    key_limits: Sequence[Evaluation] = (),
    page_size: PageSize = "A4",
    decision: Decision | None = None,
    scope_note: str | None = None,
) -> str:
    """The review as one HTML page, with usage charts of its range from ``key_day`` (which
    covers at least that range), the ``budgets``' status (``budgets.budget_status``'s, the one
    ``check-budgets`` prints and the Capacity page shows; None without a budgets file), each
    key against its own limits (``key_limits``, as
    ``analytics.keys.limits`` evaluates them) when there are any, and the capacity
    ``decision`` (its options priced in the review's currency, the pricing file's) when given;
    printed (by a browser or ``pdf.html_to_pdf``) on ``page_size`` paper. ``scope_note`` says
    under the title what a team's report leaves out."""
    sections = _usage_sections(key_day, review)
    if decision is not None:
        sections.append(decision_section(decision, review.currency, review.year_start))
    if review.currency is not None:
        sections.append(spend_section(review, review.currency))
    sections.extend(_limit_sections(review.currency, budgets, key_limits))
    header = _header(review, title, scope_note)
    body = header + "".join(sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>"
        f"<style>{STYLE}@page {{ size: {page_size}; margin: 12mm; }}</style>"
        f"</head><body>{body}{plotlyjs.library()}</body></html>\n"
    )


def _header(review: CapacityReview, title: str, scope_note: str | None) -> str:
    """The title, the range and what it is compared with, and the notes a reader must see
    first: what a team's report leaves out, and totals that do not reconcile."""
    notes = "".join(
        f'<p class="note">Warning: totals do not reconcile: {html.escape(m)}</p>'
        for m in review.mismatches
    )
    if scope_note is not None:
        notes = f'<p class="note">{html.escape(scope_note)}</p>{notes}'
    return (
        f"<header><h1>{html.escape(title)}</h1>"
        f'<p class="meta">Period {range_text(review.start, review.end)} (UTC days) · compared '
        f"with the {html.escape(comparison_text(review.comparison))} · "
        f"forecasts as of {review.today:%Y-%m-%d} · contract year starts {review.year_start}"
        f"</p>{notes}</header>"
    )


def _usage_sections(key_day: pd.DataFrame, review: CapacityReview) -> list[str]:
    """The sections every review has, from the range's usage in ``key_day``: the summary, usage
    by service and by key, the growth drivers and the forecasts."""
    start, end = review.start, review.end
    comparison = review.comparison
    period = within(key_day, start, end)
    granularity = auto_granularity(start, end)
    over_time = usage_over_time(period, start, end, granularity)
    top = top_n_over_time(period, "total_characters", CHART_KEYS, start, end, granularity)
    top_totals = top_n_totals(period, "total_characters", TOP_KEYS)
    return [
        blocks.section(
            "Summary",
            _kpis(comparison.services),
            blocks.table(_services_table(comparison.services), ["Service"]),
        ),
        blocks.section(
            "Usage by service",
            blocks.figure(service_mix(over_time, granularity)),
            blocks.figure(minutes_over_time(over_time, granularity)),
        ),
        blocks.section(
            "Usage by key",
            blocks.figure(keys_over_time(top, "total_characters", granularity)),
            blocks.figure(top_keys_bar(top_totals, "total_characters")),
            "<h3>Top keys by total characters</h3>",
            blocks.table(
                _keys_table(comparison.keys.head(TOP_KEYS), comparison.metric),
                ["Key", "Masked key"],
            ),
        ),
        blocks.section(
            "Growth drivers",
            '<p class="note">Keys whose total characters changed most against the previous '
            "period.</p>",
            blocks.table(
                _keys_table(review.drivers(DRIVERS), comparison.metric), ["Key", "Masked key"]
            ),
        ),
        blocks.section(
            "Forecasts",
            *_forecast_figures(review),
            "<h3>Total characters this month: keys with the largest projections</h3>",
            blocks.table(
                _key_forecast_rows(review.key_forecasts.head(TOP_KEYS)), ["Key", "Masked key"]
            ),
        ),
    ]


def _forecast_figures(review: CapacityReview) -> list[str]:
    """Each measure's forecast charts under its own note, as the page's tab states it: the
    accuracy of that measure's forecast, not another's."""
    parts = []
    for paths in review.paths_by_label.values():
        parts.append(f'<p class="note">{html.escape(review.forecast_note(paths[0].metric))}</p>')
        parts += [blocks.figure(forecast_figure(path)) for path in paths]
    return parts


def _limit_sections(
    currency: str | None,
    budgets: Sequence[Evaluation] | None,
    key_limits: Sequence[Evaluation],
) -> list[str]:
    """The budgets' status when there is a budgets file, and each key against its own limits
    when any has one: the sections a report without them leaves out."""
    sections = []
    if budgets is not None:
        status = evaluation_frame(budgets, currency or "")
        sections.append(
            blocks.section(
                "Budget status",
                blocks.table(_budget_rows(status, currency), ["Budget", "Period"]),
            )
        )
    if key_limits:
        limits = evaluation_frame(key_limits)
        sections.append(
            blocks.section(
                "Keys against their own limits",
                '<p class="note">Each key\'s limits per usage period (the billing period), '
                "as the service enforces them.</p>",
                blocks.table(_budget_rows(limits, None), ["Budget", "Period"]),
            )
        )
    return sections
