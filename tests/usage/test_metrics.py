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
    count_text,
    format_change,
    format_value,
    is_minutes,
    percent_text,
    rounded,
    share_text,
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
    assert format_value(float("inf"), MINUTES) == "N/A"


@pytest.mark.parametrize(
    ("value", "metric", "shown"),
    [
        (2.5, "total_characters", "3"),  # half away from zero, never to the even 2
        (-2.5, "total_characters", "-3"),
        (0.4999, "total_characters", "0"),
        (-0.4, "total_characters", "0"),  # never -0
        (0, MINUTES, "0.00"),
        (2.675, MINUTES, "2.68"),  # the float is 2.67499999…: read as written
        (1260.625, MINUTES, "1,260.63"),
        (-1.005, MINUTES, "-1.01"),
        (12_345_678_901_234_567, "total_characters", "12,345,678,901,234,568"),
        (1e20, MINUTES, "100,000,000,000,000,000,000.00"),
    ],
)
def test_figures_round_half_away_from_zero_as_written(value, metric, shown):
    assert format_value(value, metric) == shown


@pytest.mark.parametrize(
    ("value", "shown"),
    [(0, "0"), (5_000, "5,000"), (5_000.0, "5,000"), (1260.625, "1,260.63"), (0.005, "0.01")],
)
def test_a_count_is_whole_when_whole_else_to_the_hundredth(value, shown):
    assert count_text(value) == shown


@pytest.mark.parametrize(
    ("change", "shown"),
    [
        (0.123, "+12.3\u202f%"),
        (-0.5, "-50.0\u202f%"),
        (0.0, "+0.0\u202f%"),
        (-0.0004, "+0.0\u202f%"),  # rounds to zero: no sign of a fall
        (0.2595, "+26.0\u202f%"),  # 25.95 %: half away from zero
        (-0.2595, "-26.0\u202f%"),
        (0.00049, "+0.0\u202f%"),
        (0.0005, "+0.1\u202f%"),
        (123.456, "+12,345.6\u202f%"),
        (None, "N/A"),
        (float("inf"), "N/A"),
    ],
)
def test_format_change_as_a_signed_percentage_with_one_decimal(change, shown):
    assert format_change(change) == shown


def test_a_change_reads_the_same_as_a_fraction_and_in_percent():
    # 2,000 → 2,519: the fraction 0.2595, and in percent 100 × 0.2595 = 25.949999999999996.
    fraction = (2_519 - 2_000) / 2_000
    assert format_change(fraction) == percent_text(100 * fraction) == "+26.0\u202f%"
    assert percent_text(25.95) == "+26.0\u202f%"


@pytest.mark.parametrize(
    ("share", "shown"),
    [
        (0.1234, "12.3\u202f%"),
        (0.00049, "0.0\u202f%"),
        (0.12345, "12.3\u202f%"),
        (1, "100.0\u202f%"),
        (None, "N/A"),
    ],
)
def test_a_share_is_unsigned(share, shown):
    assert share_text(share) == shown


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
