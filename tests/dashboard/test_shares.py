"""Percentages (shares of a total, and changes) carry one decimal wherever they are shown: in a
page's texts, tiles, bars and sentences, and in its tables' share columns."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.headless import PAGES, open_page
from support.shown import shown_texts

from analytics.usage.metrics import share_text

PERCENTAGE = re.compile(r"\d[\d,]*(?:\.(\d+))?\s?%")
# An interval's level is its name ("the 80 % interval", its "80 % low" bound), not a share.
INTERVAL_LEVEL = re.compile(r"\b(?:80|95) % (?:interval|low|high)\b")


@given(st.floats(0, 10, allow_nan=False))
def test_a_share_is_written_with_one_decimal(share):
    text = share_text(share)
    assert re.fullmatch(r"\d+\.\d %", text)
    assert abs(float(text.removesuffix(" %")) - 100 * share) <= 0.05 + 1e-9


@pytest.mark.parametrize("page", [*PAGES, "anomalies?listed=All"])
def test_every_percentage_a_page_shows_has_one_decimal(demo_env, page):
    name, _, query = page.partition("?")
    at = open_page(name, **dict([query.split("=")]) if query else {})
    assert not at.exception
    decimals = {
        match.group(): match.group(1)
        for text in shown_texts(at)
        for match in PERCENTAGE.finditer(INTERVAL_LEVEL.sub("", text))
    }
    assert {
        shown for shown, digits in decimals.items() if digits is None or len(digits) != 1
    } == set()
    for table in at.dataframe:
        for column, settings in json.loads(table.proto.columns or "{}").items():
            shape = settings.get("type_config", {})
            if shape.get("format") == "percent":  # a fraction: the step's decimals less two
                assert shape.get("step") == pytest.approx(0.001), column
            elif "%%" in str(shape.get("format", "")):  # a percentage as printf writes it
                assert shape["format"] == "%.1f%%", column
