"""The one forecast on the demo organization (25 keys, three years of synthetic usage)."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest
from support.builders import METRICS, demo_usage

from analytics.capacity.forecasting.projections import organization_outlook
from analytics.usage.calendar import ONE_DAY

# The served month-ahead forecasts of the demo organization miss total characters by about
# 5 % and speech minutes (a few heavy users) by more; single months with launches or lulls
# miss by up to ~40 %. 25 % leaves room for that while still failing a forecast that loses
# the level, the weekday rhythm or the calendar.
WAPE_BOUND = 0.25


@pytest.mark.parametrize("metric", ["total_characters", "speech_to_text_minutes"])
def test_the_month_ahead_error_on_the_demo_organization(metric, record_property):
    usage = demo_usage()
    found = organization_outlook(usage.frame, metric, usage.start, usage.end + ONE_DAY)
    figure = found.accuracy
    assert len(figure.months) == 12
    assert figure.months[-1] == date(2026, 5, 1)
    record_property(f"forecast_wape_{metric}", round(figure.wape, 4))
    print(f"forecast {metric}: {figure.text}; {figure.coverage_text}")
    assert 0 < figure.wape < WAPE_BOUND


def test_every_metric_is_forecast_finite_and_never_below_zero():
    usage = demo_usage()
    for metric in METRICS:
        found = organization_outlook(usage.frame, metric, usage.start, usage.end + ONE_DAY)
        ahead = found.cumulative(366)
        assert np.isfinite(ahead[0]).all() and (ahead[0] >= 0).all()
