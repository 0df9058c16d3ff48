"""The organization an emulator serves: its keys and its daily usage history."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from dataclasses import dataclass, field

from emulator.ledger import UsageTuple, mask_key
from emulator.plan import Plan

PARTS = 1_000_000  # tag shares are stored as whole parts per million


@dataclass(frozen=True)
class TagShare:
    """A custom tag on a share of one key's text characters (translation and improvement alike)
    on each day from `first` to `last` (inclusive; open-ended when None).

    A key-day's tagged characters are `floor(characters * parts / PARTS)` per tag, so a key
    whose shares add up to at most 1 never has more tagged than text characters on a day.
    """

    tag: str
    share: float
    first: dt.date | None = None
    last: dt.date | None = None

    @property
    def parts(self) -> int:
        return round(self.share * PARTS)


@dataclass(frozen=True)
class LanguagePair:
    """A language pair of one key's usage and its weight among the key's pairs of its kind.

    A translation pair (source ≠ target) carries text and document translation characters and
    speech-to-speech minutes; a same-language pair (source = target) carries text improvement
    characters and speech-to-text minutes. Each key-day's figure of a kind is split over the
    key's pairs of that kind by weight, rounding so that the parts add up to the figure.
    `attributed` False: usage the service cannot tie to the key (reported under key `-`).
    """

    source: str
    target: str
    weight: int
    attributed: bool = True

    @property
    def same_language(self) -> bool:
        return self.source == self.target


_HEX4 = re.compile(r"[0-9a-f]{4}")
_KEY_IDS = uuid.UUID("5b0f6d1e-8c1a-4d4e-9f5e-2d3c4b5a6978")  # namespace of derived key ids


def derived_key_id(secret: str) -> str:
    """A key id (two GUIDs joined by a colon) fixed by the secret, revealing no more of it than
    its mask does. A secret that starts and ends in four hex digits (a paid-plan key) gets a
    key id that starts and ends as it does, so the two masks agree; a free-plan key's
    (``…:fx``) cannot, and a client must join it to analytics by its label."""
    first = uuid.uuid5(_KEY_IDS, f"first:{secret}").hex
    second = uuid.uuid5(_KEY_IDS, f"second:{secret}").hex
    head, tail = secret[:4], secret[-4:]
    if _HEX4.fullmatch(head) and _HEX4.fullmatch(tail):
        first, second = head + first[4:], second[:-4] + tail
    return f"{uuid.UUID(first)}:{uuid.UUID(second)}"


ADMIN_SUFFIX = ":adm"  # an admin key's secret ends so; only admin keys reach admin operations
DEFAULT_LABEL = "DeepL API Key"  # the label of a key created without one, as published
# The service's rule: at most this many developer keys are active at once (admin keys are not
# developer keys), on a paid plan and on the free plan.
MAX_ACTIVE = 25
MAX_ACTIVE_FREE = 2


def most_active(pro: bool) -> int:
    """How many developer keys an organization on a paid (`pro`) or free plan may have active
    at once: creating a key, generating an organization and reading one from a file keep it."""
    return MAX_ACTIVE if pro else MAX_ACTIVE_FREE


@dataclass(frozen=True)
class KeySpec:
    """One API key of the organization; its repr shows the masked key only.

    An admin key (secret ending in ``:adm``) reaches the administrator operations and is not a
    developer key: the developer-key list leaves it out. A developer key's `key_id` is what
    the administrator operations name it by (empty: derived from the secret, see
    `emulator.keyids`); `created` and `deactivated` are UTC instants (no `created`: the key's
    first usage day, else the day the organization is served); its limits cap one usage
    period (the billing period), None is no limit."""

    key: str = field(repr=False)
    label: str
    detect_beta: bool = False
    tags: tuple[TagShare, ...] = ()
    pairs: tuple[LanguagePair, ...] = ()
    key_id: str = ""
    created: dt.datetime | None = None
    deactivated: dt.datetime | None = None
    character_limit: int | None = None
    speech_to_text_milliseconds_limit: int | None = None

    @property
    def admin(self) -> bool:
        return self.key.endswith(ADMIN_SUFFIX)

    @property
    def published_id(self) -> str:
        return self.key_id or derived_key_id(self.key)

    @property
    def masked(self) -> str:
        return mask_key(self.key)

    def __repr__(self) -> str:
        return (
            f"KeySpec(key={self.masked!r}, label={self.label!r}, "
            f"admin={self.admin}, detect_beta={self.detect_beta})"
        )


@dataclass(frozen=True)
class Injected:
    """An anomaly put into a synthetic organization on purpose: the ground truth anomaly
    detection is measured against (key masked; days inclusive).

    `kind` is `spike` (one day's `metric` at `factor` times the key's usual level that day,
    its level before day-to-day noise), `drop` (no usage at all from `first` to `last`), `new`
    (a key first used on `first`) or `dormant` (a key used on `first` after weeks without
    usage); `metric` is the stored metric of a spike, else `total_characters`.
    """

    kind: str
    api_key: str
    metric: str
    first: dt.date
    last: dt.date
    factor: float = 1.0


@dataclass(frozen=True)
class Regime:
    """A regime change put into a synthetic organization's key on purpose (`synthetic.regimes`):
    the key's index, the kind (`crash`, `step`, `launch` or `stop`) and the day's index in the
    history, so that a benchmark can read the keys it put them into."""

    key: int
    kind: str
    day: int


@dataclass
class Organization:
    """Keys, non-zero key-days and the plan; `usage` rows carry the key's label as of that day;
    `injected` lists the anomalies put into it on purpose (none for an organization file)."""

    keys: list[KeySpec]
    usage: list[UsageTuple]
    plan: Plan = field(default_factory=Plan)
    injected: list[Injected] = field(default_factory=list)
    regimes: list[Regime] = field(default_factory=list)

    @property
    def admin_key(self) -> str | None:
        """The first admin key, preferring one that is also enrolled in the detection beta."""
        admins = [k for k in self.keys if k.admin]
        enrolled = [k for k in admins if k.detect_beta]
        chosen = (enrolled or admins or [None])[0]
        return chosen.key if chosen else None
