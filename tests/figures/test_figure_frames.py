"""Plotly's toolbar and a figure's legend cover no title, axis title or tick label, and the
legend covers no axis: every figure drawn by plotly.js in chromium, with the toolbar shown, at
the width of a page column (440 px) and of a whole page (900 px), and what each element
covers measured on the drawn page."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pandas as pd
import plotly.graph_objects as go
import pytest
from playwright.sync_api import sync_playwright
from plotly.offline import get_plotlyjs
from support.browsers import CHROMIUM, fresh_browser, unavailable
from support.builders import make_key_day, month_projection

from analytics.capacity.capacity_review import ForecastPath, Limit
from analytics.figures import usage as figures
from analytics.figures.capacity import forecast_figure
from analytics.usage import tables

pytestmark = pytest.mark.browser
START = date(2026, 1, 1)
# Key names as long as the demo's, so the legend wraps onto several rows.
NAMES = [f"Integration number {n} of the organization ({n:04d}****{n:04d})" for n in range(9)]
# What a drawn figure's texts are, by their SVG classes.
LABELS = ".gtitle, .xtitle, .ytitle, .y2title, .annotation-text, .xtick text, .ytick text"


def shown_figures() -> dict[str, go.Figure]:
    key_day = make_key_day(5, 60)
    end = START + timedelta(days=59)
    over_time = tables.usage_over_time(key_day, START, end, "day")
    wide = pd.DataFrame(
        {name: [float(1000 * (n + 1) + day) for day in range(30)] for n, name in enumerate(NAMES)},
        index=pd.date_range(START, periods=30),
    )
    path = month_projection(make_key_day(5, 450), START)
    limits = (Limit("All characters, monthly", 2_000_000.0, 0.8),)
    pairs = pd.DataFrame([[5.0, 3.0], [2.0, 0.0]], index=["EN", "DE"], columns=["DE", "FR"])
    return {
        "keys_over_time": figures.keys_over_time(wide, "total_characters", "day"),
        "service_mix": figures.service_mix(over_time, "day"),
        "key_usage_by_service": figures.key_usage_by_service(over_time, "day"),
        "forecast": forecast_figure(
            ForecastPath(
                "total_characters",
                "month",
                "Total characters — month to date",
                path,
                limits,
                "Total characters",
            )
        ),
        "pair_heatmap": figures.pair_heatmap(pairs, "total_characters"),
    }


def overlaps(a: dict, b: dict) -> bool:
    return not (
        a["right"] <= b["left"]
        or b["right"] <= a["left"]
        or a["bottom"] <= b["top"]
        or b["bottom"] <= a["top"]
    )


# A drawn figure's toolbar, legend and labels, each as the box it covers on the page.
MEASURE = """(root, labels) => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, text: e.textContent}; };
  const seen = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  return {
    toolbar: [...root.querySelectorAll('.modebar')].filter(seen).map(box),
    legend: [...root.querySelectorAll('.legend .bg')].filter(seen).map(box),
    labels: [...root.querySelectorAll(labels)].filter(seen).map(box),
  };
}"""


@pytest.mark.parametrize("width", [440, 900])
def test_no_toolbar_or_legend_covers_a_label(tmp_path, width):
    if CHROMIUM is None:
        unavailable("chromium is not installed (apt-get install chromium)")
    found = shown_figures()
    page = tmp_path / "figures.html"
    page.write_text(
        f"<html><head><meta charset='utf-8'></head><body><script>{get_plotlyjs()}</script>"
        + "".join(
            f"<div id='{name}' style='width:{width}px'></div><script>"
            f"const f_{name} = {fig.to_json()};"
            f"Plotly.newPlot('{name}', f_{name}.data, f_{name}.layout, "
            "{displayModeBar: true, responsive: false});</script>"
            for name, fig in found.items()
        )
        + "</body></html>"
    )
    covered = []
    with sync_playwright() as playwright:
        browser = fresh_browser(
            playwright, tmp_path / "profile", viewport={"width": width + 40, "height": 900}
        )
        tab = browser.new_page()
        tab.goto(page.as_uri())
        for name in found:
            tab.locator(f"#{name} .main-svg").first.wait_for()
            drawn = tab.locator(f"#{name}").evaluate(MEASURE, LABELS)
            toolbar, legend, labels = drawn["toolbar"], drawn["legend"], drawn["labels"]
            assert toolbar and labels, name
            covered += [
                (name, "toolbar", label["text"])
                for bar in toolbar
                for label in [*labels, *legend]
                if overlaps(bar, label)
            ]
            covered += [
                (name, "legend", label["text"])
                for box in legend
                for label in labels
                if overlaps(box, label)
            ]
        browser.close()
    assert covered == [], json.dumps(covered)
