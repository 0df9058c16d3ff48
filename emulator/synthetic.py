"""A deterministic synthetic organization with realistic usage shapes, generated with numpy.

The first eight keys each carry one shape the dashboard must cope with (see SIGNATURE_KEYS);
further keys get random mixes. Every key-day is drawn at once as a keys × days matrix. Unless
asked not to, a few known anomalies are then put into the last months (`_inject`), and listed.

Whatever the number of keys, the organization keeps the service's rule of at most 25 active
developer keys with places free: at most ACTIVE_KEYS (22) are active, so "Create a key" works
out of the box, three times before one must be deactivated. Further keys beyond that are
deactivated at the start of today (UTC), after every day of their history (`_keep_places_free`).
"""

from __future__ import annotations

import datetime as dt
import math
import uuid
from dataclasses import dataclass, replace

import numpy as np

from emulator.ledger import USAGE_RECORD, UsageRows
from emulator.org import (
    ADMIN_SUFFIX,
    MAX_ACTIVE,
    Injected,
    KeySpec,
    LanguagePair,
    Organization,
    TagShare,
)
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
# Custom tags of the signature keys: (tag, share of the key's text characters). The launch
# campaign's tag runs for LAUNCH_CAMPAIGN_DAYS from the launch; the dormant key and the document
# pipeline tag nothing.
SIGNATURE_TAGS: tuple[tuple[tuple[str, float], ...], ...] = (
    (("checkout", 0.2), ("product-pages", 0.3)),
    (("quarterly-report", 0.5),),
    (("support-tickets", 0.45), ("chat-replies", 0.2)),
    (),
    (("launch-campaign", 0.6), ("newsletter", 0.15)),
    (("email-drafts", 0.35), ("product-pages", 0.15)),
    (("meeting-notes", 0.5),),
    (),
)
LAUNCH_CAMPAIGN_DAYS = 90
# Further keys draw one to three of these, so most tags span several keys.
MORE_TAGS = (
    "checkout",
    "product-pages",
    "help-center",
    "support-tickets",
    "release-notes",
    "newsletter",
    "chat-replies",
    "catalog-sync",
    "legal-review",
    "onboarding",
    "email-drafts",
    "meeting-notes",
)
# Many custom tags (`_many_tags`): customers used every day, documents seldom.
MAX_TAGS = 100_000
CUSTOMERS_PER_ROOT = 3  # customers: 3 × √(tags), 300 of 10,000
CUSTOMER_SHARE = 0.6  # of a key's text characters, for all its customers together
MIN_CUSTOMER_SHARE = 0.0002  # so a customer tags a character of TAGGED_TEXT
MAX_CUSTOMERS_PER_KEY = 1_500  # customers whose least shares leave room for the biggest
DOCUMENT_SHARE = 0.3  # of a key-day's text characters, for the documents used that day
DOCUMENT_RUNS = 3  # runs of the first document; the others' in proportion to 1 / rank
RUN_DAYS = 5
TAGGED_TEXT = 5_000  # characters of one kind on the key-day a tag starts on
# Language pairs: each key translates from one source (mostly English) into one to three
# dominant targets and a tail of two to eight rare ones; it improves text (and transcribes
# speech) in its source language, some keys in a second one too.
SOURCES = ("en", "de", "fr", "es", "ja")
SOURCE_ODDS = (0.7, 0.12, 0.08, 0.05, 0.05)
# Target and how likely it is picked early (so dominant pairs favour the popular targets).
TARGETS = {
    "de": 14, "fr": 12, "es": 11, "ja": 9, "it": 7, "zh-Hans": 7, "pt-BR": 6, "en-US": 5,
    "nl": 5, "pl": 4, "ko": 4, "en-GB": 4, "sv": 2, "da": 2, "tr": 2, "fi": 1.5, "cs": 1.5,
    "uk": 1.5, "pt-PT": 1.5,
}  # fmt: skip
PAIR_WEIGHT = 10_000  # a key's weights of one kind add up to about this
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


def generate(
    seed: int,
    n_keys: int,
    n_days: int,
    today: dt.date,
    anomalies: bool = True,
    n_tags: int | None = None,
) -> Organization:
    """`n_keys` keys with `n_days` of history ending yesterday (relative to `today`), with
    injected anomalies (`Organization.injected`) unless `anomalies` is False: the clean
    organization. `n_tags` distinct custom tags with a long tail (`_many_tags`) in place of
    the dozen shared ones; the usage is the same either way."""
    if n_keys < 3 or n_days < 1:
        raise ValueError("a synthetic organization needs at least 3 keys and 1 day")
    rng = np.random.default_rng(seed)
    keys = _keys(rng, n_keys)
    shapes = [SIGNATURE_KEYS[i][2] if i < len(SIGNATURE_KEYS) else "" for i in range(n_keys)]
    shapes = [
        s or str(rng.choice(["text", "text", "mixed", "documents", "rephrase", "speech"]))
        for s in shapes
    ]

    first_day = today - dt.timedelta(days=n_days)
    day = np.arange(n_days)
    weekend = ((first_day.weekday() + day) % 7) >= 5
    t = day / max(n_days - 1, 1)

    start = rng.integers(0, max(int(n_days * STARTS_WITHIN), 1), n_keys)
    stop = np.full(n_keys, n_days)
    start[: min(3, n_keys)] = 0
    if "dormant" in shapes:
        stop[shapes.index("dormant")] = max(n_days // 2, 1)
    scale = rng.lognormal(8.3, 1.0, n_keys)
    growth = rng.uniform(0.0, 1.6, n_keys)
    p_active = rng.uniform(0.4, 0.85, n_keys)

    # Key-days within the key's span, drawn at the key's odds (lower on weekends); the
    # keys × days matrices are the bulk of the memory generating takes, so none is kept that
    # is not needed.
    in_span = (day >= start[:, None]) & (day < stop[:, None])
    active = in_span & (
        rng.random((n_keys, n_days)) < p_active[:, None] * np.where(weekend, WEEKEND_ACTIVITY, 1.0)
    )
    # The usual level of each key-day, then the day-to-day noise around it.
    usual = scale[:, None] * np.exp(growth[:, None] * t) * np.where(weekend, 0.4, 1.0)
    level = usual * rng.lognormal(0.0, 0.35, (n_keys, n_days))
    if "launch" in shapes:
        k = shapes.index("launch")
        launch = n_days // 2
        start[k] = launch
        active[k, :launch] = False
        level[k] *= 1 + 8 * np.exp(-np.maximum(day - launch, 0) / 7.0)

    mix = np.array([MIXES[s] for s in shapes])
    chars = np.empty((n_keys, n_days, len(mix[0])), dtype=np.int64)
    np.rint(level[:, :, None] * mix[:, None, :], out=chars, casting="unsafe")
    speech = np.zeros((n_keys, n_days))
    for k, shape in enumerate(shapes):
        if shape == "speech":
            speech[k] = np.round(level[k] / CHARACTERS_PER_MINUTE["speech_to_text_minutes"], 2)
    interpreting = _speech_to_speech(np.random.default_rng([seed, 1]), shapes, level)
    injected: list[Injected] = []
    if anomalies and n_days >= MIN_INJECT_DAYS:
        drawn = _Drawn(active, chars, speech, interpreting, usual, mix, weekend, start, first_day)
        injected = _inject(np.random.default_rng([seed, 4]), drawn, keys, shapes, p_active, scale)

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
    rows = UsageRows(
        [(first_day + dt.timedelta(days=d)).isoformat() for d in range(n_days)],
        [*(k.label for k in keys), SIGNATURE_KEYS[2][0]],
        records,
    )
    recent = slice(max(n_days - PLAN_DAYS, 0), n_days)
    plan = _plan(
        first_day,
        active[:, recent, None]
        * np.dstack([chars[:, recent], speech[:, recent], interpreting[:, recent]]),
    )
    tag_rng = np.random.default_rng([seed, 2])
    if n_tags is None:
        tags = _tags(tag_rng, n_keys, first_day, n_days)
    else:
        # Tags are shares of text translation and of improvement, each floored on its own.
        taggable = np.where(active, chars[:, :, [0, 2]].max(axis=2), 0)
        tags = _many_tags(tag_rng, taggable, first_day, n_tags)
    pairs = _pairs(np.random.default_rng([seed, 3]), n_keys)
    keys = [
        replace(spec, tags=key_tags, pairs=key_pairs)
        for spec, key_tags, key_pairs in zip(keys, tags, pairs, strict=True)
    ]
    keys = _lifecycle(np.random.default_rng([seed, 5]), keys, rows, plan, today)
    keys = _keep_places_free(keys, n_keys, injected, today)
    return Organization(keys=keys, usage=rows, plan=plan, injected=injected)


def _lifecycle(
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


def _keep_places_free(
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


@dataclass
class _Drawn:
    """The drawn matrices of an organization (keys × days, characters × their three services),
    which `_inject` changes in place, and what it needs to know about them."""

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


# The three character services, in the order of the drawn characters (see MIXES).
CHARACTER_SERVICES = (
    "text_translation_characters",
    "document_translation_characters",
    "text_improvement_characters",
)


def _inject(
    rng: np.random.Generator,
    drawn: _Drawn,
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
        injected.append(
            Injected("spike", keys[key].masked, metric, drawn.day(day), drawn.day(day), factor)
        )
        spikes -= 1
    return injected


def _tags(
    rng: np.random.Generator, n_keys: int, first_day: dt.date, n_days: int
) -> list[tuple[TagShare, ...]]:
    """Custom tags per key: the signature keys' own, then for three in four further keys one to
    three shared tags on 10-35% of the text each (at most 90% together), a quarter of them
    only for a stretch of 30-180 days. Every key has some text, so all tags come to use."""
    launch = first_day + dt.timedelta(days=n_days // 2)
    campaign = (launch, launch + dt.timedelta(days=LAUNCH_CAMPAIGN_DAYS - 1))
    tags: list[tuple[TagShare, ...]] = []
    for k in range(n_keys):
        if k < len(SIGNATURE_TAGS):
            tags.append(
                tuple(
                    TagShare(tag, share, *(campaign if tag == "launch-campaign" else ()))
                    for tag, share in SIGNATURE_TAGS[k]
                )
            )
            continue
        if rng.random() >= 0.75:
            tags.append(())
            continue
        names = rng.choice(MORE_TAGS, size=int(rng.integers(1, 4)), replace=False)
        shares = rng.uniform(0.1, 0.35, len(names))
        shares *= min(1.0, 0.9 / shares.sum())
        drawn = []
        for name, share in zip(names.tolist(), shares.tolist(), strict=True):
            span: tuple[dt.date, ...] = ()
            if rng.random() < 0.25:
                begin = first_day + dt.timedelta(days=int(rng.integers(0, n_days)))
                span = (begin, begin + dt.timedelta(days=int(rng.integers(30, 181))))
            drawn.append(TagShare(name, round(share, 4), *span))
        tags.append(tuple(drawn))
    return tags


def _many_tags(
    rng: np.random.Generator, taggable: np.ndarray, first_day: dt.date, n_tags: int
) -> list[tuple[TagShare, ...]]:
    """`n_tags` custom tags as an organization that tags per customer or per document has
    them: a long tail. `taggable` is keys × days, the larger of each key-day's text
    translation and text improvement characters.

    The first CUSTOMERS_PER_ROOT × √n_tags tags by rank (a few hundred of 10,000) are customers,
    each on one key for the whole history, so used on every day that key is: a key's customers
    share CUSTOMER_SHARE of its text in proportion to 1 / rank (at least MIN_CUSTOMER_SHARE
    each). The rest are documents, each used in one to DOCUMENT_RUNS runs of one to RUN_DAYS
    days on random keys (runs ∝ 1 / rank, at least one): together at most DOCUMENT_SHARE of a
    key-day's text, shared by the runs covering it. Customers and document runs start on a
    key-day with TAGGED_TEXT characters of one kind, so every tag carries characters at least
    once. Tags on a key-day then add up to at most CUSTOMER_SHARE + DOCUMENT_SHARE of its text.
    """
    if not 1 <= n_tags <= MAX_TAGS:
        raise ValueError(f"a synthetic organization has 1 to {MAX_TAGS:,} tags, not {n_tags}")
    n_keys, n_days = taggable.shape
    roomy_key, roomy_day = np.nonzero(taggable >= TAGGED_TEXT)
    roomy_keys = np.unique(roomy_key)
    n_customers = min(n_tags, round(CUSTOMERS_PER_ROOT * math.sqrt(n_tags)))
    if not len(roomy_keys) or -(-n_customers // len(roomy_keys)) > MAX_CUSTOMERS_PER_KEY:
        raise ValueError(f"too little text in this organization to carry {n_tags:,} tags")
    width = len(str(n_tags))
    names = [
        f"{'customer' if rank <= n_customers else 'doc'}-{rank:0{width}d}"
        for rank in range(1, n_tags + 1)
    ]
    shares: list[list[TagShare]] = [[] for _ in range(n_keys)]
    # Customers, dealt out to the keys with room in a random order, round after round.
    owner = np.resize(rng.permutation(roomy_keys), n_customers)
    for key in np.unique(owner).tolist():
        ranks = np.flatnonzero(owner == key)
        weight = 1.0 / (ranks + 1)
        free = CUSTOMER_SHARE - len(ranks) * MIN_CUSTOMER_SHARE
        part = MIN_CUSTOMER_SHARE + free * weight / weight.sum()
        shares[key] += [TagShare(names[r], float(p)) for r, p in zip(ranks, part, strict=True)]
    # Documents: runs per tag, each run on a key-day with room, then the days it covers.
    ranks = np.arange(n_customers, n_tags)
    runs = np.maximum(1, np.rint(DOCUMENT_RUNS * (n_customers + 1) / (ranks + 1))).astype(int)
    tag = np.repeat(ranks, runs)
    cell = rng.integers(0, len(roomy_key), len(tag))
    key, start = roomy_key[cell], roomy_day[cell]
    # One run per key and tag (the store keeps one span per key and tag): the first drawn.
    _, first = np.unique(tag * n_keys + key, return_index=True)
    tag, key, start = tag[first], key[first], start[first]
    stop = np.minimum(start + rng.integers(1, RUN_DAYS + 1, len(tag)), n_days)
    covering = np.zeros((n_keys, n_days + 1), dtype=np.int64)
    np.add.at(covering, (key, start), 1)
    np.add.at(covering, (key, stop), -1)
    covering = covering.cumsum(axis=1)
    # Each run's share is at most DOCUMENT_SHARE over the runs on its most crowded day.
    crowded = np.array([covering[k, a:b].max() for k, a, b in zip(key, start, stop, strict=True)])
    share = DOCUMENT_SHARE * rng.uniform(0.5, 1.0, len(tag)) / crowded
    if (share * TAGGED_TEXT < 1.01).any():
        raise ValueError(f"too little text in this organization to carry {n_tags:,} tags")
    for r, k, a, b, p in zip(tag, key, start, stop, share, strict=True):
        shares[k].append(
            TagShare(
                names[r],
                float(p),
                first_day + dt.timedelta(days=int(a)),
                first_day + dt.timedelta(days=int(b) - 1),
            )
        )
    return [tuple(key_shares) for key_shares in shares]


def _plan(first_day: dt.date, usage: np.ndarray) -> Plan:
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


def _pairs(rng: np.random.Generator, n_keys: int) -> list[tuple[LanguagePair, ...]]:
    """Language pairs per key: 80-95% of its translation on one to three dominant targets, the
    rest on a tail of two to eight; for three keys in ten 2-10% of the dominant pair cannot be
    attributed to the key; same-language pairs for improvement and speech-to-text.

    Drawn for all keys at once (a thousand keys' worth of small draws would be slow): targets
    in weighted order without replacement through Efraimidis-Spirakis keys, shares through
    gamma variates (a Dirichlet per key, truncated to the key's number of pairs).
    """
    source = np.searchsorted(np.cumsum(SOURCE_ODDS), rng.random(n_keys) * sum(SOURCE_ODDS))
    codes = list(TARGETS)
    excluded = np.array([[c.split("-")[0] == s for c in codes] for s in SOURCES])[source]
    priority = np.where(excluded, -np.inf, np.log(rng.random((n_keys, len(codes)))))
    order = np.argsort(-priority / np.array(list(TARGETS.values())), axis=1)
    n_major, n_tail = rng.integers(1, 4, n_keys), rng.integers(2, 9, n_keys)
    major = _shares(rng.gamma(2.0, size=(n_keys, 3)), n_major) * rng.uniform(0.8, 0.95, (n_keys, 1))
    major = -np.sort(-major, axis=1)
    tail = _shares(rng.gamma(0.7, size=(n_keys, 8)), n_tail) * (
        1 - major.sum(axis=1, keepdims=True)
    )
    weights = np.maximum(np.rint(np.hstack([major, tail]) * PAIR_WEIGHT), 1).astype(int)
    unattributed = np.where(rng.random(n_keys) < 0.3, rng.uniform(0.02, 0.1, n_keys), 0)
    second = np.where(rng.random(n_keys) < 0.3, rng.integers(1, len(SOURCES), n_keys), 0)
    second_share = rng.uniform(0.05, 0.3, n_keys)
    keys = []
    for k in range(n_keys):
        language = SOURCES[source[k]]
        slots = [*range(n_major[k]), *range(3, 3 + n_tail[k])]
        pairs = [
            LanguagePair(language, codes[target], weight)
            for target, weight in zip(
                order[k, : len(slots)].tolist(), weights[k, slots].tolist(), strict=True
            )
        ]
        if unattributed[k]:
            pairs.append(
                replace(pairs[0], weight=int(unattributed[k] * PAIR_WEIGHT), attributed=False)
            )
        pairs.append(LanguagePair(language, language, PAIR_WEIGHT))
        if second[k]:
            other = SOURCES[(source[k] + second[k]) % len(SOURCES)]
            pairs.append(LanguagePair(other, other, int(second_share[k] * PAIR_WEIGHT)))
        keys.append(tuple(pairs))
    return keys


def _shares(draws: np.ndarray, used: np.ndarray) -> np.ndarray:
    """Rows of `draws` keeping the first `used` columns, scaled to add up to 1."""
    kept = np.where(np.arange(draws.shape[1]) < used[:, None], draws, 0.0)
    return kept / kept.sum(axis=1, keepdims=True)


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
            minutes[k, uptake:] = np.round(
                level[k, uptake:] / CHARACTERS_PER_MINUTE["speech_to_speech_minutes"], 2
            )
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
        label, beta, _ = SIGNATURE_KEYS[i]
        return KeySpec(key, RELABELLED_TO if i == 2 else label, beta)
    j = i - len(SIGNATURE_KEYS)
    label = MORE_LABELS[j % len(MORE_LABELS)]
    if j >= len(MORE_LABELS):
        label = f"{label} {j // len(MORE_LABELS) + 1}"
    return KeySpec(key, label, detect_beta=bool(rng.random() < 0.5))
