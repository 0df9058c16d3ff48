"""The harder organization's regime changes (`generate(..., regimes=True)`): each of its keys
with a regime follows its kind's profile day by day against the same organization without
regimes, and every other key is untouched."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from emulator.synthetic import generate
from emulator.synthetic.regimes import KINDS, key_profile

TODAY = dt.date(2026, 11, 25)
DAYS = 1500
FIRST = TODAY - dt.timedelta(days=DAYS)


def characters(org) -> dict[tuple[int, int], int]:
    """Each (key, day index)'s characters."""
    return {
        (key, (dt.date.fromisoformat(day) - FIRST).days): sum(counts[:3])
        for day, key, _, *counts in org.usage
    }


@pytest.fixture(scope="module")
def both():
    plain = generate(11, 60, DAYS, TODAY, anomalies=False, seasons=True)
    hard = generate(11, 60, DAYS, TODAY, anomalies=False, seasons=True, regimes=True)
    return plain, hard


def test_each_kind_goes_to_one_of_the_largest_further_keys_anywhere_in_the_history(both):
    plain, hard = both
    assert plain.regimes == []
    assert [r.kind for r in hard.regimes] == list(KINDS)  # 60 keys: one of each
    assert all(8 <= r.key < 54 for r in hard.regimes)  # neither signature nor onboarding
    for regime in hard.regimes:
        if regime.kind == "freeze":
            assert FIRST + dt.timedelta(days=regime.day) == dt.date(2022, 12, 22)
        else:
            assert 1 <= regime.day < DAYS


def test_one_off_changes_fall_across_the_whole_history():
    """A benchmark backtesting the history meets changes in its past as often as ahead: the
    one-off days of a thousand keys' twenty changes span it, its first and last years too."""
    org = generate(42, 1000, 1826, TODAY, anomalies=False, seasons=True, regimes=True)
    days = sorted(r.day for r in org.regimes if r.kind != "freeze")
    assert len(days) == 16
    assert 1 <= days[0] < 365 and 1826 - 365 <= days[-1] < 1826


def test_a_key_with_a_regime_follows_its_profile_and_the_others_are_untouched(both):
    """The same draws make both organizations: a key's day with a regime is its plain day
    times the regime's share of that day (to the rounding of its three services); a stopped
    key has no day from its stop on, a launched key none before its launch."""
    plain, hard = both
    before, after = characters(plain), characters(hard)
    changed = {r.key: r for r in hard.regimes}
    assert {k: v for k, v in before.items() if k[0] not in changed} == {
        k: v for k, v in after.items() if k[0] not in changed
    }
    for key, regime in changed.items():
        profile = key_profile(regime, FIRST, DAYS)
        days = [d for k, d in after if k == key]
        if regime.kind == "stop":
            assert max(days) < regime.day
        if regime.kind == "launch":
            assert min(days) >= regime.day
        shared = [d for d in days if (key, d) in before and before[key, d] > 1000]
        assert len(shared) > 100, regime
        got = np.array([after[key, d] for d in shared], dtype=float)
        want = np.array([before[key, d] * profile[d] for d in shared])
        # Each of the three services is rounded to the character, in both organizations.
        assert (np.abs(got - want) <= 1.5 + 1.5 * profile[shared]).all(), regime
        assert profile.min() < 0.5 or regime.kind == "step"
