"""Developer keys: the service's key list joined to usage (`join`), each key against its own
limits (`limits`, read for a front end through a `KeyReader` in `listed`), changes previewed
(`preview`) and made with every attempt audited (`changes`, `audit`), and keys rotated
(`rotation`)."""

from analytics.keys.audit import AuditEntry, AuditLog, audit_table, recorded_masks
from analytics.keys.changes import KeyRule, NotAllowed, every_key, no_key
from analytics.keys.join import KeyNotFound, join, key_name, masked, named_keys, pick
from analytics.keys.limits import (
    OWNER_COLUMNS,
    KeyRow,
    key_counts,
    key_facts,
    key_view_table,
    limits_note,
    shown_limits,
    with_owners,
)
from analytics.keys.listed import KeyReader, LimitStatus, key_view, limit_status
from analytics.keys.preview import (
    MAX_LABEL,
    NO_LIMIT,
    Preview,
    label_problem,
    limit_preview,
    milliseconds,
    minutes,
    rename_preview,
)
from analytics.keys.rotation import (
    ReplacementFailed,
    Rotation,
    RotationLog,
    RotationRefused,
    StillInUse,
    Watch,
    default_label,
    finish,
    leaked,
    rotate,
    rotation_table,
    watched,
)

__all__ = [
    "MAX_LABEL",
    "NO_LIMIT",
    "OWNER_COLUMNS",
    "AuditEntry",
    "AuditLog",
    "KeyNotFound",
    "KeyReader",
    "KeyRow",
    "KeyRule",
    "LimitStatus",
    "NotAllowed",
    "Preview",
    "ReplacementFailed",
    "Rotation",
    "RotationLog",
    "RotationRefused",
    "StillInUse",
    "Watch",
    "audit_table",
    "default_label",
    "every_key",
    "finish",
    "join",
    "key_counts",
    "key_facts",
    "key_name",
    "key_view",
    "key_view_table",
    "label_problem",
    "leaked",
    "limit_preview",
    "limit_status",
    "limits_note",
    "masked",
    "milliseconds",
    "minutes",
    "named_keys",
    "no_key",
    "pick",
    "recorded_masks",
    "rename_preview",
    "rotate",
    "rotation_table",
    "shown_limits",
    "watched",
    "with_owners",
]
