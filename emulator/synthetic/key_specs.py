"""The synthetic organization's keys: the eight signature keys and further ones with their
labels, then what an administrator sees beside usage (creation and deactivation times, limits,
admin keys, keys never used), within the service's rule on active developer keys."""

from __future__ import annotations

import datetime as dt
import math
import uuid
from dataclasses import replace

import numpy as np

from emulator.ledger import UsageRows
from emulator.org import ADMIN_SUFFIX, MAX_ACTIVE, Injected, KeySpec
from emulator.plan import Plan

# label, detect_beta, shape
SIGNATURE_KEYS = (
    ("Production website", True, "mixed"),
    ("Finance reporting", False, "documents"),
    ("Support desk", False, "relabelled"),
    ("Legacy integration", True, "dormant"),
    ("Marketing launch", True, "launch"),
    ("Writing assistant", False, "rephrase"),
    ("Meeting transcription", True, "speech"),
    ("Document pipeline", False, "documents"),
)
# Keys beside the used developer keys: admin keys (label, enrolled in the detection beta) and
# developer keys created but never used (label, days before today they were created, days
# before today they were deactivated or None).
ADMIN_KEYS = (("Organization admin", True), ("Finance admin", False))
UNUSED_KEYS = (("Mobile app (planned)", 5, None), ("Partner sandbox", 40, 30))
# Places left free under the service's limit of active developer keys (paid plan), so that
# keys can be created in any generated organization; the active keys are at most ACTIVE_KEYS.
FREE_PLACES = 3
ACTIVE_KEYS = MAX_ACTIVE - FREE_PLACES
NEAR_LIMIT = 1.05  # the key near its limit has used 1 / NEAR_LIMIT of it this usage period
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


def draw_keys(rng: np.random.Generator, n_keys: int) -> list[KeySpec]:
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
        label, beta, _ = SIGNATURE_KEYS[i]
        return KeySpec(key, RELABELLED_TO if i == 2 else label, beta)
    j = i - len(SIGNATURE_KEYS)
    label = MORE_LABELS[j % len(MORE_LABELS)]
    if j >= len(MORE_LABELS):
        label = f"{label} {j // len(MORE_LABELS) + 1}"
    return KeySpec(key, label, detect_beta=bool(rng.random() < 0.5))


def lifecycle(
    rng: np.random.Generator,
    keys: list[KeySpec],
    rows: UsageRows,
    plan: Plan,
    today: dt.date,
) -> list[KeySpec]:
    """What an administrator sees beside usage: each used key created before its first day,
    the key whose usage ended first deactivated the day after its last (when that was over a
    week ago), limits on three keys (the first near its limit this usage period), then the
    admin keys and the developer keys never used (one deactivated). Drawn from a generator of
    its own, so usage is the same with or without them."""
    first_used: dict[int, str] = {}
    last_used: dict[int, str] = {}
    period_characters: dict[int, int] = {}
    period_minutes: dict[int, float] = {}
    period_start = plan.period(today)[0].isoformat()
    for day, k, _, text, document, improvement, minutes, _ in rows:
        first_used.setdefault(k, day)
        last_used[k] = day
        if day >= period_start:
            period_characters[k] = period_characters.get(k, 0) + text + document + improvement
            period_minutes[k] = period_minutes.get(k, 0.0) + minutes

    def at(day: dt.date, days_before: int) -> dt.datetime:
        seconds = int(rng.integers(8 * 3600, 18 * 3600))
        midnight = dt.datetime.combine(day - dt.timedelta(days=days_before), dt.time(), dt.UTC)
        return midnight + dt.timedelta(seconds=seconds)

    changed = []
    for k, spec in enumerate(keys):
        first = dt.date.fromisoformat(first_used.get(k, today.isoformat()))
        changed.append(replace(spec, created=at(first, int(rng.integers(1, 21)))))
    ended = min(last_used, key=lambda k: (last_used[k], k))
    if dt.date.fromisoformat(last_used[ended]) < today - dt.timedelta(days=7):
        after = dt.date.fromisoformat(last_used[ended]) + dt.timedelta(days=1)
        changed[ended] = replace(changed[ended], deactivated=at(after, 0))
    near = period_characters.get(0, 0)
    changed[0] = replace(changed[0], character_limit=max(math.ceil(near * NEAR_LIMIT), 1000))
    if len(changed) > 7:
        documents = period_characters.get(7, 0)
        changed[7] = replace(changed[7], character_limit=10 * max(documents, 10_000))
    if len(changed) > 6:
        speech = period_minutes.get(6, 0.0)
        limit = 2 * max(round(speech * 60_000), 3_600_000)
        changed[6] = replace(changed[6], speech_to_text_milliseconds_limit=limit)
    admins = [
        KeySpec(str(uuid.UUID(bytes=rng.bytes(16), version=4)) + ADMIN_SUFFIX, label, beta)
        for label, beta in ADMIN_KEYS
    ]
    unused = [
        KeySpec(
            str(uuid.UUID(bytes=rng.bytes(16), version=4)),
            label,
            created=at(today, days),
            deactivated=None if gone is None else at(today, gone),
        )
        for label, days, gone in UNUSED_KEYS
    ]
    return [*changed, *admins, *unused]


def keep_places_free(
    keys: list[KeySpec], n_used: int, injected: list[Injected], today: dt.date
) -> list[KeySpec]:
    """`keys` with at most ACTIVE_KEYS developer keys active: further keys beyond that (the
    first `n_used` keys are the generated ones, with usage) are deactivated at 00:00 UTC today,
    after their last usage day (the history ends yesterday, and a deactivated key books
    nothing). The last-listed further keys go first, those carrying an injected anomaly after
    all others, so the signature keys, the key never used and, in a small organization, the
    anomalies' keys stay active. Usage and anomalies are untouched, and no generator is drawn
    from, so every other figure of a seed is what it was."""
    active = [k for k, spec in enumerate(keys) if not spec.admin and spec.deactivated is None]
    excess = len(active) - ACTIVE_KEYS
    if excess <= 0:
        return keys
    noted = {i.api_key for i in injected}
    further = [k for k in active if len(SIGNATURE_KEYS) <= k < n_used]
    retired = set(sorted(further, key=lambda k: (keys[k].masked in noted, -k))[:excess])
    midnight = dt.datetime.combine(today, dt.time(), dt.UTC)
    return [
        replace(spec, deactivated=midnight) if k in retired else spec for k, spec in enumerate(keys)
    ]
