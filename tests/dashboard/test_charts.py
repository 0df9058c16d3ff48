"""A page's figure is built once per table (or record holding one) it draws: equal tables and
choices share one figure, and anything a figure may show (a value, a column's, the index's or a
series' name, a choice) builds another."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st

from analytics.capacity.capacity_review import ForecastPath, Limit
from analytics.dashboard import charts

BUILT: list[tuple[pd.DataFrame | pd.Series, str]] = []


def bars(table: pd.DataFrame | pd.Series, title: str) -> go.Figure:
    """A figure of the table's first column, counting its calls."""
    BUILT.append((table, title))
    values = table if isinstance(table, pd.Series) else table.iloc[:, 0]
    return go.Figure(go.Bar(x=list(table.index), y=list(values)), layout={"title": title})


@pytest.fixture(autouse=True)
def fresh_cache():
    charts._figure.clear()
    BUILT.clear()


def frame(values: list[int], column: str = "total", index_name: str | None = "day") -> pd.DataFrame:
    index = pd.Index([f"2026-0{n + 1}-01" for n in range(len(values))], name=index_name)
    return pd.DataFrame({column: values}, index=index)


def test_an_equal_table_and_choice_share_one_figure():
    first = charts.figure(bars, frame([3, 1, 2]), "Characters")
    again = charts.figure(bars, frame([3, 1, 2]), "Characters")  # a new, equal table
    assert again is first
    assert len(BUILT) == 1
    assert list(first.to_dict()["data"][0]["y"]) == [3, 1, 2]


@pytest.mark.parametrize(
    ("table", "title"),
    [
        (frame([3, 1, 5]), "Characters"),  # a value
        (frame([3, 1, 2], column="minutes"), "Characters"),  # a column's name
        (frame([3, 1, 2], index_name="week"), "Characters"),  # the index's name
        (frame([3, 1, 2]), "Minutes"),  # a choice
        (frame([3, 1, 2])["total"], "Characters"),  # the same values as a series
    ],
)
def test_anything_a_figure_may_show_builds_another(table, title):
    first = charts.figure(bars, frame([3, 1, 2]), "Characters")
    other = charts.figure(bars, table, title)
    assert other is not first
    assert len(BUILT) == 2


def test_a_series_name_builds_another():
    series = frame([3, 1, 2])["total"]
    first = charts.figure(bars, series, "Characters")
    assert charts.figure(bars, series.rename("minutes"), "Characters") is not first
    assert charts.figure(bars, series.copy(), "Characters") is first
    assert len(BUILT) == 2


def drawn_path(path: ForecastPath) -> go.Figure:
    """A figure of a forecast path's table, counting its calls."""
    return bars(path.path, path.title)


def forecast(values: list[int], column: str = "total", cap: float = 100.0) -> ForecastPath:
    limits = (Limit("Monthly cap", cap, 0.8),)
    return ForecastPath("total_characters", "month", "Month", frame(values, column), limits, "x")


@pytest.mark.parametrize(
    "other",
    [
        forecast([3, 1, 5]),  # a value of its table
        forecast([3, 1, 2], column="minutes"),  # a column's name of its table
        forecast([3, 1, 2], cap=200.0),  # one of its choices, inside a record it holds
    ],
)
def test_a_record_holding_a_table_shares_a_figure_exactly_when_equal(other):
    first = charts.figure(drawn_path, forecast([3, 1, 2]))
    assert charts.figure(drawn_path, forecast([3, 1, 2])) is first
    assert charts.figure(drawn_path, other) is not first
    assert len(BUILT) == 2


tables = st.lists(st.integers(0, 3), min_size=1, max_size=4)


@given(left=tables, right=tables, columns=st.sampled_from([("total", "total"), ("total", "x")]))
def test_two_tables_share_a_figure_exactly_when_equal(left, right, columns):
    charts._figure.clear()
    one, other = frame(left, columns[0]), frame(right, columns[1])
    shared = charts.figure(bars, one, "Characters") is charts.figure(bars, other, "Characters")
    assert shared == (one.equals(other) and columns[0] == columns[1])
