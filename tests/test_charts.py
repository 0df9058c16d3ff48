"""Figure builders checked on their plotly output."""

from datetime import date, timedelta

import pytest
from test_views import make_key_day

from analytics import charts, views
from analytics.capacity_charts import forecast_figure
from analytics.forecast import daily_series, projection_path, run_rate
from analytics.views import MINUTES, OTHER, SERVICE_CHARACTERS

START = date(2026, 1, 1)


def trace_sum(fig) -> float:
    return sum(sum(trace.y) for trace in fig.data)


def test_service_mix_has_one_area_per_character_service_and_no_minutes():
    kd = make_key_day(5, 40)
    over = views.usage_over_time(kd, START, START + timedelta(days=39), "day")
    fig = charts.service_mix(over, "day")
    assert [t.name for t in fig.data] == [views.SERVICE_LABELS[m] for m in SERVICE_CHARACTERS]
    assert all(t.stackgroup == "characters" for t in fig.data)
    assert trace_sum(fig) == kd["total_characters"].sum()
    assert fig.layout.xaxis.title.text == "Day (UTC)"


def test_minutes_chart_holds_only_minutes():
    kd = make_key_day(5, 40)
    over = views.usage_over_time(kd, START, START + timedelta(days=39), "week")
    fig = charts.minutes_over_time(over, "week")
    assert len(fig.data) == 1
    assert fig.layout.yaxis.title.text == "Minutes"
    assert trace_sum(fig) == pytest.approx(kd[MINUTES].sum(), abs=0.01 * len(over))


@pytest.mark.parametrize("kind", ["bar", "line"])
def test_keys_over_time_top_n_plus_other_equals_total(kind):
    kd = make_key_day(15, 60)
    end = START + timedelta(days=59)
    wide = views.top_n_over_time(kd, "text_translation_characters", 4, START, end, "week")
    fig = charts.keys_over_time(wide, "text_translation_characters", "week", kind)
    names = [t.name for t in fig.data]
    assert len(names) == 5
    assert names[-1] == OTHER
    assert trace_sum(fig) == kd["text_translation_characters"].sum()
    assert fig.layout.yaxis.title.text == "Text translation characters"


def test_top_keys_bar_totals_equal_full_total():
    kd = make_key_day(30, 10)
    totals = views.top_n_totals(kd, "total_characters", 10)
    fig = charts.top_keys_bar(totals, "total_characters")
    assert list(fig.data[0].y)[-1] == OTHER
    assert sum(fig.data[0].x) == kd["total_characters"].sum()


def test_key_usage_by_service_keeps_minutes_on_their_own_axis():
    kd = views.restrict_keys(make_key_day(3, 20), ["k001****z001"])
    over = views.usage_over_time(kd, START, START + timedelta(days=19), "day")
    fig = charts.key_usage_by_service(over, "day")
    axes = {t.name: t.yaxis for t in fig.data}
    assert axes[views.SERVICE_LABELS[MINUTES]] == "y2"
    assert {axes[views.SERVICE_LABELS[m]] for m in SERVICE_CHARACTERS} == {"y"}


@pytest.mark.slow
def test_figure_json_stays_small_for_a_large_organization():
    # 1,000 keys over five years (1.8M key-day rows), top 20 + Other at the automatic granularity.
    days = 5 * 365
    kd = make_key_day(1000, days)
    end = START + timedelta(days=days - 1)
    granularity = views.auto_granularity(START, end)
    wide = views.top_n_over_time(kd, "total_characters", 20, START, end, granularity)
    fig = charts.keys_over_time(wide, "total_characters", granularity)
    assert len(fig.data) == 21
    assert len(fig.to_json()) < 1_000_000
    over = views.usage_over_time(kd, START, end, granularity)
    assert len(charts.service_mix(over, granularity).to_json()) < 1_000_000
    # Even daily points for the longest range the page allows stay under the bound.
    last_year = START + timedelta(days=365)
    daily = views.top_n_over_time(kd, "total_characters", 20, START, last_year, "day")
    assert len(charts.keys_over_time(daily, "total_characters", "day").to_json()) < 1_000_000


@pytest.mark.parametrize(("metric", "ticks"), [("total_characters", ",~s"), (MINUTES, ",~f")])
def test_forecast_figure_ticks_minutes_as_decimals_and_characters_with_si(metric, ticks):
    kd = make_key_day(5, 60)
    as_of = START + timedelta(days=45)
    series = daily_series(kd, metric)
    path = projection_path(
        series,
        START + timedelta(days=31),
        START + timedelta(days=58),
        run_rate(series, as_of, START),
        START,
    )
    fig = forecast_figure(path, metric, "title")
    assert fig.layout.yaxis.tickformat == ticks
    assert {trace.name for trace in fig.data} == {"Band", "Band high", "Forecast", "Used"}
