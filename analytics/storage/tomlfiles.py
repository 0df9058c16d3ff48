"""Reading the TOML files users write (budgets, prices, teams) into typed structures, with one
clear error per problem naming the file, the entry and the field.

Numbers are read as ``Decimal`` (TOML floats never pass through binary floats; a ``float``
field still gets a float), and msgspec's locations (``$.price[1].unit_prices``) are rewritten
as the file's words: ``[[price]] #2 (unit_prices)``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import TypeVar

import msgspec

T = TypeVar("T")

_LOCATED = re.compile(r"(?P<what>.*) - at `\$(?P<path>[^`]*)`", re.DOTALL)
_ENTRY = re.compile(r"\.(?P<table>\w+)\[(?P<index>\d+)\]\.?(?P<field>.*)")


def _where(message: str, explain: Callable[[str, str], str]) -> str:
    """``what - at `$.table[i].field``` as ``[[table]] #i+1 (field): what``."""
    located = _LOCATED.fullmatch(message)
    if located is None:
        return message
    what, path = located["what"], located["path"]
    entry = _ENTRY.fullmatch(path)
    if entry is None:
        field = path.removeprefix(".")
        return f"{field}: {explain(field, what)}" if field else what
    head = f"[[{entry['table']}]] #{int(entry['index']) + 1}"
    field = entry["field"]
    return f"{head} ({field}): {explain(field, what)}" if field else f"{head}: {what}"


def _as_is(field: str, what: str) -> str:
    return what


def parse_toml(
    text: str,
    source: str,
    schema: type[T],
    error: type[ValueError],
    explain: Callable[[str, str], str] = _as_is,
) -> T:
    """Parse ``text`` into ``schema``; any problem is one ``error`` naming ``source``.

    ``explain(field, message)`` may reword msgspec's message about a field.
    """
    try:
        data = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{source}: not valid TOML: {exc}") from None
    try:
        return msgspec.convert(data, schema)
    except msgspec.ValidationError as exc:
        raise error(f"{source}: {_where(str(exc), explain)}") from None


def read_text(path: Path | str, error: type[ValueError]) -> str:
    """The file's text, or one ``error`` naming it."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot be read ({exc})") from None
