"""The store's documents: the encrypted content of each upload, read back by its id."""

from __future__ import annotations

import datetime as dt

from emulator.store.database import Database
from emulator.store.key_store import StoredKey


class DocumentStore(Database):
    """The `documents` table: ciphertext and nonce only, the document key is never stored."""

    def save_document(
        self,
        document_id: str,
        key: StoredKey,
        *,
        filename: str,
        source_lang: str | None,
        target_lang: str,
        output_format: str,
        characters: int,
        nonce: bytes,
        ciphertext: bytes,
    ) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    document_id,
                    key.key_id,
                    filename,
                    source_lang,
                    target_lang,
                    output_format,
                    characters,
                    nonce,
                    ciphertext,
                    dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                ),
            )

    def document(self, document_id: str) -> tuple[bytes, bytes] | None:
        """(nonce, ciphertext) of a stored document."""
        with self._lock:
            row = self._conn.execute(
                "SELECT nonce, ciphertext FROM documents WHERE document_id = ?", (document_id,)
            ).fetchone()
        return (row[0], row[1]) if row else None
