"""A deterministic synthetic organization with realistic usage shapes, generated with numpy.

The first eight keys each carry one shape the dashboard must cope with (see SIGNATURE_KEYS);
further keys get random mixes. Every key-day is drawn at once as a keys × days matrix.
"""

from __future__ import annotations

import datetime as dt
import math
import uuid

import numpy as np

from emulator.org import KeySpec, Organization, UsageTuple
from emulator.plan import Plan

# label, admin, detect_beta, shape
SIGNATURE_KEYS = (
    ("Production website", True, True, "mixed"),
    ("Finance reporting", True, False, "documents"),
    ("Support desk", False, False, "relabelled"),
    ("Legacy integration", False, True, "dormant"),
    ("Marketing launch", False, True, "launch"),
    ("Writing assistant", False, False, "rephrase"),
    ("Meeting transcription", False, True, "speech"),
    ("Document pipeline", False, False, "documents"),
)
RELABELLED_TO = "Customer support (EU)"
MORE_LABELS = (
    "Internal wiki",
    "CRM connector",
    "E-commerce catalog",
    "HR portal",
    "Data team notebook",
    "Localization CI",
    "Chatbot",
    "Email assistant",
    "Partner portal",
    "Help center",
    "Browser extension",
    "Chat integration",
    "Product docs",
    "Sales enablement",
    "QA sandbox",
    "Analytics pipeline",
    "Mobile app",
)
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
# The plan's limits are this many times the recent monthly usage, rounded up to 1, 2 or 5 × 10^n.
LIMIT_HEADROOM = 1.5


def generate(seed: int, n_keys: int, n_days: int, today: dt.date) -> Organization:
    """`n_keys` keys with `n_days` of history ending yesterday (relative to `today`)."""
    if n_keys < 3 or n_days < 1:
        raise ValueError("a synthetic organization needs at least 3 keys and 1 day")
    rng = np.random.default_rng(seed)
    keys = _keys(rng, n_keys)
    shapes = [SIGNATURE_KEYS[i][3] if i < len(SIGNATURE_KEYS) else "" for i in range(n_keys)]
    shapes = [
        s or str(rng.choice(["text", "text", "mixed", "documents", "rephrase", "speech"]))
        for s in shapes
    ]

    first_day = today - dt.timedelta(days=n_days)
    day = np.arange(n_days)
    weekend = ((first_day.weekday() + day) % 7) >= 5
    t = day / max(n_days - 1, 1)

    start = rng.integers(0, max(int(n_days * 0.6), 1), n_keys)
    stop = np.full(n_keys, n_days)
    start[: min(3, n_keys)] = 0
    if "dormant" in shapes:
        stop[shapes.index("dormant")] = max(n_days // 2, 1)
    scale = rng.lognormal(8.3, 1.0, n_keys)
    growth = rng.uniform(0.0, 1.6, n_keys)
    p_active = rng.uniform(0.4, 0.85, n_keys)

    in_span = (day >= start[:, None]) & (day < stop[:, None])
    p_day = p_active[:, None] * np.where(weekend, WEEKEND_ACTIVITY, 1.0)
    active = in_span & (rng.random((n_keys, n_days)) < p_day)
    level = (
        scale[:, None]
        * np.exp(growth[:, None] * t)
        * np.where(weekend, 0.4, 1.0)
        * rng.lognormal(0.0, 0.35, (n_keys, n_days))
    )
    if "launch" in shapes:
        k = shapes.index("launch")
        launch = n_days // 2
        start[k] = launch
        active[k, :launch] = False
        level[k] *= 1 + 8 * np.exp(-np.maximum(day - launch, 0) / 7.0)

    mix = np.array([MIXES[s] for s in shapes])
    chars = np.rint(level[:, :, None] * mix[:, None, :]).astype(np.int64)
    speech = np.zeros((n_keys, n_days))
    for k, shape in enumerate(shapes):
        if shape == "speech":
            speech[k] = np.round(level[k] / 400.0, 2)
    interpreting = _speech_to_speech(np.random.default_rng([seed, 1]), shapes, level)

    labels = np.array([k.label for k in keys], dtype=object)
    relabel_day = n_days * 3 // 5
    old_label = SIGNATURE_KEYS[2][0]
    k_idx, d_idx = np.nonzero(active.T)[::-1]  # ordered by day, then key
    dates = [(first_day + dt.timedelta(days=int(d))).isoformat() for d in range(n_days)]
    rows: list[UsageTuple] = [
        (dates[d], k, old_label if (k == 2 and d < relabel_day) else labels[k], a, b, c, s, i)
        for d, k, a, b, c, s, i in zip(
            d_idx.tolist(),
            k_idx.tolist(),
            chars[k_idx, d_idx, 0].tolist(),
            chars[k_idx, d_idx, 1].tolist(),
            chars[k_idx, d_idx, 2].tolist(),
            speech[k_idx, d_idx].tolist(),
            interpreting[k_idx, d_idx].tolist(),
            strict=True,
        )
    ]
    plan = _plan(first_day, active[:, :, None] * np.dstack([chars, speech, interpreting]))
    return Organization(keys=keys, usage=rows, plan=plan)


def _plan(first_day: dt.date, usage: np.ndarray) -> Plan:
    """A paid plan billed from the day of the month the history began, with limits that leave
    the recent usage at about two thirds of each limit by the end of a period.

    `usage` is keys × days × (text, document, improvement, speech-to-text, speech-to-speech).
    """
    recent = usage[:, -90:].sum(axis=(0, 1)) * 30.4 / min(usage.shape[1], 90)
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


def _speech_to_speech(rng: np.random.Generator, shapes: list[str], level: np.ndarray) -> np.ndarray:
    """Minutes of interpreted speech: the newer product, taken up half-way through the history
    by the meeting-transcription key and by about half of the other speech keys.

    Drawn from a generator of its own, so adding it left every other figure of a seed as it was.
    """
    n_keys, n_days = level.shape
    minutes = np.zeros((n_keys, n_days))
    for k, shape in enumerate(shapes):
        if shape == "speech" and (k < len(SIGNATURE_KEYS) or rng.random() < 0.5):
            uptake = int(n_days * rng.uniform(0.4, 0.7))
            minutes[k, uptake:] = np.round(level[k, uptake:] / 1600.0, 2)
    return minutes


def _keys(rng: np.random.Generator, n_keys: int) -> list[KeySpec]:
    """uuid4-shaped keys with free-plan suffix on odd keys; masks are kept unique."""
    keys: list[KeySpec] = []
    masks: set[str] = set()
    while len(keys) < n_keys:
        i = len(keys)
        key = str(uuid.UUID(bytes=rng.bytes(16), version=4)) + (":fx" if i % 2 else "")
        spec = _spec(i, key, rng)
        if spec.masked not in masks:
            masks.add(spec.masked)
            keys.append(spec)
    return keys


def _spec(i: int, key: str, rng: np.random.Generator) -> KeySpec:
    if i < len(SIGNATURE_KEYS):
        label, admin, beta, _ = SIGNATURE_KEYS[i]
        return KeySpec(key, RELABELLED_TO if i == 2 else label, admin, beta)
    j = i - len(SIGNATURE_KEYS)
    label = MORE_LABELS[j % len(MORE_LABELS)]
    if j >= len(MORE_LABELS):
        label = f"{label} {j // len(MORE_LABELS) + 1}"
    return KeySpec(key, label, admin=False, detect_beta=bool(rng.random() < 0.5))
