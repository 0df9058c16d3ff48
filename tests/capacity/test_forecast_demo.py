"""The backtest on the demo organization (25 keys, three years of synthetic usage)."""

from __future__ import annotations

from datetime import date

import pytest
from support.builders import METRICS, demo_usage

from analytics.capacity.forecast import backtest

# Month-start run-rate forecasts of the demo organization miss total characters by about 6 %
# and speech minutes (a few heavy users) by about 18 % on average; seeds 1–4 stay within
# 4–16 %. Single months with launches or lulls miss by up to ~40 %. 25 % leaves room for that
# while still failing a model that loses the level, the weekday rhythm or the calendar.
MAPE_BOUND = 0.25


@pytest.mark.parametrize("metric", ["total_characters", "speech_to_text_minutes"])
def test_backtest_mape_on_the_demo_organization(metric, record_property):
    usage = demo_usage()
    result = backtest(usage.frame, metric, covered_from=usage.start, covered_to=usage.end)
    assert len(result.months) == 12
    assert result.months["month"].iloc[-1] == date(2026, 5, 1)
    record_property(f"backtest_mape_{metric}", round(result.mape, 4))
    record_property(f"backtest_band_coverage_{metric}", round(result.coverage, 2))
    print(f"backtest {metric}: MAPE {result.mape:.1%}, band coverage {result.coverage:.0%}")
    assert 0 < result.mape < MAPE_BOUND


def test_backtest_of_every_metric_is_finite():
    usage = demo_usage()
    for metric in METRICS:
        result = backtest(usage.frame, metric, covered_from=usage.start, covered_to=usage.end)
        assert result.months["error"].notna().all()
        assert (result.months["forecast"] >= 0).all()
