"""The JSON every command writes (`--format json`): indented, days as ISO days, no value as
null, and counts as integers.

A table keeps a column of counts that has a missing value (a key without a limit) as floats,
and a float would be written `411062.0`: a script comparing it with a count, or a person
reading it, should see `411062`. A whole number is written as an integer wherever it comes
from, so no command has to remember it for its own columns; a fraction (speech minutes) stays
a fraction.
"""

from __future__ import annotations

import math

import msgspec
import pandas as pd


def json_text(value: object) -> str:
    """`value` (structures, dicts, lists, days) as the commands' JSON."""
    encoded = msgspec.json.encode(_plain(msgspec.to_builtins(value)))
    return msgspec.json.format(encoded, indent=2).decode()


def table_json(table: pd.DataFrame) -> str:
    """A table as a JSON list of one object per row, keyed by column name."""
    return json_text(table.astype(object).where(table.notna(), None).to_dict("records"))


def _plain(value: object) -> object:
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value
