"""Anomaly detection on hand-made key-day frames: every expected figure is written down here.

Ten weeks of usage from Wed 2025-01-01 (day 0); the checked days are the last two weeks, from
Wed 2025-02-26 (day 56), so each has its eight weeks of baseline. Day 63 is Wed 2025-03-05.
A big steady key keeps the organization's own series quiet unless a test says otherwise.
"""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest
from support.builders import FIRST, usage_frame

from analytics.access import Scope, Visible
from analytics.anomalies import ORGANIZATION
from analytics.anomalies.detect import find_anomalies
from analytics.anomalies.listing import named_series
from analytics.anomalies.usual import baseline
from analytics.cost.teams import parse_teams

DAYS = 70
CHECKED = FIRST + timedelta(days=56)
LAST = FIRST + timedelta(days=DAYS - 1)
SPIKE_DAY = FIRST + timedelta(days=63)
A, B, C = "k001****z001", "k002****z002", "k003****z003"
BIG = [200_000] * DAYS  # the organization's ballast: a key 20 times the others
# The bound over a steady usual day m: 2.5 m, the least a spike stands above its usual day
# (SPIKE_RATIO; a steady key has no spread). The old detector's floor, m + 3 × 0.6 m ×
# √(1 + π / 16) = 2.97 m, let a steady key treble unremarked.
STEADY_BOUND = 2.5


def steady(value: float = 10_000, **days: float) -> list[float]:
    """`value` every day; ``d63=90_000`` sets day 63."""
    series = [value] * DAYS
    for name, day_value in days.items():
        series[int(name.removeprefix("d"))] = day_value
    return series


def found(frame: pd.DataFrame, start: date = CHECKED, end: date = LAST) -> list:
    return find_anomalies(frame, FIRST, start, end)


def test_a_spike_is_told_against_the_keys_usual_weekday():
    frame = usage_frame({A: steady(d63=90_000), B: BIG}, labels={A: "Finance reporting"})
    [spike] = found(frame)
    assert spike.id == "spike:k001****z001:total_characters:2025-03-05"
    assert (spike.kind, spike.api_key, spike.label) == ("spike", A, "Finance reporting")
    assert (spike.first, spike.last) == (SPIKE_DAY, SPIKE_DAY)
    assert (spike.observed, spike.expected) == (90_000, 10_000)
    assert spike.bound == pytest.approx(10_000 * STEADY_BOUND)
    assert spike.severity == "medium"  # 9 times the usual day: from 5 times, below 10
    assert spike.sentence == (
        "Finance reporting used 90,000 characters on Wed 2025-03-05, about 9× its usual "
        "Wednesday (expected up to 25,000)."
    )


def test_severity_follows_the_ratio_to_the_usual_day():
    frame = usage_frame({A: steady(d60=40_000, d63=60_000, d66=150_000), B: BIG})
    severities = {a.first: a.severity for a in found(frame)}
    assert severities == {
        FIRST + timedelta(days=60): "low",  # 4×
        SPIKE_DAY: "medium",  # 6×
        FIRST + timedelta(days=66): "high",  # 15×
    }


def test_days_within_the_bound_and_tiny_keys_are_no_spikes():
    rng = np.random.default_rng(3)
    noisy = (10_000 * rng.uniform(0.7, 1.4, DAYS)).round()
    frame = usage_frame(
        {A: noisy.tolist(), B: BIG, C: steady(100, d63=900)}  # C: 9×, but 800 characters
    )
    assert found(frame) == []
    just_below = usage_frame({A: steady(d63=25_000), B: BIG})
    just_above = usage_frame({A: steady(d63=25_100), B: BIG})
    assert found(just_below) == []
    assert [a.observed for a in found(just_above)] == [25_100]


def test_each_weekday_has_its_own_usual_level():
    mondays = [50_000 if (FIRST + timedelta(days=i)).weekday() == 0 else 5_000 for i in range(DAYS)]
    busy_monday = usage_frame({A: mondays, B: BIG})
    assert found(busy_monday) == []  # 50,000 on a Monday is what Mondays are
    mondays[63] = 50_000  # a Wednesday like a Monday
    [spike] = found(usage_frame({A: mondays, B: BIG}))
    assert (spike.first, spike.observed, spike.expected) == (SPIKE_DAY, 50_000, 5_000)
    assert spike.severity == "high"


def test_a_weekday_seldom_used_is_judged_against_the_weeks_working_days():
    # Used every day but Tuesday, and on two of the eight Tuesdays before 2025-03-04.
    days = [0.0 if (FIRST + timedelta(days=i)).weekday() == 1 else 10_000.0 for i in range(DAYS)]
    days[6] = days[13] = 10_000  # Tuesdays 2025-01-07 and 2025-01-14
    days[62] = 90_000  # Tue 2025-03-04
    [spike] = found(usage_frame({A: days, B: BIG}))
    assert (spike.first, spike.observed, spike.expected) == (
        SPIKE_DAY - timedelta(1),
        90_000,
        10_000,
    )
    assert "its usual Tuesday" in spike.sentence


def test_consecutive_spike_days_are_one_anomaly_told_at_its_peak():
    [spike] = found(usage_frame({A: steady(d63=60_000, d64=90_000), B: BIG}))
    assert spike.id == "spike:k001****z001:total_characters:2025-03-05"
    assert (spike.first, spike.last, spike.observed) == (
        SPIKE_DAY,
        SPIKE_DAY + timedelta(1),
        90_000,
    )
    assert spike.sentence == (
        "Label k001 used 90,000 characters on Thu 2025-03-06, about 9× its usual Thursday "
        "(expected up to 25,000). Above its usual level for 2 days, Wed 2025-03-05 to "
        "Thu 2025-03-06."
    )


def test_a_keys_metrics_that_spike_together_are_one_anomaly_on_the_furthest():
    frame = usage_frame({A: steady(d63=80_000), B: BIG}, documents={A: steady(5_000, d63=10_000)})
    # Total characters 15,000 → 90,000 (6×), text 10,000 → 80,000 (8×), documents 2×.
    [spike] = found(frame)
    assert (spike.metric, spike.observed, spike.expected) == (
        "text_translation_characters",
        80_000,
        10_000,
    )
    assert "80,000 text translation characters" in spike.sentence


def test_minutes_are_told_in_minutes():
    minutes = steady(12.5, d63=100.0)
    frame = usage_frame({A: [0] * DAYS, B: BIG}, minutes={A: minutes, B: [500.0] * DAYS})
    [spike] = found(frame)
    assert spike.metric == "speech_to_text_minutes"
    assert spike.sentence == (
        "Label k001 used 100.00 speech-to-text minutes on Wed 2025-03-05, about 8× its usual "
        "Wednesday (expected up to 31.25)."
    )


def test_the_organization_is_judged_too():
    team = {f"k{i:03d}****z{i:03d}": steady(d63=40_000) for i in range(20)}
    spikes = {a.api_key: a for a in found(usage_frame(team))}
    assert set(spikes) == {*team, ORGANIZATION}
    whole = spikes[ORGANIZATION]
    assert whole.id == "spike:organization:total_characters:2025-03-05"
    assert (whole.label, whole.observed, whole.expected) == ("Organization", 800_000, 200_000)
    assert whole.sentence == (
        "The organization used 800,000 characters on Wed 2025-03-05, about 4× its usual "
        "Wednesday (expected up to 500,000)."
    )
    # Made up of fewer than twenty keys, the organization repeats them: it is not judged.
    few = {key: values for key, values in list(team.items())[:19]}
    assert ORGANIZATION not in {a.api_key for a in found(usage_frame(few))}


def test_a_steady_key_that_stops_for_three_days_drops():
    frame = usage_frame({A: steady(d63=0, d64=0, d65=0), B: BIG, C: steady(d63=0, d64=0)})
    [drop] = found(frame)  # C's two days are still chance: (1/18)² is not rare enough
    assert drop.id == "drop:k001****z001:total_characters:2025-03-05"
    assert (drop.first, drop.last) == (SPIKE_DAY, SPIKE_DAY + timedelta(2))
    assert (drop.observed, drop.expected, drop.bound) == (0, 30_000, 1_500)
    assert drop.severity == "medium"  # 30,000 of the organization's about 660,000
    assert drop.sentence == (
        "Label k001 used no characters from Wed 2025-03-05 to Fri 2025-03-07 (3 days), where "
        "about 30,000 would be usual."
    )


def test_a_key_used_every_other_day_does_not_drop_after_a_quiet_week():
    alternate = [10_000 if i % 2 else 0 for i in range(DAYS)]
    for day in range(58, 65):
        alternate[day] = 0
    assert found(usage_frame({A: alternate, B: BIG})) == []


def test_a_new_key_with_material_usage():
    tiny = [0] * 63 + [50] * 7
    fresh = [0] * 63 + [30_000, 12_000] + [0] * 5
    [new] = found(usage_frame({A: steady(), B: BIG, C: fresh, "k004****z004": tiny}))
    assert new.id == "new:k003****z003:total_characters:2025-03-05"
    assert (new.first, new.last, new.observed, new.expected) == (SPIKE_DAY, SPIKE_DAY, 30_000, 0)
    assert new.bound == pytest.approx(2_100)  # 1 % of the organization's usual 210,000
    assert new.severity == "high"  # 14 % of the organization's usual day
    assert new.sentence == (
        "Label k003 is a new key, first used on Wed 2025-03-05: up to 30,000 characters a day "
        "in its first week, 14.3\u202f% of the organization's usual day."
    )


# Two teams by masked key: A and C are Marketing's, B (the organization's ballast) Web shop's.
TEAMS = parse_teams(
    f'[[team]]\nname = "Marketing"\nkeys = ["{A}", "{C}"]\n\n'
    f'[[team]]\nname = "Web shop"\nkeys = ["{B}"]\n'
)
MARKETING = Scope(frozenset({"Marketing"}))


def found_by(scope: Scope, frame: pd.DataFrame) -> list:
    """The anomalies a scope is shown: its keys' rows, judged against their own sum."""
    return find_anomalies(
        Visible(scope, TEAMS).key_day(frame), FIRST, CHECKED, LAST, scope.whole_series
    )


def test_a_teams_new_key_is_weighed_against_the_teams_usual_day_and_says_so():
    fresh = [0] * 63 + [30_000, 12_000] + [0] * 5
    frame = usage_frame({A: steady(), B: BIG, C: fresh})
    [whole] = found_by(Scope(), frame)
    assert whole.sentence == (
        "Label k003 is a new key, first used on Wed 2025-03-05: up to 30,000 characters a day "
        "in its first week, 14.3\u202f% of the organization's usual day."
    )
    # Marketing's usual day is A's 10,000 alone: the new key is three of them.
    [team] = found_by(MARKETING, frame)
    assert team.id == whole.id
    assert team.sentence == (
        "Label k003 is a new key, first used on Wed 2025-03-05: up to 30,000 characters a day "
        "in its first week, 300.0\u202f% of team Marketing's usual day."
    )
    assert team.bound == pytest.approx(1_000)  # MIN_EXCESS over 1 % of the team's 10,000


def test_a_teams_first_usage_of_a_metric_is_the_teams():
    spoken = [0.0] * 63 + [40.0] + [0.0] * 6
    frame = usage_frame({A: steady(), B: BIG, C: [0] * DAYS}, minutes={C: spoken})
    [team] = found_by(MARKETING, frame)
    assert team.sentence == (
        "Label k003 is a new key, first used on Wed 2025-03-05: up to 40.00 speech-to-text "
        "minutes a day in its first week, team Marketing's first such usage."
    )


def test_the_organizations_series_is_judged_for_the_organization_only():
    """Twenty keys of one team spiking together: the organization's series spikes for the
    organization; a team's scope sees its keys' spikes, and no series named the
    organization's (an anomaly's id names the organization's series, never a team's)."""
    team = {f"k{i:03d}****z{i:03d}": steady(d63=40_000) for i in range(20)}
    teams = parse_teams(f'[[team]]\nname = "Marketing"\nkeys = {list(team)!r}\n'.replace("'", '"'))
    frame = usage_frame(team)
    whole = find_anomalies(frame, FIRST, CHECKED, LAST, Scope().whole_series)
    assert ORGANIZATION in {a.api_key for a in whole}
    seen = Visible(MARKETING, teams).key_day(frame)
    shown = find_anomalies(seen, FIRST, CHECKED, LAST, MARKETING.whole_series)
    assert {a.api_key for a in shown} == set(team)
    assert not [a for a in shown if "organization" in a.sentence.lower()]


def test_a_new_keys_days_end_on_the_day_its_observed_peak_is_from():
    fresh = [0] * 63 + [8_000, 12_000, 30_000] + [0] * 4
    [new] = found(usage_frame({A: steady(), B: BIG, C: fresh}))
    peak_day = SPIKE_DAY + timedelta(days=2)
    assert (new.first, new.last, new.observed) == (SPIKE_DAY, peak_day, 30_000)
    assert new.id == "new:k003****z003:total_characters:2025-03-05"  # still its first day


def test_a_dormant_key_used_again_and_its_silence():
    woken = [5_000] * 21 + [0] * 42 + [1_500] + [0] * 6
    anomalies = {a.kind: a for a in found(usage_frame({A: woken, B: BIG}))}
    assert set(anomalies) == {"dormant", "drop"}
    dormant = anomalies["dormant"]
    assert dormant.id == "dormant:k001****z001:total_characters:2025-03-05"
    assert dormant.sentence == (
        "Label k001 was used again on Wed 2025-03-05 after 42 days without usage: 1,500 characters."
    )
    assert dormant.severity == "low"  # 1,500 of the organization's usual 201,250: under 1 %
    # The silence began before the checked days and lasted into them: a drop since Jan 22.
    assert (anomalies["drop"].first, anomalies["drop"].last) == (
        FIRST + timedelta(days=21),
        FIRST + timedelta(days=62),
    )


def test_only_anomalies_reaching_the_checked_days_are_reported():
    frame = usage_frame({A: steady(d40=90_000, d63=90_000), B: BIG})
    assert [a.first for a in found(frame)] == [SPIKE_DAY]
    assert found(frame, end=SPIKE_DAY - timedelta(1)) == []
    with pytest.raises(ValueError, match="must lie within"):
        find_anomalies(frame, CHECKED, FIRST, LAST)


def test_most_severe_first_then_newest():
    frame = usage_frame({A: steady(d60=40_000, d66=40_000), C: steady(d63=150_000), B: BIG})
    assert [(a.severity, a.first.day) for a in found(frame)] == [
        ("high", 5),
        ("low", 8),
        ("low", 2),
    ]


def test_baseline_of_a_series_for_its_chart():
    frame = usage_frame({A: steady(d63=90_000), B: BIG})
    days = baseline(frame, FIRST, LAST, A, "total_characters")
    assert list(days.columns) == ["usage_date", "observed", "expected", "bound"]
    assert len(days) == DAYS and days["usage_date"].iloc[63] == pd.Timestamp(SPIKE_DAY)
    assert days["observed"].iloc[63] == 90_000
    # Judged once three used days of its kind are behind it: working days from Mon 2025-01-06
    # (after Jan 1-3), weekend days from Sun 2025-01-12 (after Jan 4, 5 and 11); on the same
    # weekdays alone from Wed 2025-01-22.
    unjudged = days.index[days["expected"].isna()].tolist()
    assert unjudged == [0, 1, 2, 3, 4, 10]
    assert days["expected"].dropna().eq(10_000).all()
    # A steady key has no spread: its bound is the least ratio on every judged day, however
    # few days are behind it (the widening for few days widens a spread).
    assert days["bound"].dropna().eq(10_000 * STEADY_BOUND).all()
    assert days["bound"].iloc[63] == pytest.approx(10_000 * STEADY_BOUND)
    team = usage_frame({f"k{i:03d}****z{i:03d}": steady(d63=90_000) for i in range(20)})
    whole = baseline(team, FIRST, LAST, ORGANIZATION, "total_characters")
    assert whole["observed"].iloc[63] == 1_800_000
    assert whole["expected"].iloc[63] == 200_000


def test_an_empty_frame_has_no_anomalies():
    assert found(usage_frame({})) == []


def test_the_organizations_metric_made_up_of_few_keys_is_left_to_them():
    def organization_spikes(document_keys: int) -> list:
        keys = {f"k{i:03d}****z{i:03d}": [1_000] * DAYS for i in range(document_keys)}
        documents = {key: steady(1_000, d63=4_000) for key in keys}
        frame = usage_frame({**keys, B: BIG}, documents=documents)
        return [a.metric for a in found(frame) if a.api_key == ORGANIZATION]

    # Every key's documents quadruple on one day: the organization's documents too, but
    # with fewer than twenty keys using documents that says nothing their own spikes do not.
    assert organization_spikes(19) == []
    assert organization_spikes(20) == ["document_translation_characters"]


@pytest.mark.parametrize(
    ("asked", "series"),
    [
        ("spike:k001****z001:total_characters:2025-03-05", A),
        ("drop:organization:speech_to_text_minutes:2025-03-05", ORGANIZATION),
        ("New key · Mail · merge (k003****z003) · characters · on Wed 2025-03-05", C),
        ("Dormant key used · k002****z002 · characters · on Wed 2025-03-05", B),
        ("Spike · Organization · characters · from Wed 2025-03-05 to Fri 2025-03-07", ORGANIZATION),
        ("Finance reporting", None),
        ("", None),
    ],
)
def test_an_anomaly_is_of_the_series_its_id_or_name_says(asked, series):
    assert named_series(asked) == series
