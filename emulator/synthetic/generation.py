"""The synthetic organization drawn in one go (`generate`): keys, their usage as one keys × days
matrix, the injected anomalies, custom tags and language pairs, each from the modules of this
package, with the plan its recent usage fits."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

import numpy as np

from emulator.ledger import USAGE_RECORD, UsageRows
from emulator.org import Injected, KeySpec, Organization, Regime
from emulator.synthetic.custom_tags import draw_many_tags, draw_tags
from emulator.synthetic.injection import MIN_INJECT_DAYS, Drawn, inject
from emulator.synthetic.key_specs import (
    SIGNATURE_KEYS,
    draw_keys,
    keep_places_free,
    lifecycle,
)
from emulator.synthetic.language_pairs import draw_pairs
from emulator.synthetic.regimes import draw_regimes, key_profile
from emulator.synthetic.seasons import ONBOARDING_SCALE, day_factors, onboarding
from emulator.synthetic.shapes import (
    CHARACTERS_PER_MINUTE,
    MIXES,
    PLAN_DAYS,
    STARTS_WITHIN,
    WEEKEND_ACTIVITY,
    interpreted_minutes,
    plan_from_usage,
)


def generate(
    seed: int,
    n_keys: int,
    n_days: int,
    today: dt.date,
    anomalies: bool = True,
    n_tags: int | None = None,
    seasons: bool = False,
    regimes: bool = False,
) -> Organization:
    """`n_keys` keys with `n_days` of history ending yesterday (relative to `today`), with
    injected anomalies (`Organization.injected`) unless `anomalies` is False: the clean
    organization. `n_tags` distinct custom tags with a long tail (`draw_many_tags`) in place of
    the dozen shared ones; the usage is the same either way. `seasons` puts the year's calendar
    into the usage (`synthetic.seasons`), `regimes` regime changes (`synthetic.regimes`)."""
    if n_keys < 3 or n_days < 1:
        raise ValueError("a synthetic organization needs at least 3 keys and 1 day")
    rng = np.random.default_rng(seed)
    keys = draw_keys(rng, n_keys)
    shapes = [SIGNATURE_KEYS[i][2] if i < len(SIGNATURE_KEYS) else "" for i in range(n_keys)]
    shapes = [
        s or str(rng.choice(["text", "text", "mixed", "documents", "rephrase", "speech"]))
        for s in shapes
    ]
    first_day = today - dt.timedelta(days=n_days)
    habits = draw_habits(rng, seed, shapes, first_day, n_days, seasons, regimes)
    active, usual, level = draw_levels(rng, habits, shapes, first_day, n_days)
    mix = np.array([MIXES[s] for s in shapes])
    chars = np.empty((n_keys, n_days, len(mix[0])), dtype=np.int64)
    np.rint(level[:, :, None] * mix[:, None, :], out=chars, casting="unsafe")
    speech = np.zeros((n_keys, n_days))
    for k, shape in enumerate(shapes):
        if shape == "speech":
            speech[k] = np.round(level[k] / CHARACTERS_PER_MINUTE["speech_to_text_minutes"], 2)
    interpreting = interpreted_minutes(np.random.default_rng([seed, 1]), shapes, level)
    injected: list[Injected] = []
    if anomalies and n_days >= MIN_INJECT_DAYS:
        weekend = weekends(first_day, n_days)
        drawn = Drawn(
            active, chars, speech, interpreting, usual, mix, weekend, habits.start, first_day
        )
        injected = inject(
            np.random.default_rng([seed, 4]), drawn, keys, shapes, habits.p_active, habits.scale
        )
    rows = usage_rows(active, chars, speech, interpreting, keys, first_day)
    recent = slice(max(n_days - PLAN_DAYS, 0), n_days)
    plan = plan_from_usage(
        first_day,
        active[:, recent, None]
        * np.dstack([chars[:, recent], speech[:, recent], interpreting[:, recent]]),
    )
    keys = with_tags_and_pairs(seed, keys, active, chars, first_day, n_tags)
    keys = lifecycle(np.random.default_rng([seed, 5]), keys, rows, plan, today)
    keys = keep_places_free(keys, n_keys, injected, today)
    return Organization(keys=keys, usage=rows, plan=plan, injected=injected, regimes=habits.changes)


def weekends(first_day: dt.date, n_days: int) -> np.ndarray:
    """Which of the `n_days` from `first_day` fall on a Saturday or a Sunday, when keys are
    used less."""
    return ((first_day.weekday() + np.arange(n_days)) % 7) >= 5


@dataclass
class Habits:
    """Each key's drawn habits, one entry a key: the span of days it is used (`start` to
    `stop`, days from the history's first), its size, growth and odds of use on a working day;
    the calendar's factor of each day, and the regime changes. Drawn apart from the usage they
    shape so that a season or a regime changes a key's habits, never how usage is drawn."""

    start: np.ndarray
    stop: np.ndarray
    scale: np.ndarray
    growth: np.ndarray
    p_active: np.ndarray
    factors: np.ndarray
    changes: list[Regime]


def draw_habits(
    rng: np.random.Generator,
    seed: int,
    shapes: list[str],
    first_day: dt.date,
    n_days: int,
    seasons: bool,
    regimes: bool,
) -> Habits:
    """Each key's habits, with the year's seasons and an onboarding team (`seasons`) and the
    regime changes (`regimes`) put into them."""
    n_keys = len(shapes)
    start = rng.integers(0, max(int(n_days * STARTS_WITHIN), 1), n_keys)
    stop = np.full(n_keys, n_days)
    start[: min(3, n_keys)] = 0
    if "dormant" in shapes:
        stop[shapes.index("dormant")] = max(n_days // 2, 1)
    scale = rng.lognormal(8.3, 1.0, n_keys)
    growth = rng.uniform(0.0, 1.6, n_keys)
    p_active = rng.uniform(0.4, 0.85, n_keys)

    factors = np.ones(n_days)
    team_from = n_keys  # the onboarding team's first key, when there is one
    if seasons:
        factors = day_factors(first_day, n_days)
        if (step := onboarding(n_keys, n_days)) is not None:
            team, onboarded = step
            start[team] = onboarded
            scale[team] *= ONBOARDING_SCALE
            team_from = int(team[0])
    changes: list[Regime] = []
    if regimes:
        changes = draw_regimes(
            np.random.default_rng([seed, 6]), scale, first_day, n_days, team_from
        )
        for change in changes:
            # A key with a regime is used from the history's start (a launch from its day) to
            # its end (a stopped key to its day).
            start[change.key] = change.day if change.kind == "launch" else 0
            stop[change.key] = change.day if change.kind == "stop" else n_days
    return Habits(start, stop, scale, growth, p_active, factors, changes)


def draw_levels(
    rng: np.random.Generator, habits: Habits, shapes: list[str], first_day: dt.date, n_days: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which key-days are used, each key-day's usual level and its level drawn around it (keys
    × days matrices); the launch key starts halfway, its `habits.start` moved there."""
    n_keys = len(shapes)
    day = np.arange(n_days)
    weekend = weekends(first_day, n_days)
    t = day / max(n_days - 1, 1)
    # Key-days within the key's span, drawn at the key's odds (lower on weekends); the
    # keys × days matrices are the bulk of the memory generating takes, so none is kept that
    # is not needed.
    in_span = (day >= habits.start[:, None]) & (day < habits.stop[:, None])
    active = in_span & (
        rng.random((n_keys, n_days))
        < habits.p_active[:, None] * np.where(weekend, WEEKEND_ACTIVITY, 1.0)
    )
    # The usual level of each key-day, then the day-to-day noise around it.
    usual = (
        habits.scale[:, None]
        * np.exp(habits.growth[:, None] * t)
        * np.where(weekend, 0.4, 1.0)
        * habits.factors
    )
    for change in habits.changes:
        usual[change.key] *= key_profile(change, first_day, n_days)
    level = usual * rng.lognormal(0.0, 0.35, (n_keys, n_days))
    if "launch" in shapes:
        k = shapes.index("launch")
        launch = n_days // 2
        habits.start[k] = launch
        active[k, :launch] = False
        level[k] *= 1 + 8 * np.exp(-np.maximum(day - launch, 0) / 7.0)
    return active, usual, level


def usage_rows(
    active: np.ndarray,
    chars: np.ndarray,
    speech: np.ndarray,
    interpreting: np.ndarray,
    keys: list[KeySpec],
    first_day: dt.date,
) -> UsageRows:
    """The used key-days as the ledger's records, ordered by day, then key; the third key
    renamed partway through."""
    n_keys, n_days = active.shape
    relabel_day = n_days * 3 // 5
    k_idx, d_idx = np.nonzero(active.T)[::-1]  # ordered by day, then key
    records = np.empty(len(k_idx), USAGE_RECORD)
    records["day"], records["key"] = d_idx, k_idx
    # Each row's label: its key's, but the relabelled key's former one (after every key's)
    # before the day it was renamed.
    records["label"] = np.where((k_idx == 2) & (d_idx < relabel_day), n_keys, k_idx)
    records["characters"] = chars[k_idx, d_idx]
    records["minutes"][:, 0] = speech[k_idx, d_idx]
    records["minutes"][:, 1] = interpreting[k_idx, d_idx]
    return UsageRows(
        [(first_day + dt.timedelta(days=d)).isoformat() for d in range(n_days)],
        [*(k.label for k in keys), SIGNATURE_KEYS[2][0]],
        records,
    )


def with_tags_and_pairs(
    seed: int,
    keys: list[KeySpec],
    active: np.ndarray,
    chars: np.ndarray,
    first_day: dt.date,
    n_tags: int | None,
) -> list[KeySpec]:
    """Each key given its custom tags and language pairs, drawn from generators of their own so
    that the usage is the same whichever tags are asked for."""
    n_keys, n_days = active.shape
    tag_rng = np.random.default_rng([seed, 2])
    if n_tags is None:
        tags = draw_tags(tag_rng, n_keys, first_day, n_days)
    else:
        # Tags are shares of text translation and of improvement, each floored on its own.
        taggable = np.where(active, chars[:, :, [0, 2]].max(axis=2), 0)
        tags = draw_many_tags(tag_rng, taggable, first_day, n_tags)
    pairs = draw_pairs(np.random.default_rng([seed, 3]), n_keys)
    return [
        replace(spec, tags=key_tags, pairs=key_pairs)
        for spec, key_tags, key_pairs in zip(keys, tags, pairs, strict=True)
    ]
