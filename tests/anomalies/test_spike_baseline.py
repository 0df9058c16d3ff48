"""Spikes against each key's usual day: read from the days of its kind, with each weekday's own
level where it has one, against a spread read over half a year (`analytics.anomalies.baseline`),
and only from days before the one judged.

The series here are made by hand or drawn from a seeded generator in the test: keys that vary
by about a third from day to day (log-normal, σ = 0.35, as the emulator's do), some with a
weekly job that doubles their Mondays. The detector before read each day against the median of
the used same weekdays of eight weeks, with a bound never under about three times that median:
a spike of three to four times the usual day was missed whenever that handful of days happened
to be busy.
"""

from __future__ import annotations

import math
from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.builders import usage_frame
from support.servers import ROOT

from analytics.anomalies.detect import find_anomalies
from analytics.anomalies.measured import MEASURED, method_caption
from analytics.anomalies.usual import baseline

MONDAY = date(2025, 1, 6)
WEEKS = 36  # the half year the spread is read from, and ten weeks more
DAYS = 7 * WEEKS
A, B = "k001****z001", "k002****z002"


def weekday(day: int) -> int:
    return (MONDAY + timedelta(days=day)).weekday()


def spikes(frame: pd.DataFrame, first: date, start: date, end: date) -> list:
    return [a for a in find_anomalies(frame, first, start, end) if a.kind == "spike"]


def weekly_keys(seed: int, keys: int, spiked: bool) -> tuple[dict[str, list[float]], dict]:
    """`keys` keys over WEEKS weeks from a Monday: each at its own level on working days (every
    third key twice that on Mondays, its weekly job), 0.4 of it on the weekend days it is
    used, used on 60-95 % of working days and 30 % of weekend days, each day log-normal around
    its usual level; with one spike each, of 3 to 4 times the usual level of a working day of
    the last four weeks, when `spiked`. The spikes' days and factors by key."""
    rng = np.random.default_rng(seed)
    per_key, injected = {}, {}
    weekend = np.array([weekday(d) >= 5 for d in range(DAYS)])
    mondays = np.array([weekday(d) == 0 for d in range(DAYS)])
    for k in range(keys):
        key = f"k{k:03d}****z{k:03d}"
        level = 5_000 * math.exp(rng.uniform(0, 3))
        job = 2.0 if k % 3 == 0 else 1.0
        usual = level * np.where(weekend, 0.4, np.where(mondays, job, 1.0))
        used = rng.random(DAYS) < np.where(weekend, 0.3, rng.uniform(0.6, 0.95))
        values = np.where(used, usual * rng.lognormal(0, 0.35, DAYS), 0).round()
        day = int(rng.choice(np.nonzero(~weekend[-28:])[0])) + DAYS - 28
        factor = rng.uniform(3, 4)
        if spiked:
            values[day] = round(factor * usual[day])
            injected[key] = (day, factor)
        per_key[key] = values.tolist()
    return per_key, injected


def test_spikes_of_three_to_four_times_on_a_weekly_base_are_found():
    """Three organizations of 150 keys, each key with one spike of 3-4 times its usual day in
    the last four weeks, and their spike-free twins: the detector before found 334 of the 450
    spikes (56 of the 75 on Mondays) and raised 14 alarms on the twins; this one finds 391 (64
    on Mondays) and raises 15."""
    start, end = MONDAY + timedelta(days=DAYS - 28), MONDAY + timedelta(days=DAYS - 1)
    found = on_mondays = mondays = alarms = 0
    for seed in (1, 2, 3):
        per_key, injected = weekly_keys(seed, 150, spiked=True)
        hit = {
            a.api_key
            for a in spikes(usage_frame(per_key, first=MONDAY), MONDAY, start, end)
            if a.first <= MONDAY + timedelta(days=injected[a.api_key][0]) <= a.last
        }
        found += len(hit)
        monday_keys = [k for k, (day, _) in injected.items() if weekday(day) == 0]
        mondays += len(monday_keys)
        on_mondays += sum(k in hit for k in monday_keys)
        clean, _ = weekly_keys(seed, 150, spiked=False)
        alarms += len(spikes(usage_frame(clean, first=MONDAY), MONDAY, start, end))
    assert mondays == 75
    assert found >= 380
    assert on_mondays >= 62
    assert alarms <= 17


@pytest.mark.parametrize("seed", range(5))
def test_a_spike_of_three_and_a_half_times_on_a_noisy_weekly_series_is_found(seed):
    """A key at 20,000 characters a working day and 6,000 a weekend day, every day log-normal
    around that (σ = 0.35): 70,000 on its last Thursday, 3.5 times its level, is the one
    anomaly of its last four weeks, told against about 20,000; the same series without it has
    none."""
    rng = np.random.default_rng(seed)
    level = np.array([20_000 if weekday(d) < 5 else 6_000 for d in range(DAYS)])
    plain = (level * rng.lognormal(0, 0.35, DAYS)).round().tolist()
    thursday = DAYS - 4
    assert weekday(thursday) == 3
    spiked = [70_000 if d == thursday else value for d, value in enumerate(plain)]
    end = MONDAY + timedelta(days=DAYS - 1)
    checked = (MONDAY, end - timedelta(days=27), end)
    [spike] = find_anomalies(usage_frame({A: spiked}, first=MONDAY), *checked)
    assert (spike.kind, spike.first) == ("spike", MONDAY + timedelta(days=thursday))
    assert 17_000 < spike.expected < 23_000
    assert find_anomalies(usage_frame({A: plain}, first=MONDAY), *checked) == []


def test_a_spike_on_a_weekday_busy_by_chance_is_found():
    """A key around 10,000 characters a working day whose last eight Wednesdays happened to be
    busy (median 12,900): 33,000 on the next Wednesday is about three times its usual day,
    read from all its working days. Against those eight Wednesdays alone the detector before
    asked for 2.97 × 12,900 = 38,300, and found nothing."""
    rng = np.random.default_rng(5)
    days = [
        round(10_000 * rng.uniform(0.75, 1.3), -2) if weekday(d) < 5 else 0 for d in range(DAYS)
    ]
    wednesdays = [d for d in range(DAYS) if weekday(d) == 2]
    busy = [13_000, 12_500, 14_000, 11_500, 13_500, 12_000, 12_800, 13_200]
    for day, value in zip(wednesdays[-9:-1], busy, strict=True):
        days[day] = value
    days[wednesdays[-1]] = 33_000
    ballast = [200_000 if weekday(d) < 5 else 0 for d in range(DAYS)]
    frame = usage_frame({A: days, B: ballast}, first=MONDAY)
    end = MONDAY + timedelta(days=DAYS - 1)
    [spike] = spikes(frame, MONDAY, end - timedelta(days=13), end)
    assert spike.first == MONDAY + timedelta(days=wednesdays[-1])
    assert 10_000 < spike.expected < 11_000  # the working days' level, the busy Wednesdays in it
    assert spike.bound == 2.2 * 12_900  # twice and a fifth the busy Wednesdays' median
    assert "its usual Wednesday (expected up to 28,380)" in spike.sentence


def test_a_weekly_job_is_its_weekdays_usual_day():
    """Mondays three times the other working days, every week: a Monday is judged against
    Mondays (twice a Monday is no spike, 80,000 is), a Tuesday against the other working days
    (three times is a spike), however few of the days before are Mondays."""
    values = [
        30_000 if weekday(d) == 0 else 4_000 if weekday(d) >= 5 else 10_000 for d in range(DAYS)
    ]
    mondays = [d for d in range(DAYS) if weekday(d) == 0]
    values[mondays[-3]] = 60_000
    values[mondays[-2] + 1] = 30_000  # a Tuesday
    values[mondays[-1]] = 80_000
    frame = usage_frame({A: values}, first=MONDAY)
    end = MONDAY + timedelta(days=DAYS - 1)
    found = {a.first: a for a in spikes(frame, MONDAY, end - timedelta(days=27), end)}
    tuesday, monday = (MONDAY + timedelta(days=d) for d in (mondays[-2] + 1, mondays[-1]))
    assert set(found) == {tuesday, monday}
    assert (found[tuesday].expected, found[tuesday].bound) == (10_000, 25_000)
    assert "about 3× its usual Tuesday" in found[tuesday].sentence
    assert (found[monday].expected, found[monday].bound) == (30_000, 75_000)
    assert "about 2.7× its usual Monday" in found[monday].sentence


# --- only the days before ------------------------------------------------------------------


@st.composite
def series_and_other_tail(draw: st.DrawFn) -> tuple[list[int], list[int], int]:
    """A key's daily characters (used from its first day, idle on some days, with bursts),
    a day of it, and the same series with every day after that one drawn anew."""
    length = draw(st.integers(70, 260))
    day_value = st.one_of(st.just(0), st.integers(500, 40_000), st.integers(40_000, 400_000))
    rest = draw(st.lists(day_value, min_size=length - 1, max_size=length - 1))
    values = [draw(st.integers(500, 40_000)), *rest]
    cut = draw(st.integers(0, length - 2))
    tail = draw(st.lists(day_value, min_size=length - cut - 1, max_size=length - cut - 1))
    return values, values[: cut + 1] + tail, cut


@settings(max_examples=60)
@given(series_and_other_tail())
def test_a_days_verdict_reads_no_day_after_it(drawn):
    """Whatever the days after a day hold, that day's usual level, its bound and whether it is
    a spike are the same: the detector reads only days before the one it judges."""
    values, other, cut = drawn
    first, end = MONDAY, MONDAY + timedelta(days=len(values) - 1)
    frames = [usage_frame({A: series}, first=first) for series in (values, other)]
    judged = [
        baseline(frame, first, end, A, "total_characters").iloc[: cut + 1] for frame in frames
    ]
    pd.testing.assert_frame_equal(
        judged[0][["expected", "bound"]], judged[1][["expected", "bound"]]
    )

    def spike_days(frame: pd.DataFrame) -> set[date]:
        days = set()
        for spike in spikes(frame, first, first, end):
            days |= {
                spike.first + timedelta(days=i) for i in range((spike.last - spike.first).days + 1)
            }
        return {day for day in days if day <= first + timedelta(days=cut)}

    assert spike_days(frames[0]) == spike_days(frames[1])


def test_the_page_and_the_docs_state_the_measured_figures():
    """The recall and false alarms the benchmark measured (anomaly_recall and
    anomaly_false_alarms at full scale, docs/performance.md) are what the Anomalies page's
    caption and docs/anomalies.md say."""
    assert MEASURED.sentence() == (
        "On the benchmark's synthetic organization it finds 98 of 100 injected spikes of 3 to 12 "
        "times a key's usual day (21 of the 23 of 3 to 4 times), with 0.41 false alarms per key "
        "and year."
    )
    assert MEASURED.sentence() in method_caption()
    docs = " ".join((ROOT / "docs" / "anomalies.md").read_text().split())
    assert "**98 of 100** injected spikes" in docs and "(**21 of the 23** of 3 to 4 times)" in docs
    assert "**0.41 false alarms per key and year** (759 over 1,847.5 key-years)" in docs
