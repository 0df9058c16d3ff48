"""Which listed developer key each analytics key is: a rule that never guesses.

Analytics names a key by a masked form of its secret (``abcd****wxyz``); the key list names it
by ``key_id``, which is not the secret. The two are joined, in this order, by

1. **recorded** — the mask the audit log recorded for the key: its masked secret when it was
   created here, or the analytics mask it was joined by when it was last changed here (so a
   key renamed today, whose usage still carries its old label, stays joined);
2. **key id** — the masked ``key_id``, where it equals an analytics mask (the service's key ids
   of paid-plan keys start and end as their secrets);
3. **label** — a label carried by exactly one listed key and exactly one analytics key.

A mask or label claimed by two keys joins neither of them. A listed key left over is *not
matched* when some analytics key nobody joined carries its label (two keys share it: which is
which cannot be told), else *no usage found*. An analytics key left over is *unattributed*:
its usage is shown on its own row, never merged into a listed key's.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

import pandas as pd

from analytics.service import DeveloperKey

How = Literal["recorded", "key id", "label", "not matched", "no usage found", "unattributed"]
JOINED: Final[tuple[How, ...]] = ("recorded", "key id", "label")
MASK_STARS: Final = "****"


def key_name(label: str, key_id: str) -> str:
    """A key as people read it, in every refusal, table and message: its label with its
    masked key id ("Partner portal (ab12****ef56)"); the key id itself, two UUIDs long, only
    in JSON, where programs read it."""
    return f"{label} ({masked(key_id)})"


def named_keys(table: pd.DataFrame, label: str = "label") -> pd.DataFrame:
    """A table of keys as people read it (a page's, a command's table or CSV): each key in
    its ``label`` column named by ``key_name``, the raw ``key_id`` column left out, so no
    reader meets two UUIDs where a key is meant; a row without a key id ("-", usage the key
    list does not name) keeps its label. JSON keeps the key ids, for programs."""
    named = table.drop(columns="key_id")
    named[label] = [
        name if key_id in ("-", "") else key_name(name, key_id)
        for name, key_id in zip(table[label], table["key_id"], strict=True)
    ]
    return named


def masked(text: str) -> str:
    """The service's masked form of a secret (or of a key id): four characters, four stars,
    four characters; only the stars for a text too short to show any."""
    if len(text) <= 8:
        return MASK_STARS
    return f"{text[:4]}{MASK_STARS}{text[-4:]}"


@dataclass(frozen=True)
class JoinedKey:
    """A listed key and its analytics key, either of which may be missing."""

    key: DeveloperKey | None  # None: an analytics key the list does not name (unattributed)
    api_key: str | None  # the masked key analytics names; None: no usage joined
    label: str  # the list's label; an unattributed key's label in analytics
    how: How

    @property
    def joined(self) -> bool:
        return self.how in JOINED


def join(
    listed: Sequence[DeveloperKey],
    usage_labels: Mapping[str, str],
    recorded: Mapping[str, str] | None = None,
) -> list[JoinedKey]:
    """Every listed key in the list's order, then every unattributed analytics key (in
    ``usage_labels``' order); ``usage_labels`` maps each analytics mask to its label, and
    ``recorded`` each key id to the mask the audit log recorded for it."""
    recorded = recorded or {}
    found: dict[str, tuple[str, How]] = {}  # key id -> (mask, how)
    free = set(usage_labels)

    def claim(how: How, candidate: Callable[[DeveloperKey], str | None]) -> None:
        proposed = {
            key.key_id: mask
            for key in listed
            if key.key_id not in found and (mask := candidate(key)) is not None and mask in free
        }
        wanted = Counter(proposed.values())
        for key_id, mask in proposed.items():
            if wanted[mask] == 1:
                found[key_id] = (mask, how)
                free.discard(mask)

    listed_labels = Counter(key.label for key in listed)
    usage_counts = Counter(usage_labels.values())
    by_label = {label: mask for mask, label in usage_labels.items() if usage_counts[label] == 1}
    claim("recorded", lambda key: recorded.get(key.key_id))
    claim("key id", lambda key: masked(key.key_id))
    claim("label", lambda key: by_label.get(key.label) if listed_labels[key.label] == 1 else None)

    free_labels = {usage_labels[mask] for mask in free}
    rows = []
    for key in listed:
        if key.key_id in found:
            mask, how = found[key.key_id]
            rows.append(JoinedKey(key, mask, key.label, how))
        else:
            left: How = "not matched" if key.label in free_labels else "no usage found"
            rows.append(JoinedKey(key, None, key.label, left))
    rows.extend(
        JoinedKey(None, mask, label, "unattributed")
        for mask, label in usage_labels.items()
        if mask in free
    )
    return rows


class KeyNotFound(LookupError):
    """A key a person named is not one listed key: the message lists the candidates."""


def pick(rows: Sequence[JoinedKey], named: str) -> JoinedKey:
    """The listed key `named` by its key id, its masked key (the analytics mask it joined,
    or its key id's) or its label, tried in that order; a name two keys answer to is
    ambiguous, and names neither."""
    listed = [row for row in rows if row.key is not None]
    text = named.strip()
    tests: tuple[Callable[[JoinedKey, DeveloperKey], bool], ...] = (
        lambda row, key: key.key_id == text,
        lambda row, key: text in (row.api_key, masked(key.key_id)),
        lambda row, key: key.label == text,
    )
    for test in tests:
        hits = [row for row in listed if row.key is not None and test(row, row.key)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            found = [row.key for row in hits if row.key is not None]
            raise KeyNotFound(f"{named!r} names {len(hits)} keys: {_candidates(found)}")
    keys = [row.key for row in listed if row.key is not None]
    if not keys:
        raise KeyNotFound(f"no key is named {named!r}: the organization has no developer keys")
    close = closest_labels(keys, text)
    hint = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
    raise KeyNotFound(
        f"no key is named {named!r}; {hint}give a key id, a masked key or a unique label "
        "(`keys list --all` lists every key)"
    )


def closest_labels(keys: Sequence[DeveloperKey], named: str, most: int = 3) -> list[str]:
    """The few labels most like `named` (case aside), for a name that matched no key: a
    short list to choose from, not every key of the organization."""
    labels = {key.label.casefold(): key.label for key in keys}
    wanted = named.casefold()
    close = difflib.get_close_matches(wanted, list(labels), most, 0.6)
    close += [folded for folded in labels if wanted and wanted in folded and folded not in close]
    return [labels[folded] for folded in close[:most]]


def _candidates(keys: Sequence[DeveloperKey]) -> str:
    return "; ".join(f"{key_name(key.label, key.key_id)}" for key in keys)
