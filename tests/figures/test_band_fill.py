"""A forecast's band and an anomaly's usual range stand out from the page in the viewer's light
and dark preference alike: each band's fill, laid over Streamlit's light and dark backgrounds,
differs from them by a contrast ratio of at least 3:1, as every mark of a chart must (figures
have no background of their own). The browser test measures the same on the drawn pages."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest
from support.builders import make_key_day, month_projection

from analytics.capacity.capacity_review import ForecastPath
from analytics.figures.anomalies import anomaly_figure
from analytics.figures.capacity import forecast_figure
from analytics.figures.theme import DARK_PAGE, LIGHT_PAGE, contrast_ratio, over, rgba

START = date(2026, 1, 1)
PAGES = {"light": rgba(LIGHT_PAGE), "dark": rgba(DARK_PAGE)}


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
            shown = over(rgba(fill), PAGES[page])
            assert contrast_ratio(shown, PAGES[page]) >= 3, (figure, fill)
