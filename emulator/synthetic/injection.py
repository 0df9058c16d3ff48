"""Known anomalies put into the synthetic organization's last months: a dormant key used again,
a drop, a new key and spikes, each on a key of its own, and listed so that detection can be
measured against them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from emulator.org import Injected, KeySpec
from emulator.synthetic.key_specs import SIGNATURE_KEYS
from emulator.synthetic.shapes import CHARACTERS_PER_MINUTE

# Injected anomalies fall in the last INJECT_DAYS days, on keys with at least BASELINE_DAYS of
# history before them (eight weeks, and one more), in organizations of MIN_INJECT_DAYS or more.
INJECT_DAYS = 90
BASELINE_DAYS = 63
MIN_INJECT_DAYS = 100
SPIKE_EVERY = 10  # one spike per ten keys, at least MIN_SPIKES, each on a key of its own
MIN_SPIKES = 3
SPIKE_FACTORS = (3.0, 12.0)  # drawn log-uniformly: usage ÷ the key's usual level that day
# A spike adds at least this to its metric's usual day (characters, minutes): a tenfold jump
# from 50 to 500 characters is no news to anyone.
MATERIAL_SPIKE = {"characters": 2_000.0, "minutes": 2.0}
# Days before today: a drop from DROP_FROM to DROP_TO (inclusive), a new key from NEW_KEY_FROM,
# a key unused from DORMANT_FROM and used again on DORMANT_WAKES.
DROP_FROM, DROP_TO = 25, 12
NEW_KEY_FROM = 20
DORMANT_FROM, DORMANT_WAKES = 55, 10
# Keys that carry no key-level event: their shape is the point (relabelled, dormant, launch,
# speech). Signature keys take events only in an organization without further keys.
EVENT_FALLBACK = (7, 5, 1, 0)


@dataclass
class Drawn:
    """The drawn matrices of an organization (keys × days, characters × their three services),
    which `inject` changes in place, and what it needs to know about them."""

    active: np.ndarray
    chars: np.ndarray
    speech: np.ndarray
    interpreting: np.ndarray
    usual: np.ndarray
    mix: np.ndarray
    weekend: np.ndarray
    start: np.ndarray
    first_day: dt.date

    def day(self, index: int) -> dt.date:
        return self.first_day + dt.timedelta(days=int(index))

    def series(self, key: int, day: int, level: float) -> dict[str, float]:
        """The stored metrics the key uses on `day`, as a day at `level` gives them."""
        used = {
            **dict(zip(CHARACTER_SERVICES, self.chars[key, day] > 0, strict=True)),
            "speech_to_text_minutes": self.speech[key, day] > 0,
            "speech_to_speech_minutes": self.interpreting[key, day] > 0,
        }
        return {metric: self.value(key, metric, level) for metric, on in used.items() if on}

    def value(self, key: int, metric: str, level: float) -> float:
        """What a day at `level` gives the key's `metric`."""
        if metric in CHARACTER_SERVICES:
            return float(level * self.mix[key, CHARACTER_SERVICES.index(metric)])
        return level / CHARACTERS_PER_MINUTE[metric]

    def set(self, key: int, day: int, metric: str, level: float) -> None:
        """Make the key-day's `metric` what a day at `level` gives it."""
        if metric in CHARACTER_SERVICES:
            self.chars[key, day, CHARACTER_SERVICES.index(metric)] = round(
                self.value(key, metric, level)
            )
        else:
            minutes = self.speech if metric == "speech_to_text_minutes" else self.interpreting
            minutes[key, day] = round(self.value(key, metric, level), 2)


# The three character services, in the order of the drawn characters (see series.MIXES).
CHARACTER_SERVICES = (
    "text_translation_characters",
    "document_translation_characters",
    "text_improvement_characters",
)


def inject(
    rng: np.random.Generator,
    drawn: Drawn,
    keys: list[KeySpec],
    shapes: list[str],
    p_active: np.ndarray,
    scale: np.ndarray,
) -> list[Injected]:
    """Put known anomalies into the last INJECT_DAYS days, each on a key of its own: a dormant
    key used again and a drop (the most regular keys), a new key (the biggest: its usage is
    material), then spikes of SPIKE_FACTORS times a key's usual level on working days. Events that
    do not fit the organization (too few keys or too short a history) are left out."""
    n_keys, n_days = drawn.active.shape
    further = list(range(len(SIGNATURE_KEYS), n_keys))
    candidates = further or [k for k in EVENT_FALLBACK if k < n_keys]
    injected: list[Injected] = []

    def pick(ready_by: int, rank: np.ndarray) -> int | None:
        """The best-ranked candidate with BASELINE_DAYS of history before day `ready_by`."""
        ready = [k for k in candidates if drawn.start[k] + BASELINE_DAYS <= ready_by]
        if not ready:
            return None
        chosen = max(ready, key=lambda k: rank[k])
        candidates.remove(chosen)
        return chosen

    def event(kind: str, key: int, first: int, last: int) -> None:
        injected.append(
            Injected(kind, keys[key].masked, "total_characters", drawn.day(first), drawn.day(last))
        )

    # The event that needs the longest history picks first.
    silent_from, wakes = n_days - DORMANT_FROM, n_days - DORMANT_WAKES
    if (key := pick(silent_from, p_active)) is not None:
        drawn.active[key, silent_from:wakes] = False
        drawn.active[key, wakes] = True
        event("dormant", key, wakes, wakes)
    drop_from, drop_to = n_days - DROP_FROM, n_days - DROP_TO
    if (key := pick(drop_from, p_active)) is not None:
        drawn.active[key, drop_from : drop_to + 1] = False
        event("drop", key, drop_from, drop_to)
    new_from = n_days - NEW_KEY_FROM
    if (key := pick(new_from + BASELINE_DAYS, scale)) is not None:
        drawn.active[key, :new_from] = False
        drawn.active[key, new_from] = True
        event("new", key, new_from, new_from)
    busy = {k for k in range(n_keys) if shapes[k] in ("dormant", "launch")}
    busy |= {k for k in range(n_keys) if keys[k].masked in {i.api_key for i in injected}}
    return injected + _spikes(rng, drawn, keys, busy)


def _spikes(
    rng: np.random.Generator, drawn: Drawn, keys: list[KeySpec], busy: set[int]
) -> list[Injected]:
    """Spikes of SPIKE_FACTORS times a key's usual level on one working day of the last
    INJECT_DAYS, on keys in a random order, one each, leaving out the `busy` ones (whose shape
    or event a spike would blur) and a day where the jump would not be MATERIAL_SPIKE: one per
    SPIKE_EVERY keys, at least MIN_SPIKES, as many as fit."""
    n_keys, n_days = drawn.active.shape
    spiked: list[Injected] = []
    spikes = max(MIN_SPIKES, -(-n_keys // SPIKE_EVERY))
    for key in rng.permutation(n_keys).tolist():
        if spikes == 0:
            break
        first = max(n_days - INJECT_DAYS, int(drawn.start[key]) + BASELINE_DAYS)
        days = [d for d in range(first, n_days) if drawn.active[key, d] and not drawn.weekend[d]]
        if key in busy or not days:
            continue
        day = int(rng.choice(days))
        factor = float(np.exp(rng.uniform(*np.log(SPIKE_FACTORS))))
        usual = drawn.series(key, day, drawn.usual[key, day])
        material = [
            metric
            for metric, value in usual.items()
            if (factor - 1) * value >= MATERIAL_SPIKE[metric.rsplit("_", 1)[1]]
        ]
        if not material:
            continue
        metric = str(rng.choice(material))
        drawn.set(key, day, metric, factor * drawn.usual[key, day])
        spiked.append(
            Injected("spike", keys[key].masked, metric, drawn.day(day), drawn.day(day), factor)
        )
        spikes -= 1
    return spiked
