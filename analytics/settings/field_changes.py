"""What a change of a settings document changes, field by field, before → after: the preview
`settings import`, `settings restore` and the Settings page show before anything is saved.

Fields are named as the file's own errors name them (``[[team]] #2 (labels)``, ``warning_at``),
so a person finds each one in the text. Comments and layout are no change: two texts that read
the same give no line.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Final

from analytics.usage import quoted

NOTHING: Final = "(not set)"
Fields = dict[str, object]


def _fields(data: Mapping[str, object], head: str = "") -> Iterator[tuple[str, object]]:
    for name, value in data.items():
        if isinstance(value, dict):
            yield from _fields(value, f"{head}{name}.")
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for index, entry in enumerate(value):
                for field, inner in _fields(entry):
                    yield f"[[{head}{name}]] #{index + 1} ({field})", inner
        else:
            yield f"{head}{name}", value


def _shown(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    if isinstance(value, str):
        return quoted(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def fields(text: str | None) -> Fields:
    """Every field of a document by its name in words; none for no document."""
    if text is None:
        return {}
    return dict(_fields(tomllib.loads(text, parse_float=Decimal)))


def differences(before: str | None, after: str | None) -> list[str]:
    """One line per field that differs, ``name: before → after``, in the order of ``after``
    then the fields only ``before`` has; empty when the two read the same."""
    old, new = fields(before), fields(after)
    names = [*new, *(name for name in old if name not in new)]
    return [
        f"{name}: {_shown(old[name]) if name in old else NOTHING} → "
        f"{_shown(new[name]) if name in new else NOTHING}"
        for name in names
        if old.get(name, NOTHING) != new.get(name, NOTHING)
    ]


def line_diff(theirs: str, yours: str, their_name: str, your_name: str) -> str:
    """``yours`` against ``theirs`` line by line (a unified diff, ``-`` theirs, ``+`` yours):
    what a conflicting save shows, so the lines that differ stand out of two whole files."""
    return "".join(
        difflib.unified_diff(
            theirs.splitlines(keepends=True),
            yours.splitlines(keepends=True),
            fromfile=their_name,
            tofile=your_name,
        )
    )
