"""The synthetic organization's usage shapes: each shape's mix of services, weekends, when keys
start, speech in minutes, and the plan whose limits are set from the recent usage."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np

from emulator.plan import Plan
from emulator.synthetic.key_specs import SIGNATURE_KEYS

# Share of characters going to (text, document, improvement) per shape.
MIXES = {
    "mixed": (0.6, 0.25, 0.15),
    "documents": (0.1, 0.9, 0.0),
    "relabelled": (1.0, 0.0, 0.0),
    "dormant": (1.0, 0.0, 0.0),
    "launch": (0.8, 0.2, 0.0),
    "rephrase": (0.0, 0.0, 1.0),
    "speech": (0.3, 0.0, 0.0),
    "text": (1.0, 0.0, 0.0),
}
WEEKEND_ACTIVITY = 0.45  # weekend days are both rarer and lighter than weekdays
STARTS_WITHIN = 0.6  # keys start within this share of the history (a few at its start)
# The plan's limits are this many times the recent monthly usage, rounded up to 1, 2 or 5 × 10^n.
LIMIT_HEADROOM = 1.5
PLAN_DAYS = 90  # the recent usage the limits are set from
# A speech key's minutes: its day's level in characters, divided by these.
CHARACTERS_PER_MINUTE = {"speech_to_text_minutes": 400.0, "speech_to_speech_minutes": 1600.0}


def interpreted_minutes(
    rng: np.random.Generator, shapes: list[str], level: np.ndarray
) -> np.ndarray:
    """Minutes of interpreted speech: the newer product, taken up half-way through the history
    by the meeting-transcription key and by about half of the other speech keys.

    Drawn from a generator of its own, so adding it left every other figure of a seed as it was.
    """
    n_keys, n_days = level.shape
    minutes = np.zeros((n_keys, n_days))
    for k, shape in enumerate(shapes):
        if shape == "speech" and (k < len(SIGNATURE_KEYS) or rng.random() < 0.5):
            uptake = int(n_days * rng.uniform(0.4, 0.7))
            minutes[k, uptake:] = np.round(
                level[k, uptake:] / CHARACTERS_PER_MINUTE["speech_to_speech_minutes"], 2
            )
    return minutes


def plan_from_usage(first_day: dt.date, usage: np.ndarray) -> Plan:
    """A paid plan billed from the day of the month the history began, with limits that leave
    the recent usage at about two thirds of each limit by the end of a period.

    `usage` is keys × the last PLAN_DAYS days × (text, document, improvement characters,
    speech-to-text and speech-to-speech minutes).
    """
    recent = usage.sum(axis=(0, 1)) * 30.4 / usage.shape[1]
    characters, speech_to_text, speech_to_speech = recent[:3].sum(), recent[3], recent[4]
    return Plan(
        pro=True,
        billing_day=first_day.day,
        character_limit=_round_limit(characters, 10_000),
        speech_to_text_minutes_limit=_round_limit(speech_to_text, 100),
        speech_to_speech_minutes_limit=_round_limit(speech_to_speech, 100),
    )


def _round_limit(monthly: float, least: int) -> int:
    """LIMIT_HEADROOM × `monthly` rounded up to 1, 2 or 5 × 10^n, and at least `least`."""
    wanted = max(monthly * LIMIT_HEADROOM, least)
    power = 10 ** math.floor(math.log10(wanted))
    return next(step * power for step in (1, 2, 5, 10) if step * power >= wanted)
