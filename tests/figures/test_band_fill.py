"""A forecast's band and an anomaly's usual range stand out from the page in the viewer's light
and dark preference alike: each band's fill, laid over Streamlit's light and dark backgrounds,
differs from them by a contrast ratio of at least 1.4 (figures have no background of their
own)."""

from __future__ import annotations

import re
from datetime import date

import pandas as pd
import pytest
from support.builders import make_key_day, month_projection

from analytics.capacity.review import ForecastPath
from analytics.figures.anomalies import anomaly_figure
from analytics.figures.capacity import forecast_figure

START = date(2026, 1, 1)
PAGES = {"light": (255, 255, 255), "dark": (14, 17, 23)}  # Streamlit's two backgrounds
LEAST_CONTRAST = 1.4


def luminance(rgb: tuple[float, ...]) -> float:
    """WCAG 2's relative luminance of an sRGB colour (0–255 channels)."""
    linear = [
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (v / 255 for v in rgb)
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_on(fill: str, page: tuple[int, int, int]) -> float:
    red, green, blue, alpha = map(float, re.findall(r"[\d.]+", fill))
    shown = tuple(
        alpha * c + (1 - alpha) * p for c, p in zip((red, green, blue), page, strict=True)
    )
    lighter, darker = sorted((luminance(shown), luminance(page)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def band_fills() -> dict[str, set[str]]:
    key_day = make_key_day(3, 450)
    path = month_projection(key_day, START)
    forecast = forecast_figure(
        ForecastPath("total_characters", "month", "Month", path, (), "Total characters")
    )
    days = pd.date_range(START, periods=14)
    window = pd.DataFrame(
        {
            "usage_date": days,
            "observed": [100.0] * 13 + [900.0],
            "expected": [100.0] * 14,
            "bound": [None] * 2 + [250.0] * 12,
            "anomalous": [False] * 13 + [True],
        }
    )
    anomaly = anomaly_figure(window, "total_characters", "A key · Total characters")
    return {
        name: {trace.fillcolor for trace in fig.data if getattr(trace, "fill", None)}
        for name, fig in (("forecast", forecast), ("anomaly", anomaly))
    }


@pytest.mark.parametrize("page", PAGES)
def test_bands_stand_out_on_a_light_and_a_dark_page(page):
    fills = band_fills()
    assert all(fills.values())  # each figure has its band
    for figure, colors in fills.items():
        for fill in colors:
            assert contrast_on(fill, PAGES[page]) >= LEAST_CONTRAST, (figure, fill)
