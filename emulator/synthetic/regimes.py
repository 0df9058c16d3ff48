"""Regime changes a real organization's usage goes through, for the organization that asks for
them (`generate(..., seasons=True, regimes=True)`: the benchmark's harder organization for its
forecasts). A forecast that holds on a smooth history can fail on these, so the benchmark
measures it on both.

The largest further keys (neither signature keys nor the onboarding team, which carry shapes
of their own) each go through one, the kinds in turn:

* **crash** — the key falls to `CRASH_SHARE` of its level for `CRASH_DAYS`, then climbs back
  over `RECOVERY_DAYS` (an integration broken, then mended);
* **step** — `STEP_SCALE` times its level from one day on (a team onboarding onto the key);
* **launch** — the key starts on one day and ramps up over `RAMP_DAYS` (a product launch);
* **freeze** — every year from 22 December to 2 January the key keeps `FREEZE_SHARE` of its
  usage (a holiday freeze, on top of the seasons' holiday dips);
* **stop** — its usage stops for good.

The day of each one-off change is drawn from a generator of its own, so every other figure of
a seed stays as it was, anywhere in the history after its first day: a forecast backtested on
the history meets changes in its past at the rate it meets them ahead, as it would on a real
organization's. A freeze recurs from the history's first year-end.
"""

from __future__ import annotations

import datetime as dt
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

from emulator.org import Regime

Kind = Literal["crash", "step", "launch", "freeze", "stop"]
KINDS: Final[tuple[Kind, ...]] = ("crash", "step", "launch", "freeze", "stop")
FREEZE_SHARE: Final = 0.05
FREEZE_FROM: Final = (12, 22)  # month, day: the freeze runs to FREEZE_TO inclusive
FREEZE_TO: Final = (1, 2)
CRASH_SHARE: Final = 0.2
CRASH_DAYS: Final = 42
RECOVERY_DAYS: Final = 56
STEP_SCALE: Final = 3.0
RAMP_DAYS: Final = 180
RAMP_FROM: Final = 0.05  # a launched key's first day, as a share of its level once ramped up
REGIME_KEYS_SHARE: Final = 0.02  # of the keys, at least one of each kind
SIGNATURE_COUNT: Final = 8  # `key_specs.SIGNATURE_KEYS`, which keep their own shapes


def freeze_factors(first_day: dt.date, n_days: int) -> npt.NDArray[np.float64]:
    """Each day's share of usage kept through the holiday freeze (1 outside it)."""
    days = [first_day + dt.timedelta(days=d) for d in range(n_days)]
    frozen = [(d.month, d.day) >= FREEZE_FROM or (d.month, d.day) <= FREEZE_TO for d in days]
    return np.where(frozen, FREEZE_SHARE, 1.0)


def crash_profile(n_days: int, day: int) -> npt.NDArray[np.float64]:
    """A level's share on each day of a crash on ``day`` and the recovery after it."""
    since = np.arange(n_days) - day
    climbing = CRASH_SHARE + (1 - CRASH_SHARE) * (since - CRASH_DAYS) / RECOVERY_DAYS
    profile = np.where(since < CRASH_DAYS, CRASH_SHARE, np.minimum(climbing, 1.0))
    return np.where(since < 0, 1.0, profile)


def draw_regimes(
    rng: np.random.Generator,
    scale: npt.NDArray[np.float64],
    first_day: dt.date,
    n_days: int,
    team: int,
) -> list[Regime]:
    """The keys that go through a regime change, the largest further keys (``scale``) below
    the onboarding team's first key ``team``, each kind in turn, on days drawn from ``rng``
    (a freeze's day: its first year-end's first day)."""
    count = max(len(KINDS), round(len(scale) * REGIME_KEYS_SHARE))
    further = np.arange(SIGNATURE_COUNT, min(team, len(scale)))
    largest = further[np.argsort(-scale[further], kind="stable")][:count]
    # From the second day: a key stopped on the first would never have been used.
    days = rng.integers(1, max(n_days, 2), len(largest))
    first_freeze = int(np.argmax(freeze_factors(first_day, n_days) < 1))
    kinds = [KINDS[i % len(KINDS)] for i in range(len(largest))]
    return [
        Regime(int(key), kind, first_freeze if kind == "freeze" else int(day))
        for key, kind, day in zip(largest, kinds, days, strict=True)
    ]


def key_profile(regime: Regime, first_day: dt.date, n_days: int) -> npt.NDArray[np.float64]:
    """A key's share of its level on each day of its regime (0 where it is not used)."""
    since = np.arange(n_days) - regime.day
    if regime.kind == "freeze":
        return freeze_factors(first_day, n_days)
    if regime.kind == "crash":
        return crash_profile(n_days, regime.day)
    if regime.kind == "step":
        return np.where(since < 0, 1.0, STEP_SCALE)
    if regime.kind == "launch":
        ramp = RAMP_FROM + (1 - RAMP_FROM) * since / RAMP_DAYS
        return np.where(since < 0, 0.0, np.minimum(ramp, 1.0))
    return np.where(since < 0, 1.0, 0.0)
