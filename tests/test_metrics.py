"""The metric vocabulary: names in the service's order, labels, units and how values read."""

from analytics.usage.metrics import (
    CHARACTER_METRICS,
    METRIC_LABELS,
    METRICS,
    MINUTES,
    SERVICE_CHARACTERS,
    SERVICE_LABELS,
    format_change,
    format_value,
    is_minutes,
)


def test_metrics_in_the_service_order():
    assert METRICS == (
        "total_characters",
        "text_translation_characters",
        "document_translation_characters",
        "text_improvement_characters",
        "speech_to_text_minutes",
        "speech_to_speech_minutes",
    )
    assert METRICS[:4] == CHARACTER_METRICS
    assert METRICS[1:4] == SERVICE_CHARACTERS
    assert set(METRIC_LABELS) == set(METRICS)
    assert set(SERVICE_LABELS) == {*SERVICE_CHARACTERS, MINUTES, "speech_to_speech_minutes"}


def test_only_minutes_are_minutes():
    assert [m for m in METRICS if is_minutes(m)] == [
        "speech_to_text_minutes",
        "speech_to_speech_minutes",
    ]


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
