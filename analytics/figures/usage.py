"""Plotly figures of usage: small prepared tables in, `go.Figure` out.

Characters and minutes never share an axis; a figure gets at most top-N + Other series, so
its JSON stays small whatever the size of the organization.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from analytics.cost import COST_LABELS, MINOR_UNITS, PRICED_METRICS
from analytics.figures.layout import HEIGHT, framed
from analytics.figures.theme import BAND_FILL, HEAT_SCALE, OTHER_COLOR, PALETTE, UNTAGGED_COLOR
from analytics.usage import (
    METRIC_LABELS,
    MINUTE_METRICS,
    OTHER,
    SERVICE_CHARACTERS,
    SERVICE_LABELS,
    TAG_LABELS,
    TOTAL_CHARACTERS,
    UNTAGGED,
    Granularity,
    decimals,
    is_minutes,
)

PERIOD_AXIS = {"day": "Day (UTC)", "week": "Week starting (UTC)", "month": "Month (UTC)"}


def number_format(metric: str) -> str:
    """Hover numbers: whole characters, minutes to the hundredth (``metrics.decimals``)."""
    return f",.{decimals(metric)}f"


def value_title(metric: str, currency: str | None = None) -> str:
    """A chart's value axis: the metric, or its cost in ``currency`` (a priced frame)."""
    return METRIC_LABELS[metric] if currency is None else f"{COST_LABELS[metric]} ({currency})"


def value_format(metric: str, currency: str | None = None) -> str:
    """Hover numbers of a metric, or of amounts to the currency's minor unit."""
    return number_format(metric) if currency is None else f",.{MINOR_UNITS[currency]}f"


def line(
    x: Sequence[str], y: pd.Series, name: str, hover: str, fmt: str, **style: Any
) -> go.Scatter:
    """A line of `y` over `x` that hovers as ``hover: value``; `style` sets its line, fill and
    legend."""
    return go.Scatter(
        x=list(x),
        y=y.round(2).tolist(),
        mode="lines",
        name=name,
        hovertemplate=f"{hover}: %{{y:{fmt}}}<extra></extra>",
        **style,
    )


def band(
    x: Sequence[str], high: pd.Series, low: pd.Series, name: str, hovers: tuple[str, str], fmt: str
) -> list[go.Scatter]:
    """A band filled from `low` up to `high` (the high edge first, so the low one fills to
    it), named `name` once in the legend; each edge hovers as its own of `hovers` (low, high).
    A band with no width anywhere (a cost projection, whose bounds are its point) or without
    bounds is not drawn, and so not named: a legend names only what the chart draws."""
    if not (high.to_numpy(dtype=float) > low.to_numpy(dtype=float)).any():
        return []
    hidden, shown = (
        {"line": {"width": 0}, "fill": fill, "fillcolor": BAND_FILL, "showlegend": fill is not None}
        for fill in (None, "tonexty")
    )
    return [
        line(x, high, f"{name} high", hovers[1], fmt, **hidden),
        line(x, low, name, hovers[0], fmt, **shown),
    ]


def _layout(fig: go.Figure, granularity: Granularity, y_title: str, ticks: str) -> go.Figure:
    fig.update_layout(
        height=HEIGHT,
        hovermode="x unified",
        xaxis_title=PERIOD_AXIS[granularity],
        yaxis={"title": y_title, "tickformat": ticks, "rangemode": "nonnegative"},
    )
    return framed(fig)


def tick_format(metric: str, currency: str | None = None) -> str:
    """An axis's numbers: amounts as the currency writes them (0.50, where SI would read
    500m), minutes as plain decimals (likewise), characters with SI suffixes (120k)."""
    if currency is not None:
        return value_format(metric, currency)
    return ",~f" if is_minutes(metric) else ",~s"


def _color(index: int, name: str) -> str:
    """Named series in the palette; Other and Untagged in greys, the lighter one untagged."""
    return {OTHER: OTHER_COLOR, UNTAGGED: UNTAGGED_COLOR}.get(name, PALETTE[index % len(PALETTE)])


def _dates(index: pd.Index) -> list[str]:
    return [f"{d:%Y-%m-%d}" for d in pd.DatetimeIndex(index)]


def service_mix(over_time: pd.DataFrame, granularity: Granularity) -> go.Figure:
    """Stacked areas of characters per service (text, document, improvement); a custom tag's
    table has no documents, and shows the other two."""
    fig = go.Figure()
    x = _dates(over_time.index)
    for trace, color in _per_service(over_time):
        fig.add_trace(
            go.Scatter(
                x=x,
                stackgroup="characters",
                line={"width": 0.5, "color": color},
                fillcolor=color,  # opaque: plotly's own half-transparent fill fades on both pages
                **trace,
            )
        )
    return _layout(fig, granularity, "Characters", tick_format(TOTAL_CHARACTERS))


def _per_service(over_time: pd.DataFrame) -> list[tuple[dict[str, object], str]]:
    """The values, name and hover text of each service's characters in the table, with its
    colour (one colour per service wherever it appears)."""
    return [
        (
            {
                "y": over_time[metric].tolist(),
                "name": SERVICE_LABELS[metric],
                "hovertemplate": "%{y:,.0f}",
            },
            PALETTE[i],
        )
        for i, metric in enumerate(SERVICE_CHARACTERS)
        if metric in over_time
    ]


def _minutes_bars(over_time: pd.DataFrame, x: list[str]) -> list[go.Bar]:
    """Minutes per period, one bar per speech service side by side: one look wherever they
    appear, never stacked onto characters or onto each other."""
    return [
        go.Bar(
            x=x,
            y=over_time[metric].round(2).tolist(),
            name=SERVICE_LABELS[metric],
            marker_color=PALETTE[3 + i],
            hovertemplate="%{y:,.2f} min",
            offsetgroup=metric,  # beside each other even in a stacked figure
        )
        for i, metric in enumerate(MINUTE_METRICS)
    ]


def cost_by_service(over_time: pd.DataFrame, granularity: Granularity, currency: str) -> go.Figure:
    """What each priced service cost per period (currency units), stacked: money adds up
    where characters and minutes do not; each service in its colour of the usage charts."""
    x = _dates(over_time.index)
    colors = dict(zip(SERVICE_CHARACTERS, PALETTE, strict=False))
    colors |= dict(zip(MINUTE_METRICS, PALETTE[3:], strict=False))
    fmt = value_format(PRICED_METRICS[0], currency)
    fig = go.Figure(
        [
            go.Bar(
                x=x,
                y=over_time[metric].tolist(),
                name=SERVICE_LABELS[metric],
                marker_color=colors[metric],
                hovertemplate=f"%{{y:{fmt}}} {currency}",
            )
            for metric in PRICED_METRICS
        ]
    )
    fig.update_layout(barmode="stack")
    return _layout(fig, granularity, f"Cost ({currency})", fmt)


def minutes_over_time(over_time: pd.DataFrame, granularity: Granularity) -> go.Figure:
    """Speech minutes per period, as grouped bars on their own axis."""
    fig = go.Figure(_minutes_bars(over_time, _dates(over_time.index)))
    fig.update_layout(barmode="group")
    return _layout(fig, granularity, "Minutes", tick_format(MINUTE_METRICS[0]))


def keys_over_time(
    wide: pd.DataFrame,
    metric: str,
    granularity: Granularity,
    kind: Literal["bar", "line"] = "bar",
    currency: str | None = None,
) -> go.Figure:
    """One series per column of a top-N + Other table (keys, teams, or tags with Untagged):
    stacked bars, or lines for running views; amounts in ``currency`` when given."""
    fig = go.Figure()
    x = _dates(wide.index)
    fmt = value_format(metric, currency)
    for i, name in enumerate(wide.columns):
        y = wide[name].round(2).tolist()
        color = _color(i, name)
        hover = f"%{{y:{fmt}}}"
        if kind == "bar":
            fig.add_trace(go.Bar(x=x, y=y, name=name, marker_color=color, hovertemplate=hover))
        else:
            fig.add_trace(
                go.Scatter(
                    x=x, y=y, name=name, mode="lines", line={"color": color}, hovertemplate=hover
                )
            )
    fig.update_layout(barmode="stack", clickmode="event+select")
    return _layout(fig, granularity, value_title(metric, currency), tick_format(metric, currency))


def tags_over_time(wide: pd.DataFrame, metric: str, granularity: Granularity) -> go.Figure:
    """`keys_over_time` of tags (top-N, Other and Untagged), its axis named as the Tags page
    names the metric: a tag's total is text characters, never "Total characters"."""
    fig = keys_over_time(wide, metric, granularity)
    fig.update_yaxes(title_text=TAG_LABELS[metric])
    return fig


def top_keys_bar(totals: pd.Series, metric: str, currency: str | None = None) -> go.Figure:
    """Horizontal bars of the top-N keys (or teams) and Other over the whole range, largest on
    top; amounts in ``currency`` when given."""
    names = list(totals.index)
    fmt = value_format(metric, currency)
    fig = go.Figure(
        go.Bar(
            x=totals.round(2).tolist(),
            y=names,
            orientation="h",
            marker_color=[_color(0, name) for name in names],
            hovertemplate=f"%{{y}}: %{{x:{fmt}}}<extra></extra>",
        )
    )
    fig.update_layout(
        height=max(200, 28 * len(names) + 80),
        yaxis={"autorange": "reversed"},
        xaxis_title=value_title(metric, currency),
        xaxis_tickformat=tick_format(metric, currency),
        showlegend=False,
    )
    return framed(fig)


def key_usage_by_service(over_time: pd.DataFrame, granularity: Granularity) -> go.Figure:
    """One key's usage: characters per service stacked above, minutes below on a separate axis;
    a key with only one kind of usage gets that chart alone (an empty 0–1 axis reads as data),
    and only the services it used."""
    used = over_time.loc[:, over_time.sum() > 0]
    parts = [
        (title, axis, metric)
        for title, axis, metric, metrics in (
            ("Characters by service", "Characters", TOTAL_CHARACTERS, SERVICE_CHARACTERS),
            ("Speech minutes", "Minutes", MINUTE_METRICS[0], MINUTE_METRICS),
        )
        if any(m in used for m in metrics)
    ] or [("Characters by service", "Characters", TOTAL_CHARACTERS)]
    both = len(parts) == 2
    fig = make_subplots(
        rows=len(parts),
        cols=1,
        shared_xaxes=True,
        row_heights=[0.68, 0.32] if both else None,
        vertical_spacing=0.08,
        subplot_titles=[title for title, _, _ in parts],
    )
    x = _dates(over_time.index)
    for row, (_, axis, metric) in enumerate(parts, start=1):
        traces = (
            [go.Bar(x=x, marker_color=color, **trace) for trace, color in _per_service(used)]
            if axis == "Characters"
            else [
                bars
                for m, bars in zip(MINUTE_METRICS, _minutes_bars(over_time, x), strict=True)
                if m in used
            ]
        )
        for trace in traces:
            fig.add_trace(trace, row=row, col=1)
        fig.update_yaxes(title_text=axis, tickformat=tick_format(metric), row=row, col=1)
    fig.update_layout(barmode="stack", height=HEIGHT + (120 if both else 0), hovermode="x unified")
    fig.update_yaxes(rangemode="nonnegative")
    fig.update_xaxes(title_text=PERIOD_AXIS[granularity], row=len(parts), col=1)
    return framed(fig, titled=True)


def pair_heatmap(matrix: pd.DataFrame, metric: str) -> go.Figure:
    """Sources down, targets across (biggest first), coloured by `metric`: where an
    organization's usage concentrates, and which pairs it never uses (blank)."""
    # Plain lists with None, not a typed array: pairs without usage are gaps, not zero.
    values = [[v if v > 0 else None for v in line] for line in matrix.to_numpy().tolist()]
    label = METRIC_LABELS[metric]
    fig = go.Figure(
        go.Heatmap(
            z=values,
            x=[str(c) for c in matrix.columns],
            y=[str(i) for i in matrix.index],
            colorscale=[[0, HEAT_SCALE[0]], [1, HEAT_SCALE[1]]],
            colorbar={"title": label, "tickformat": tick_format(metric)},
            hovertemplate=f"%{{y}} → %{{x}}<br>%{{z:{number_format(metric)}}}<extra></extra>",
            hoverongaps=False,
        )
    )
    fig.update_layout(
        height=max(HEIGHT, 24 * len(matrix) + 120),
        xaxis={"title": "Target language", "type": "category"},
        yaxis={"title": "Source language", "type": "category", "autorange": "reversed"},
    )
    return framed(fig)
