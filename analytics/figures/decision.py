"""Plotly figures of the capacity decision: the forecast's record (past month-ahead forecasts
as they were served, each by the model chosen then, with the 80 % interval known when each
was made, against what happened) and the curve of
expected cost against committed volume with the recommendation and today's plan marked."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from analytics.figures.layout import HEIGHT, framed
from analytics.figures.theme import CURRENT_COLOR, PALETTE, RECOMMENDED_COLOR
from analytics.figures.usage import band, line, number_format, tick_format, value_format
from analytics.usage import METRIC_LABELS, TOTAL_CHARACTERS, share_text


def past_forecasts_figure(rows: pd.DataFrame, metric: str) -> go.Figure:
    """Each month's forecast as it was served on the month's first day (``rows``: a
    backtest's served month-ahead rows, ``origin``, ``candidate``, ``forecast``, ``actual``,
    ``low_80``, ``high_80``) and its actual total; the band is the 80 % interval of the months
    that had one. The model is the one chosen then, which may differ from month to month and
    from today's: the line names it when it never changed, and each point's hover names it."""
    fmt = number_format(metric)
    x = [f"{origin:%Y-%m}" for origin in rows["origin"]]
    fig = go.Figure()
    known = rows["low_80"].notna()
    banded = [month for month, has in zip(x, known, strict=True) if has]
    high, low = rows.loc[known, "high_80"], rows.loc[known, "low_80"]
    fig.add_traces(band(banded, high, low, "80 % interval", ("80 % low", "80 % high"), fmt))
    models = list(dict.fromkeys(rows["candidate"]))
    served = line(
        x,
        rows["forecast"],
        f"Forecast as served ({models[0]})" if len(models) == 1 else "Forecast as served",
        "forecast",
        fmt,
        line={"color": PALETTE[0], "dash": "dash"},
    )
    served.update(
        mode="lines+markers",
        customdata=[[model] for model in rows["candidate"]],
        hovertemplate=f"forecast (%{{customdata[0]}}): %{{y:{fmt}}}<extra></extra>",
    )
    fig.add_trace(served)
    fig.add_trace(
        line(
            x,
            rows["actual"],
            "What happened",
            "actual",
            fmt,
            line={"color": PALETTE[0], "width": 3},
        ).update(mode="lines+markers")
    )
    fig.update_layout(
        height=HEIGHT,
        hovermode="x unified",
        yaxis_title=f"{METRIC_LABELS[metric]} in the month",
        yaxis_tickformat=tick_format(metric),
        xaxis_title="Month forecast on its first day (UTC)",
    )
    return framed(fig, title=f"{METRIC_LABELS[metric]} — month-ahead forecasts against actuals")


def cost_curve_figure(curve: pd.DataFrame, currency: str, term: int) -> go.Figure:
    """Every option's expected cost over the ``term`` months against its committed characters
    a month (``Recommendation.curve``), the recommendation and today's plan marked."""
    money = value_format(TOTAL_CHARACTERS, currency)
    characters = number_format(TOTAL_CHARACTERS)
    hover = (
        f"%{{customdata[0]}}<br>committed: %{{x:{characters}}} characters a month<br>"
        f"expected cost: %{{y:{money}}} {currency}<br>chance of overage: %{{customdata[1]}}"
        "<extra></extra>"
    )

    def points(rows: pd.DataFrame, name: str, **style: object) -> go.Scatter:
        return go.Scatter(
            x=rows["committed_characters"].tolist(),
            y=rows["expected_cost"].round(2).tolist(),
            customdata=[
                [option, share_text(chance)]
                for option, chance in zip(rows["option"], rows["overage_chance"], strict=True)
            ],
            name=name,
            hovertemplate=hover,
            **style,
        )

    fig = go.Figure()
    fig.add_trace(
        points(
            curve, "Options", mode="lines+markers", line={"color": PALETTE[0]}, marker={"size": 8}
        )
    )
    for column, name, color, symbol in (
        ("recommended", "Recommended", RECOMMENDED_COLOR, "star"),
        ("current", "Today's plan", CURRENT_COLOR, "diamond"),
    ):
        marked = curve[curve[column]]
        if len(marked):
            fig.add_trace(
                points(
                    marked,
                    name,
                    mode="markers",
                    marker={"color": color, "size": 16, "symbol": symbol},
                )
            )
    fig.update_layout(
        height=HEIGHT,
        hovermode="closest",
        xaxis_title="Committed characters a month",
        xaxis_tickformat=tick_format(TOTAL_CHARACTERS),
        yaxis_title=f"Expected cost over {term} months ({currency})",
        yaxis_tickformat=tick_format(TOTAL_CHARACTERS, currency),
    )
    return framed(fig, title=f"Expected cost of the next {term} months against committed volume")
