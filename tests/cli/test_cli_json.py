"""The commands' one JSON writer: whatever a table holds a count as, the count is written as
an integer; a fraction stays a fraction and a missing value is null."""

from __future__ import annotations

import json

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from analytics.cli.json_output import table_json

COUNTS = st.integers(-(2**53), 2**53)  # every one exact as a float
QUARTERS = st.integers(-(2**40), 2**40).filter(lambda n: n % 4).map(lambda n: n / 4)


@given(st.lists(st.tuples(st.none() | COUNTS, QUARTERS)))
def test_counts_are_integers_and_fractions_stay(rows):
    table = pd.DataFrame(rows, columns=["characters", "minutes"], dtype=float)
    written = table_json(table)
    literals: list[str] = []
    records = json.loads(written, parse_float=lambda text: literals.append(text) or float(text))
    assert [(r["characters"], r["minutes"]) for r in records] == rows
    assert all(type(r["characters"]) in (int, type(None)) for r in records)
    assert len(literals) == len(rows)  # one per fraction, none for a count
