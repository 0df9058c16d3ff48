"""What the embedded state store of a history folder holds, read with Python's own sqlite3,
past the code that writes it: the oracle of the tests that act through a page or a command."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

FILE = "state.sqlite"


def rows(folder: Path, query: str) -> list[tuple]:
    """The rows a query finds in the folder's store; none when there is no store yet."""
    path = Path(folder) / FILE
    if not path.exists():
        return []
    with closing(sqlite3.connect(path)) as connection:
        return connection.execute(query).fetchall()


def audit_entries(folder: Path) -> list[dict]:
    """Every key audit entry, oldest first, as the JSON objects kept."""
    return [
        json.loads(entry) for (entry,) in rows(folder, "SELECT entry FROM key_audit ORDER BY id")
    ]


def marks(folder: Path) -> dict[str, str]:
    """Each marked anomaly id and its mark."""
    return dict(rows(folder, "SELECT anomaly, mark FROM anomaly_marks"))


def guardrail_states(folder: Path) -> list[dict]:
    """Each account's guardrail state, as the JSON objects kept."""
    return [json.loads(state) for (state,) in rows(folder, "SELECT state FROM guardrail_state")]
