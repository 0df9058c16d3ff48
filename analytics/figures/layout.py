"""The one frame every figure takes: where its title, legend and plotly's toolbar go (its
colours are `theme`'s).

Plotly shows its toolbar at the top right of a figure while the pointer is over it (the
dashboard's fullscreen button sits beside it). The top of every figure is therefore a row kept
for the toolbar alone; a title goes on a row of its own below it, and the legend below the
plot, left-aligned, wrapping onto as many rows as it needs: a long legend of key names never
runs under the toolbar, and nothing covers a title, an axis title or a tick label.
"""

from __future__ import annotations

import plotly.graph_objects as go

HEIGHT = 380
TOOLBAR_ROW = 32  # px at the top of a figure that only the toolbar uses
TITLE_ROW = 26  # px below it for a title (or the titles of stacked charts)
SIDE_MARGIN = 10


def framed(fig: go.Figure, *, title: str | None = None, titled: bool = False) -> go.Figure:
    """`fig` in the shared frame: the toolbar's row on top, then `title` (or, with `titled`,
    the titles a figure already carries, such as stacked charts'), the plot, and its legend
    along the bottom of the figure (the plot gives up the height the legend takes)."""
    fig.update_layout(
        margin={
            "l": SIDE_MARGIN,
            "r": SIDE_MARGIN,
            "t": TOOLBAR_ROW + (TITLE_ROW if title or titled else 0),
            "b": SIDE_MARGIN,
        },
        legend={
            "orientation": "v",
            "x": 1.02,
            "xanchor": "left",
            "y": 1,
            "yanchor": "top",
            "traceorder": "normal",
        },
    )
    if title is not None:
        fig.update_layout(
            title={
                "text": title,
                "x": 0,
                "xref": "paper",
                "yref": "container",
                "y": 1,
                "yanchor": "top",
                "pad": {"t": TOOLBAR_ROW},
                "font": {"size": 14},
            }
        )
    return fig
