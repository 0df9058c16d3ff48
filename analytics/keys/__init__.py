"""Developer keys: the service's key list joined to usage (`join`), each key against its own
limits (`limits`, read for a front end through a `KeyReader` in `listed`), changes previewed
(`preview`) and made with every attempt audited (`changes`, `audit`), and keys rotated
(`rotation`)."""

from analytics.keys.audit import AuditEntry, AuditLog, recorded_masks
from analytics.keys.join import KeyNotFound, join, masked, pick
from analytics.keys.listed import KeyReader, LimitStatus, key_view, limit_status
from analytics.keys.rotation import Rotation, RotationLog, finish, leaked, rotate, watched

__all__ = [
    "AuditEntry",
    "AuditLog",
    "KeyNotFound",
    "KeyReader",
    "LimitStatus",
    "Rotation",
    "RotationLog",
    "finish",
    "join",
    "key_view",
    "leaked",
    "limit_status",
    "masked",
    "pick",
    "recorded_masks",
    "rotate",
    "watched",
]
