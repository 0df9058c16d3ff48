"""The decision's figures from hand-made tables: past forecasts with the intervals known when
they were made, and the cost curve with the recommendation and today's plan marked."""

from __future__ import annotations

from datetime import date

import pandas as pd

from analytics.figures.decision import cost_curve_figure, past_forecasts_figure


def test_past_forecasts_draw_each_month_and_the_intervals_that_were_known():
    rows = pd.DataFrame(
        {
            "origin": [date(2026, 1, 1), date(2026, 2, 1), date(2026, 3, 1)],
            "candidate": ["run rate", "ETS weekly", "ETS weekly"],
            "forecast": [100.0, 110.0, 120.0],
            "actual": [90.0, 130.0, 118.0],
            "low_80": [float("nan"), 95.0, 100.0],
            "high_80": [float("nan"), 125.0, 140.0],
        }
    )
    fig = past_forecasts_figure(rows, "total_characters")
    traces = {trace.name: trace for trace in fig.data}
    assert list(traces["80 % interval high"].x) == ["2026-02", "2026-03"]
    assert list(traces["80 % interval high"].y) == [125.0, 140.0]
    assert list(traces["80 % interval"].y) == [95.0, 100.0]
    assert traces["80 % interval"].fill == "tonexty"
    # Each month's point by the model chosen on its first day, named where it is drawn.
    served = traces["Forecast as served"]
    assert list(served.x) == ["2026-01", "2026-02", "2026-03"]
    assert list(served.y) == [100.0, 110.0, 120.0]
    assert [list(c) for c in served.customdata] == [["run rate"], ["ETS weekly"], ["ETS weekly"]]
    assert "forecast (%{customdata[0]})" in served.hovertemplate
    assert list(traces["What happened"].y) == [90.0, 130.0, 118.0]
    assert fig.layout.title.text == "Total characters — month-ahead forecasts against actuals"


def test_past_forecasts_by_one_model_name_it_on_the_line():
    rows = pd.DataFrame(
        {
            "origin": [date(2026, 1, 1), date(2026, 2, 1)],
            "candidate": ["ETS weekly", "ETS weekly"],
            "forecast": [100.0, 110.0],
            "actual": [90.0, 130.0],
            "low_80": [80.0, 95.0],
            "high_80": [120.0, 125.0],
        }
    )
    names = [trace.name for trace in past_forecasts_figure(rows, "total_characters").data]
    assert "Forecast as served (ETS weekly)" in names


def test_past_forecasts_without_a_known_interval_name_none():
    """A young history has no interval yet: no band is drawn, and the legend names none."""
    nan = float("nan")
    rows = pd.DataFrame(
        {
            "origin": [date(2026, 1, 1), date(2026, 2, 1)],
            "candidate": ["run rate", "run rate"],
            "forecast": [100.0, 110.0],
            "actual": [90.0, 130.0],
            "low_80": [nan, nan],
            "high_80": [nan, nan],
        }
    )
    fig = past_forecasts_figure(rows, "total_characters")
    assert [trace.name for trace in fig.data] == ["Forecast as served (run rate)", "What happened"]


def curve(current: list[bool]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "option": ["Pay as you go", "Monthly", "Yearly"],
            "committed_characters": [0.0, 1_000_000.0, 3_000_000.0],
            "committed_minutes": [0.0, 100.0, 300.0],
            "expected_cost": [1500.0, 1224.5, 1320.0],
            "overage_chance": [0.0, 0.5, 0.0],
            "recommended": [False, False, True],
            "current": current,
        }
    )


def test_the_cost_curve_marks_the_recommendation_and_todays_plan():
    fig = cost_curve_figure(curve([False, True, False]), "EUR", 12)
    traces = {trace.name: trace for trace in fig.data}
    assert list(traces["Options"].x) == [0.0, 1_000_000.0, 3_000_000.0]
    assert list(traces["Options"].y) == [1500.0, 1224.5, 1320.0]
    assert (list(traces["Recommended"].x), list(traces["Recommended"].y)) == ([3e6], [1320.0])
    assert [list(c) for c in traces["Recommended"].customdata] == [["Yearly", "0.0\u202f%"]]
    assert [list(c) for c in traces["Today's plan"].customdata] == [["Monthly", "50.0\u202f%"]]
    assert fig.layout.yaxis.title.text == "Expected cost over 12 months (EUR)"


def test_without_todays_plan_in_the_catalogue_nothing_marks_it():
    fig = cost_curve_figure(curve([False, False, False]), "EUR", 12)
    assert [trace.name for trace in fig.data] == ["Options", "Recommended"]
