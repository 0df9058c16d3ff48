"""The metric vocabulary: names in the service's order, labels, units and how values read.

The expected names are the frame contract's, written out in `builders`.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.builders import METRICS as CONTRACT_METRICS
from support.builders import MINUTE_METRICS

from analytics.usage.metrics import (
    CHARACTER_METRICS,
    METRIC_LABELS,
    METRICS,
    MINUTES,
    SERVICE_CHARACTERS,
    SERVICE_LABELS,
    column_format,
    format_change,
    format_value,
    is_minutes,
    rounded,
    unit_of,
    with_unit,
)


def test_metrics_in_the_service_order():
    assert list(METRICS) == CONTRACT_METRICS
    assert METRICS[:4] == CHARACTER_METRICS
    assert METRICS[1:4] == SERVICE_CHARACTERS
    assert set(METRIC_LABELS) == set(METRICS)
    assert set(SERVICE_LABELS) == {*SERVICE_CHARACTERS, MINUTES, "speech_to_speech_minutes"}


def test_only_minutes_are_minutes():
    assert [m for m in METRICS if is_minutes(m)] == MINUTE_METRICS


def test_format_value_people_readable():
    assert format_value(1234567, "total_characters") == "1,234,567"
    assert format_value(1234.4, "text_translation_characters") == "1,234"
    assert format_value(1234.5, MINUTES) == "1,234.50"
    assert format_value(None, MINUTES) == "N/A"
    assert format_value(float("nan"), "total_characters") == "N/A"


def test_format_change_as_a_signed_percentage():
    assert format_change(0.123) == "+12.3%"
    assert format_change(-0.5) == "-50.0%"
    assert format_change(0.0) == "+0.0%"
    assert format_change(None) is None


@settings(max_examples=200)
@given(
    st.floats(min_value=0, max_value=1e12, allow_nan=False),
    st.sampled_from(list(METRICS)),
)
def test_every_figure_reads_whole_characters_or_minutes_to_the_hundredth(value, metric):
    shown = format_value(value, metric)
    fraction = shown.partition(".")[2]
    assert len(fraction) == (2 if is_minutes(metric) else 0), shown
    assert float(shown.replace(",", "")) == pytest.approx(rounded(value, metric), abs=0.006)
    assert with_unit(value, metric) == f"{shown} {unit_of(metric)}"
    # A table column shows the same digits (printf, as the dashboard's number columns).
    assert column_format(metric) == ("%,.2f" if is_minutes(metric) else "%,d")


def test_units_name_what_a_figure_counts():
    assert unit_of("total_characters") == "characters"
    assert unit_of("speech_to_speech_minutes") == "minutes"
    assert rounded(30_345_184.759, "total_characters") == 30_345_185
    assert rounded(1_666.6667, MINUTES) == 1_666.67
