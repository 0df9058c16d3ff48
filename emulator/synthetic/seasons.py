"""The calendar a real organization's usage follows beyond its weekly rhythm, for the
organizations that ask for it (`generate(..., seasons=True)`, the benchmark's forecasts): a
yearly season with a summer low, holiday dips at the year's turn, and a team onboarding on
one day (a step change in the organization's total).

The demo organization keeps its plain shape: its figures, injected anomalies and the tests
that read them do not move with this module.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

# The yearly season: usage peaks in early spring and is lowest in mid-August, by this much
# on either side of the year's mean.
SEASON_AMPLITUDE = 0.15
SEASON_PEAK_DAY = 60  # day of the year
# Days of the year at reduced usage, and the share of usage they keep: the year's turn.
HOLIDAYS = ((12, 24), (12, 25), (12, 26), (12, 31), (1, 1))
HOLIDAY_SHARE = 0.3
BRIDGE_DAYS = ((12, 27), (12, 28), (12, 29), (12, 30))  # between the holidays: half the usage
BRIDGE_SHARE = 0.6
# The onboarding team: this share of keys (at least two) starts together this many days before
# the history's end, at this many times a usual key's level.
ONBOARDING_SHARE = 0.1
ONBOARDING_DAYS_AGO = 240
ONBOARDING_SCALE = 3.0


def day_factors(first_day: dt.date, n_days: int) -> np.ndarray:
    """Each day's factor on the usual level: the yearly season times any holiday's share."""
    days = [first_day + dt.timedelta(days=d) for d in range(n_days)]
    day_of_year = np.array([d.timetuple().tm_yday for d in days])
    season = 1 + SEASON_AMPLITUDE * np.cos(2 * np.pi * (day_of_year - SEASON_PEAK_DAY) / 365.25)
    shares = {**dict.fromkeys(BRIDGE_DAYS, BRIDGE_SHARE), **dict.fromkeys(HOLIDAYS, HOLIDAY_SHARE)}
    holiday = np.array([shares.get((d.month, d.day), 1.0) for d in days])
    return season * holiday


def onboarding(n_keys: int, n_days: int) -> tuple[np.ndarray, int] | None:
    """The keys of the onboarding team (the last ones, which carry no signature shape) and the
    day they start; None when the history is too short to hold the step."""
    team = max(2, round(n_keys * ONBOARDING_SHARE))
    day = n_days - ONBOARDING_DAYS_AGO
    if day < 1 or team >= n_keys - 8:
        return None
    return np.arange(n_keys - team, n_keys), day
