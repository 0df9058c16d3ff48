"""The store's keys: what a request's authorization resolves to, and the developer keys the
administrator operations list, create and change. Only a digest of each secret is kept."""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass

from emulator.store.database import Database


@dataclass(frozen=True)
class StoredKey:
    """What a request's authorization resolves to."""

    key_id: int
    masked: str
    label: str
    admin: bool
    detect_beta: bool
    character_limit: int | None = None
    speech_limit_ms: int | None = None


DEVELOPER_KEY = (
    "key_id, published_id, masked, label, created, deactivated, character_limit, speech_limit_ms"
)


@dataclass(frozen=True)
class DeveloperKeyRow:
    """A developer key as stored (the secret is not read back)."""

    key_id: int
    published_id: str
    masked: str
    label: str
    created: str
    deactivated: str | None
    character_limit: int | None
    speech_limit_ms: int | None


def instant_text(moment: dt.datetime | None) -> str | None:
    """An instant as the service writes it: ISO 8601 in UTC with milliseconds and a Z."""
    if moment is None:
        return None
    return moment.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def secret_digest(secret: str) -> str:
    """What the store keeps of a key's secret: a database file (the demo's lives in the
    history folder) must never hold one, as a real service would not."""
    return hashlib.sha256(secret.encode()).hexdigest()


class KeyStore(Database):
    """The `keys` table: looked up on every request, changed by the key operations."""

    def find_key(self, key: str) -> StoredKey | None:
        """The active key with this secret; a deactivated key is refused like an unknown one."""
        with self._lock:
            row = self._conn.execute(
                """
                SELECT key_id, masked, label, admin, detect_beta, character_limit,
                       speech_limit_ms
                FROM keys WHERE key = ? AND deactivated IS NULL
                """,
                (secret_digest(key),),
            ).fetchone()
        return (
            StoredKey(row[0], row[1], row[2], bool(row[3]), bool(row[4]), *row[5:]) if row else None
        )

    def developer_keys(self) -> list[DeveloperKeyRow]:
        """Every developer key (admin keys are not), active and deactivated, oldest first."""
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {DEVELOPER_KEY} FROM keys WHERE NOT admin ORDER BY created, key_id"  # noqa: S608
            ).fetchall()
        return [DeveloperKeyRow(*row) for row in rows]

    def developer_key(self, published_id: str) -> DeveloperKeyRow | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT {DEVELOPER_KEY} FROM keys WHERE NOT admin AND published_id = ?",  # noqa: S608
                (published_id,),
            ).fetchone()
        return DeveloperKeyRow(*row) if row else None

    def add_key(self, key: str, masked: str, label: str, published_id: str, created: str) -> None:
        """A new developer key; its row id follows every other (ids need not follow masks)."""
        with self._lock:
            self._conn.execute(
                """
                INSERT INTO keys (key_id, key, masked, label, admin, detect_beta, published_id,
                                  created)
                VALUES ((SELECT MAX(key_id) + 1 FROM keys), ?, ?, ?, 0, 0, ?, ?)
                """,
                (secret_digest(key), masked, label, published_id, created),
            )

    def change_key(self, published_id: str, **columns: object) -> None:
        """Set columns of a developer key's row (label, deactivated, the limits)."""
        assignments = ", ".join(f"{name} = ?" for name in columns)
        with self._lock:
            self._conn.execute(
                f"UPDATE keys SET {assignments} WHERE published_id = ?",  # noqa: S608
                (*columns.values(), published_id),
            )

    def active_developer_keys(self) -> int:
        with self._lock:
            row = self._conn.execute(
                "SELECT COUNT(*) FROM keys WHERE NOT admin AND deactivated IS NULL"
            ).fetchone()
        return int(row[0])
