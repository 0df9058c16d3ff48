"""Plotly figures of the capacity review: cumulative usage (or cost), its forecast band and
budget lines."""

from __future__ import annotations

import plotly.graph_objects as go

from analytics.capacity import COST, ForecastPath
from analytics.figures.layout import HEIGHT, framed
from analytics.figures.theme import LIMIT_COLOR, PALETTE, WARNING_COLOR
from analytics.figures.usage import (
    band,
    line,
    number_format,
    tick_format,
    value_format,
)
from analytics.usage import share_text


def forecast_figure(forecast: ForecastPath) -> go.Figure:
    """Cumulative usage of a period: the actual line, the expected line and its 80 % interval
    (where it has a width); each budget limit adds a limit line, named beside it, and a dotted
    warning line, named in the legend as the budget's warning level."""
    path, metric = forecast.path, forecast.metric
    x = [f"{d:%Y-%m-%d}" for d in path["day"]]
    fmt = value_format(metric, forecast.currency) if metric == COST else number_format(metric)
    y_title = f"{forecast.label} (cumulative)"
    future = path["actual"].isna()
    # The forecast starts from the last actual point so the two lines join.
    joined = future | future.shift(-1, fill_value=False)
    x_ahead = [v for v, keep in zip(x, joined, strict=True) if keep]
    fig = go.Figure()
    high, low = path.loc[joined, "high"], path.loc[joined, "low"]
    fig.add_traces(band(x_ahead, high, low, "80 % interval", ("low", "high"), fmt))
    dashed = {"color": PALETTE[0], "dash": "dash"}
    fig.add_trace(
        line(x_ahead, path.loc[joined, "expected"], "Forecast", "forecast", fmt, line=dashed)
    )
    closed = [v for v, done in zip(x, ~future, strict=True) if done]
    thick = {"color": PALETTE[0], "width": 3}
    fig.add_trace(line(closed, path.loc[~future, "actual"], "Used", "used", fmt, line=thick))
    for limit in forecast.limits:
        fig.add_hline(
            y=limit.limit, line={"color": LIMIT_COLOR, "width": 2}, annotation_text=limit.name
        )
        fig.add_hline(
            y=limit.warning,
            line={"color": WARNING_COLOR, "dash": "dot"},
            name=f"{limit.name}: warning at {share_text(limit.warning_at)}",
            showlegend=True,
        )
    fig.update_layout(
        height=HEIGHT,
        hovermode="x unified",
        yaxis_title=y_title,
        yaxis_tickformat=tick_format(metric, forecast.currency if metric == COST else None),
        xaxis_title="Day (UTC)",
    )
    return framed(fig, title=forecast.title)
