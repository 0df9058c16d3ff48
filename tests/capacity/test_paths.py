"""Projections day by day, of the organization and of its keys: the one forecast over a
period, on frames whose future is known by construction."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.builders import FIRST, METRICS, pattern, usage_frame

from analytics.capacity.forecasting.projections import (
    KeyDays,
    expected_days,
    forecast_table,
    key_forecasts,
    projection_path,
    recent_share,
)

WORKWEEK = pattern(400, FIRST, lambda d, _: 10.0 if d.weekday() >= 5 else 100.0)
TOTAL = "total_characters"


def test_flat_usage_projects_exactly_with_no_band():
    kd = usage_frame({"aaaa****0001": [250.0] * 120})
    as_of = date(2025, 4, 11)  # 10 closed days in April
    path = projection_path(kd, TOTAL, (date(2025, 4, 1), date(2025, 4, 30)), as_of, FIRST)
    assert path["actual"].dropna().iloc[-1] == 2500
    last = path.iloc[-1]
    assert (last["expected"], last["low"], last["high"]) == pytest.approx((7500, 7500, 7500))


def test_a_weekday_rhythm_is_projected_on_each_future_day():
    kd = usage_frame({"aaaa****0001": WORKWEEK})
    as_of = date(2025, 6, 2)  # a Monday: only 1 June (a Sunday) is closed
    path = projection_path(kd, TOTAL, (date(2025, 6, 1), date(2025, 6, 30)), as_of, FIRST)
    assert path["actual"].notna().sum() == 1
    june = [10.0 if date(2025, 6, d).weekday() >= 5 else 100.0 for d in range(1, 31)]
    assert np.diff(path["expected"], prepend=0.0) == pytest.approx(june, rel=1e-3)


def test_keys_share_the_organizations_forecast_by_their_last_four_weeks():
    """A key used 300 a day for 90 days, another started 14 days ago at 100 a day: over the
    last four weeks the second used 1,400 of 9,800, one seventh, and takes one seventh of
    every projected day; the two add up to the organization."""
    kd = usage_frame(
        {
            "aaaa****0001": [300.0] * 90,
            "bbbb****0002": [0.0] * 76 + [100.0] * 14,
        }
    )
    as_of = FIRST + timedelta(days=90)  # 1 April 2025
    april = (as_of, date(2025, 4, 30))
    assert recent_share(kd, TOTAL, ("bbbb****0002",), as_of) == pytest.approx(1 / 7)
    whole = projection_path(kd, TOTAL, april, as_of, FIRST)["expected"]
    parts = [
        projection_path(kd, TOTAL, april, as_of, FIRST, (key,))["expected"]
        for key in ("aaaa****0001", "bbbb****0002")
    ]
    assert parts[1].to_numpy() == pytest.approx(whole.to_numpy() / 7)
    assert (parts[0] + parts[1]).to_numpy() == pytest.approx(whole.to_numpy())
    daily = expected_days(kd, TOTAL, (as_of, april[1], FIRST), ("bbbb****0002",))
    assert len(daily) == 30 and daily.sum() == pytest.approx(whole.iloc[-1] / 7)


def test_no_history_projects_nothing_beyond_what_is_used():
    kd = usage_frame({"aaaa****0001": [5.0]})
    path = projection_path(kd, TOTAL, (FIRST, date(2025, 1, 31)), FIRST, FIRST)
    assert path[["expected", "low", "high"]].to_numpy().max() == 0


def test_forecast_table_holds_org_and_each_key_for_every_metric_and_period():
    kd = usage_frame(
        {"aaaa****0001": [100.0] * 90, "bbbb****0002": [300.0] * 90},
        minutes={"aaaa****0001": [1.5] * 90, "bbbb****0002": [0.0] * 90},
    )
    as_of = date(2025, 3, 16)
    table = forecast_table(kd, as_of, FIRST, by_key=True)
    assert len(table) == 3 * len(METRICS) * 3
    month = table[(table["metric"] == TOTAL) & (table["period"] == "month")]
    projected = month.set_index("api_key")["projected"]
    assert projected["Organization"] == pytest.approx(400 * 31)
    assert projected["aaaa****0001"] == pytest.approx(100 * 31)
    assert projected["bbbb****0002"] == pytest.approx(300 * 31)
    minutes = table[(table["metric"] == "speech_to_text_minutes") & (table["period"] == "quarter")]
    assert minutes.set_index("api_key")["actual"]["Organization"] == pytest.approx(1.5 * 74)
    assert set(table["api_key_label"]) == {"Organization", "Label aaaa", "Label bbbb"}


def test_key_forecasts_rank_keys_by_projection():
    kd = usage_frame({"aaaa****0001": [100.0] * 90, "bbbb****0002": [300.0] * 90})
    table = key_forecasts(kd, date(2025, 3, 16), FIRST)
    assert list(table["api_key"]) == ["bbbb****0002", "aaaa****0001"]
    assert list(table["projected"]) == pytest.approx([300 * 31, 100 * 31])
    quarter = key_forecasts(kd, date(2025, 3, 16), FIRST, kind="quarter")
    assert list(quarter["actual"]) == pytest.approx([300 * 74, 100 * 74])


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    days=st.integers(400, 700),
    seed=st.integers(0, 2**16),
    growth=st.floats(-0.001, 0.003),
    ahead=st.integers(1, 200),
)
def test_a_path_rises_day_by_day_with_its_point_inside_its_band(days, seed, growth, ahead):
    """Over any noisy, trending usage, a projection never falls from one day to the next,
    starts from what was used, and its point lies inside its 80 % interval on every day."""
    rng = np.random.default_rng(seed)
    values = pattern(
        days, FIRST, lambda _, i: max(0.0, 1000 * (1 + growth) ** i + rng.normal(0, 200))
    )
    kd = usage_frame({"aaaa****0001": [round(v) for v in values]})
    as_of = FIRST + timedelta(days=days)
    start = as_of - timedelta(days=10)
    path = projection_path(kd, TOTAL, (start, as_of + timedelta(days=ahead)), as_of, FIRST)
    expected = path["expected"].to_numpy()
    assert (np.diff(expected) >= -1e-6).all()
    assert expected[9] == pytest.approx(sum(round(v) for v in values[-10:]))
    assert (path["low"] <= path["expected"] + 1e-6).all()
    assert (path["expected"] <= path["high"] + 1e-6).all()


def test_a_services_characters_take_their_share_of_the_total_characters_forecast():
    """Documents were 100 of the 400 characters a day of the last four weeks: a quarter of
    every projected day of total characters."""
    kd = usage_frame({"aaaa****0001": [300.0] * 90}, documents={"aaaa****0001": [100] * 90})
    as_of = FIRST + timedelta(days=90)
    april = (as_of, date(2025, 4, 30))
    total = projection_path(kd, TOTAL, april, as_of, FIRST)["expected"].to_numpy()
    documents = projection_path(kd, "document_translation_characters", april, as_of, FIRST)
    assert documents["expected"].to_numpy() == pytest.approx(total / 4)


KEYS = ("aaaa****0001", "bbbb****0002", "cccc****0003")
DAYS = 70


@given(
    st.dictionaries(
        st.sampled_from(KEYS),
        st.tuples(
            st.lists(st.integers(0, 10**9), min_size=DAYS, max_size=DAYS),
            st.lists(st.floats(0, 1e4, allow_subnormal=False), min_size=DAYS, max_size=DAYS),
        ),
        min_size=1,
    ),
    st.randoms(use_true_random=False),
)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_table_of_every_key_reads_each_key_as_its_own_rows_would(usage, shuffle):
    """One reading of the frame serves a whole table (``KeyDays``): a key's daily series is
    its own rows summed by day, in any order of the frame's rows, and each key's row of the
    forecast table is the projection of that key made alone, to the unit."""
    frame = usage_frame(
        {key: chars for key, (chars, _) in usage.items()},
        minutes={key: minutes for key, (_, minutes) in usage.items()},
    )
    order = list(frame.index)
    shuffle.shuffle(order)
    frame = frame.loc[order].reset_index(drop=True)
    read = KeyDays(frame, per_key=True)
    for metric in (TOTAL, "speech_to_text_minutes"):
        for key in [*KEYS, "dddd****0004"]:
            own = frame[frame["api_key"] == key].groupby("usage_date")[metric].sum()
            found = read.series(metric, (key,))
            assert found.to_dict() == own.astype(float).to_dict()
        assert read.series(metric) is read.series(metric)  # summed once
    as_of = FIRST + timedelta(days=DAYS)
    table = forecast_table(frame, as_of, FIRST, by_key=True, metrics=[TOTAL])
    for key in set(frame["api_key"]):  # a key that used nothing has no row, nor a table row
        alone = projection_path(frame, TOTAL, (date(2025, 3, 1), date(2025, 3, 31)), as_of,
                                FIRST, (key,))  # fmt: skip
        row = table[(table["api_key"] == key) & (table["period"] == "month")].iloc[0]
        assert (row["projected"], row["low"], row["high"]) == tuple(
            alone.iloc[-1][["expected", "low", "high"]]
        )
