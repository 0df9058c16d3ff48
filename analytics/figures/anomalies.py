"""Plotly figure of one anomaly: the key's days around it against what was usual."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from analytics.figures.layout import HEIGHT, framed
from analytics.figures.theme import BAND_FILL, LIMIT_COLOR, PALETTE
from analytics.figures.usage import line, number_format, tick_format
from analytics.usage import METRIC_LABELS


def anomaly_figure(window: pd.DataFrame, metric: str, title: str) -> go.Figure:
    """Daily usage as bars, the anomaly's days in red, over the band from the usual day
    (dashed) to the spike bound; no band on days without enough history.

    `window` is `analytics.anomalies.listing.anomaly_window`'s frame."""
    x = [f"{day:%Y-%m-%d}" for day in window["usage_date"]]
    fmt = number_format(metric)
    y_title = METRIC_LABELS[metric]
    fig = go.Figure()
    # The band where a day had a baseline, one stretch of judged days at a time.
    judged = window["bound"].notna().to_numpy()
    starts = [i for i in range(len(x)) if judged[i] and (i == 0 or not judged[i - 1])]
    for n, start in enumerate(starts):
        stop = next((i for i in range(start, len(x)) if not judged[i]), len(x))
        days = x[start:stop]
        fig.add_trace(
            go.Scatter(
                x=days + days[::-1],
                y=window["bound"].iloc[start:stop].round(2).tolist()
                + window["expected"].iloc[start:stop].round(2).tolist()[::-1],
                mode="lines",
                line={"width": 0},
                fill="toself",
                fillcolor=BAND_FILL,
                name="Usual range (up to the spike bound)",
                legendgroup="band",
                showlegend=n == 0,
                hoverinfo="skip",
            )
        )
    fig.add_trace(
        go.Bar(
            x=x,
            y=window["observed"].round(2).tolist(),
            marker_color=[LIMIT_COLOR if a else PALETTE[0] for a in window["anomalous"]],
            name="Used",
            hovertemplate=f"used: %{{y:{fmt}}}<extra></extra>",
        )
    )
    dashed = {"color": PALETTE[1], "dash": "dash"}
    usual = "Usual day"
    fig.add_trace(line(x, window["expected"], usual, "usual", fmt, line=dashed))
    hidden = {"line": {"width": 0}, "showlegend": False}
    fig.add_trace(line(x, window["bound"], "Spike bound", "spike bound", fmt, **hidden))
    fig.update_layout(
        height=HEIGHT,
        hovermode="x unified",
        yaxis={"title": y_title, "tickformat": tick_format(metric), "rangemode": "nonnegative"},
        xaxis_title="Day (UTC)",
        bargap=0.15,
    )
    return framed(fig, title=title)
