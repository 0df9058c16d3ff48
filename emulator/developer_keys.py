"""The organization's developer keys as the administrator operations manage them.

The rules the service documents: at most 25 developer keys are active at once (2 on the free
plan, `emulator.org.most_active`); deactivation is immediate and permanent (the key is refused
with 403 from then on, and stays listed); active and deactivated keys can be renamed, and two
keys may share a label; a key created without a label gets the published default label
(`DEFAULT_LABEL`); the secret is given once, in the create answer's `key` field, and never
again. A key's limits cap its use over one usage period, which here is the organization's
billing period: characters across text, document and improvement, and speech-to-text
milliseconds; None is no limit, 0 allows nothing.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from emulator.errors import ServiceError, bad_request
from emulator.ledger import mask_key
from emulator.org import DEFAULT_LABEL, derived_key_id, most_active
from emulator.store import DeveloperKeyRow, KeyStore, StoredKey, instant_text

LIMIT_FIELDS = {"characters": "character_limit", "speech_to_text_milliseconds": "speech_limit_ms"}
QUOTA_EXCEEDED = "Quota exceeded. The character limit has been reached."


def key_body(row: DeveloperKeyRow) -> dict[str, Any]:
    """A key as the operations answer it (the published ApiKey shape)."""
    return {
        "key_id": row.published_id,
        "label": row.label,
        "creation_time": row.created,
        "deactivated_time": row.deactivated,
        "is_deactivated": row.deactivated is not None,
        "usage_limits": {
            "characters": row.character_limit,
            "speech_to_text_milliseconds": row.speech_limit_ms,
        },
    }


def create(store: KeyStore, label: str | None, pro: bool, now: dt.datetime) -> dict[str, Any]:
    """A new developer key, with its secret in `key` (this answer only)."""
    most = most_active(pro)
    if store.active_developer_keys() >= most:
        raise ServiceError(
            403,
            f"Forbidden: at most {most} developer keys can be active at once; "
            "deactivate one before creating another.",
            "too_many_keys",
        )
    secret = str(uuid.uuid4()) + ("" if pro else ":fx")
    published_id = derived_key_id(secret)
    store.add_key(secret, mask_key(secret), label or DEFAULT_LABEL, published_id, instant_text(now))
    return key_body(known(store, published_id)) | {"key": secret}


def known(store: KeyStore, published_id: str) -> DeveloperKeyRow:
    """The developer key with this id, or 404."""
    row = store.developer_key(published_id)
    if row is None:
        raise ServiceError(404, "Not found: no developer key has this key_id.", "key_not_found")
    return row


def deactivate(store: KeyStore, published_id: str, now: dt.datetime) -> dict[str, Any]:
    """Deactivate a key; a key already deactivated keeps its time (permanent, not undone)."""
    if known(store, published_id).deactivated is None:
        store.change_key(published_id, deactivated=instant_text(now))
    return key_body(known(store, published_id))


def rename(store: KeyStore, published_id: str, label: str) -> dict[str, Any]:
    known(store, published_id)
    store.change_key(published_id, label=label)
    return key_body(known(store, published_id))


def set_limits(store: KeyStore, published_id: str, limits: dict[str, int | None]) -> dict[str, Any]:
    """Set the limits given (None removes one); a limit not given stays as it was."""
    known(store, published_id)
    if limits:
        store.change_key(published_id, **{LIMIT_FIELDS[name]: v for name, v in limits.items()})
    return key_body(known(store, published_id))


def limit_value(body: dict[str, Any], name: str) -> int | None:
    """A limit of the limits body: a whole number ≥ 0, or null for none."""
    value = body[name]
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise bad_request(
            f"Bad request. Parameter {name} must be a whole number ≥ 0, or null for no limit."
        )
    return value


def check_characters(key: StoredKey, used: int) -> None:
    """456 once the key's characters this usage period reach its character limit."""
    if key.character_limit is not None and used >= key.character_limit:
        raise ServiceError(456, QUOTA_EXCEEDED, "quota_exceeded")
