"""Usage and capacity figures checked on their plotly output."""

from datetime import date, timedelta

import pandas as pd
import plotly.graph_objects as go
import pytest
from support.builders import SERVICE_CHARACTERS, make_key_day

from analytics.capacity.capacity_review import ForecastPath, Limit
from analytics.capacity.forecasting.projections import projection_path
from analytics.cost.prices import PRICED_METRICS
from analytics.figures import usage as figures
from analytics.figures.capacity import forecast_figure
from analytics.usage import tables
from analytics.usage.calendar import auto_granularity
from analytics.usage.metrics import METRIC_LABELS, MINUTE_METRICS
from analytics.usage.tables import OTHER

MINUTES = "speech_to_text_minutes"
LEGEND = {
    "text_translation_characters": "Text translation",
    "document_translation_characters": "Documents",
    "text_improvement_characters": "Text improvement",
    MINUTES: "Speech-to-text",
}

START = date(2026, 1, 1)


def trace_sum(fig) -> float:
    return sum(sum(trace.y) for trace in fig.data)


def test_service_mix_has_one_area_per_character_service_and_no_minutes():
    kd = make_key_day(5, 40)
    over = tables.usage_over_time(kd, START, START + timedelta(days=39), "day")
    fig = figures.service_mix(over, "day")
    assert [t.name for t in fig.data] == [LEGEND[m] for m in SERVICE_CHARACTERS]
    assert all(t.stackgroup == "characters" for t in fig.data)
    assert trace_sum(fig) == kd["total_characters"].sum()
    assert fig.layout.xaxis.title.text == "Day (UTC)"


def test_minutes_chart_holds_only_minutes():
    kd = make_key_day(5, 40)
    over = tables.usage_over_time(kd, START, START + timedelta(days=39), "week")
    fig = figures.minutes_over_time(over, "week")
    speech_to_text, speech_to_speech = fig.data
    assert (speech_to_text.name, speech_to_speech.name) == ("Speech-to-text", "Speech-to-speech")
    assert fig.layout.yaxis.title.text == "Minutes"
    # Side by side, each service's own sum: never stacked onto each other.
    assert fig.layout.barmode == "group"
    assert sum(speech_to_text.y) == pytest.approx(kd[MINUTES].sum(), abs=0.01 * len(over))
    spoken = kd["speech_to_speech_minutes"].sum()
    assert spoken > 0 and sum(speech_to_speech.y) == pytest.approx(spoken, abs=0.01 * len(over))


@pytest.mark.parametrize("kind", ["bar", "line"])
def test_keys_over_time_top_n_plus_other_equals_total(kind):
    kd = make_key_day(15, 60)
    end = START + timedelta(days=59)
    wide = tables.top_n_over_time(kd, "text_translation_characters", 4, START, end, "week")
    fig = figures.keys_over_time(wide, "text_translation_characters", "week", kind)
    names = [t.name for t in fig.data]
    assert len(names) == 5
    assert names[-1] == OTHER
    assert trace_sum(fig) == kd["text_translation_characters"].sum()
    assert fig.layout.yaxis.title.text == "Text translation characters"


def test_tags_over_time_names_the_tags_total_text_characters():
    """Only text is tagged: the Tags chart's total, like its tiles and metric box, is text
    characters; its other metrics keep their names."""
    kd = make_key_day(15, 60)
    end = START + timedelta(days=59)
    wide = tables.top_n_over_time(kd, "total_characters", 4, START, end, "week")
    fig = figures.tags_over_time(wide, "total_characters", "week")
    assert fig.layout.yaxis.title.text == "Text characters"
    assert trace_sum(fig) == kd["total_characters"].sum()
    improved = figures.tags_over_time(wide, "text_improvement_characters", "week")
    assert improved.layout.yaxis.title.text == "Text improvement characters"


def test_top_keys_bar_totals_equal_full_total():
    kd = make_key_day(30, 10)
    totals = tables.top_n_totals(kd, "total_characters", 10)
    fig = figures.top_keys_bar(totals, "total_characters")
    assert list(fig.data[0].y)[-1] == OTHER
    assert sum(fig.data[0].x) == kd["total_characters"].sum()


def test_key_usage_by_service_keeps_minutes_on_their_own_axis():
    kd = tables.restrict_keys(make_key_day(3, 20), ["k001****z001"])
    over = tables.usage_over_time(kd, START, START + timedelta(days=19), "day")
    fig = figures.key_usage_by_service(over, "day")
    axes = {t.name: t.yaxis for t in fig.data}
    assert axes[LEGEND[MINUTES]] == "y2"
    assert {axes[LEGEND[m]] for m in SERVICE_CHARACTERS} == {"y"}


def test_a_key_without_speech_gets_no_empty_minutes_chart_and_only_its_services():
    days = pd.DatetimeIndex(["2025-03-01", "2025-03-02"])
    over = pd.DataFrame(0.0, index=days, columns=[*SERVICE_CHARACTERS, *MINUTE_METRICS])
    over["text_translation_characters"] = [1_000, 2_000]
    fig = figures.key_usage_by_service(over, "day")
    assert [t.name for t in fig.data] == ["Text translation"]
    assert [a.text for a in fig.layout.annotations] == ["Characters by service"]
    assert "yaxis2" not in fig.layout
    # A speech-only key: the minutes chart alone.
    over["text_translation_characters"] = 0
    over["speech_to_text_minutes"] = [1.5, 0.25]
    fig = figures.key_usage_by_service(over, "day")
    assert [t.name for t in fig.data] == ["Speech-to-text"]
    assert fig.layout.yaxis.title.text == "Minutes"


@pytest.mark.slow
def test_figure_json_stays_small_for_a_large_organization():
    # 1,000 keys over five years (1.8M key-day rows), top 20 + Other at the automatic granularity.
    days = 5 * 365
    kd = make_key_day(1000, days)
    end = START + timedelta(days=days - 1)
    granularity = auto_granularity(START, end)
    wide = tables.top_n_over_time(kd, "total_characters", 20, START, end, granularity)
    fig = figures.keys_over_time(wide, "total_characters", granularity)
    assert len(fig.data) == 21
    assert len(fig.to_json()) < 1_000_000
    over = tables.usage_over_time(kd, START, end, granularity)
    assert len(figures.service_mix(over, granularity).to_json()) < 1_000_000
    # Even daily points for the longest range the page allows stay under the bound.
    last_year = START + timedelta(days=365)
    daily = tables.top_n_over_time(kd, "total_characters", 20, START, last_year, "day")
    assert len(figures.keys_over_time(daily, "total_characters", "day").to_json()) < 1_000_000


@pytest.mark.parametrize(("metric", "ticks"), [("total_characters", ",~s"), (MINUTES, ",~f")])
def test_forecast_figure_ticks_minutes_as_decimals_and_characters_with_si(metric, ticks):
    kd = make_key_day(5, 450)
    span = (START + timedelta(days=424), START + timedelta(days=449))
    path = projection_path(kd, metric, span, START + timedelta(days=440), START)
    fig = forecast_figure(ForecastPath(metric, "month", "title", path, (), METRIC_LABELS[metric]))
    assert fig.layout.yaxis.tickformat == ticks
    assert {trace.name for trace in fig.data} == {
        "80 % interval",
        "80 % interval high",
        "Forecast",
        "Used",
    }
    assert legend(fig) == ["80 % interval", "Forecast", "Used"]  # the band is drawn: named
    assert fig.layout.title.text == "title"
    assert not fig.layout.shapes  # no budget: no limit lines


def test_forecast_figure_draws_each_budget_limit_and_its_warning_line():
    kd = make_key_day(2, 60)
    first, last = START + timedelta(days=31), START + timedelta(days=58)
    path = projection_path(kd, "total_characters", (first, last), START + timedelta(days=45), START)
    limits = (Limit("Monthly cap", 2_000_000.0, 0.8), Limit("Hard stop", 3_000_000.0, 0.5))
    fig = forecast_figure(
        ForecastPath("total_characters", "month", "Month", path, limits, "Total characters")
    )
    lines = sorted(shape.y0 for shape in fig.layout.shapes)
    assert lines == [1_500_000.0, 1_600_000.0, 2_000_000.0, 3_000_000.0]
    assert {a.text for a in fig.layout.annotations} >= {"Monthly cap", "Hard stop"}
    # The used line starts on the period's first day; the forecast runs on to its last.
    used = next(trace for trace in fig.data if trace.name == "Used")
    forecast = next(trace for trace in fig.data if trace.name == "Forecast")
    assert used.x[0] == f"{first:%Y-%m-%d}" and forecast.x[-1] == f"{last:%Y-%m-%d}"
    assert fig.layout.yaxis.title.text == "Total characters (cumulative)"


def cost_forecast() -> go.Figure:
    """March's cost projection: 2.50 EUR a day, ten days used, bounds on the point (cost has
    no interval of its own), a monthly spend budget of 60.00 EUR warning at 80 %."""
    days = pd.date_range("2025-03-01", "2025-03-31")
    expected = [2.5 * (i + 1) for i in range(len(days))]
    path = pd.DataFrame(
        {
            "day": days,
            "actual": [v if i < 10 else None for i, v in enumerate(expected)],
            "expected": expected,
            "low": expected,
            "high": expected,
        }
    )
    limit = (Limit("Spend, monthly", 60.0, 0.8),)
    return forecast_figure(ForecastPath("cost", "month", "Cost", path, limit, "Cost (EUR)", "EUR"))


def test_a_cost_forecast_is_titled_in_its_currency_with_cents_on_hover_and_on_its_axis():
    fig = cost_forecast()
    assert fig.layout.yaxis.title.text == "Cost (EUR) (cumulative)"
    assert fig.layout.yaxis.tickformat == ",.2f"  # 0.50, never SI's 500m
    used = next(trace for trace in fig.data if trace.name == "Used")
    assert used.hovertemplate == "used: %{y:,.2f}<extra></extra>"
    assert sorted(shape.y0 for shape in fig.layout.shapes) == [48.0, 60.0]


def legend(fig: go.Figure) -> list[str]:
    """The figure's legend entries, from its JSON: each trace not hidden from the legend
    (plotly shows a trace's name unless ``showlegend`` is false), then each shape shown in it."""
    drawn = fig.to_plotly_json()
    traces = [t["name"] for t in drawn["data"] if t.get("showlegend", True)]
    shapes = [s["name"] for s in drawn["layout"].get("shapes", ()) if s.get("showlegend")]
    return traces + shapes


def test_a_cost_forecast_names_no_band_it_does_not_draw_and_names_its_warning_line():
    """A cost projection's bounds are its point: no band is drawn, so none is named; the
    dotted warning line is named as the budget's warning level, the limit line beside it."""
    fig = cost_forecast()
    assert legend(fig) == ["Forecast", "Used", "Spend, monthly: warning at 80.0\u202f%"]
    assert [t.name for t in fig.data] == ["Forecast", "Used"]  # every trace drawn is named
    [warning] = [s for s in fig.layout.shapes if s.showlegend]
    assert (warning.y0, warning.line.dash) == (48.0, "dot")


@pytest.mark.parametrize(("currency", "ticks"), [("EUR", ",.2f"), ("JPY", ",.0f"), ("KWD", ",.3f")])
def test_money_axes_read_as_the_currency_writes_amounts(currency, ticks):
    over = pd.DataFrame(
        {metric: [0.5, 0.25] for metric in PRICED_METRICS},
        index=pd.DatetimeIndex(["2025-03-01", "2025-03-02"]),
    )
    assert figures.cost_by_service(over, "day", currency).layout.yaxis.tickformat == ticks
    wide = pd.DataFrame({"Web shop": [0.5, 0.25]}, index=over.index)
    by_key = figures.keys_over_time(wide, "total_characters", "day", currency=currency)
    assert by_key.layout.yaxis.tickformat == ticks
    top = figures.top_keys_bar(pd.Series({"Web shop": 0.75}), "total_characters", currency)
    assert top.layout.xaxis.tickformat == ticks
    # Usage keeps its own: SI suffixes for characters.
    assert figures.keys_over_time(wide, "total_characters", "day").layout.yaxis.tickformat == ",~s"
