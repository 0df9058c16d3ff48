"""Percentages (shares of a total, and changes) carry one decimal wherever they are shown: in a
page's texts, tiles, bars and sentences, and in its tables' share columns."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.builders import invoke, ledger_totals
from support.headless import PAGES, TODAY, open_page
from support.shown import change_as_written, worded_texts

from analytics.usage.calendar import previous_range
from analytics.usage.metrics import share_text

PERCENTAGE = re.compile(r"\d[\d,]*(?:\.(\d+))?\s?%")
# An interval's level is its name ("the 80 % interval", its "80 % low" bound), not a share.
INTERVAL_LEVEL = re.compile(r"\b(?:80|95) % (?:interval|low|high)\b")
DAY = timedelta(days=1)


@given(st.floats(0, 10, allow_nan=False))
def test_a_share_is_written_with_one_decimal(share):
    text = share_text(share)
    assert re.fullmatch(r"\d{1,3}(?:,\d{3})*\.\d\u202f%", text)
    assert abs(float(text.removesuffix("\u202f%").replace(",", "")) - 100 * share) <= 0.05 + 1e-9


@pytest.mark.parametrize("page", [*PAGES, "anomalies?listed=All"])
def test_every_percentage_a_page_shows_has_one_decimal(demo_env, page):
    name, _, query = page.partition("?")
    at = open_page(name, **dict([query.split("=")]) if query else {})
    assert not at.exception
    decimals = {
        match.group(): match.group(1)
        for text in worded_texts(at)
        for match in PERCENTAGE.finditer(INTERVAL_LEVEL.sub("", text))
    }
    assert {
        shown for shown, digits in decimals.items() if digits is None or len(digits) != 1
    } == set()
    for table in at.dataframe:
        for column, settings in json.loads(table.proto.columns or "{}").items():
            shape = settings.get("type_config", {})
            # Streamlit's "percent" writes "12.3%": every percentage is printf's "12.3 %",
            # with the narrow no-break space the texts write.
            assert shape.get("format") != "percent", column
            if "%%" in str(shape.get("format", "")):
                assert shape["format"] == "%.1f\u202f%%", column


def test_one_change_reads_the_same_on_overview_capacity_and_the_report(
    demo_env, demo_ledger, tmp_path
):
    # The last 30 days' total characters against the range they are compared with (the 30 days
    # before; the calendar month before when they are one: June, seen on 1 July), from the ledger.
    start, end = TODAY - 30 * DAY, TODAY - DAY
    now = ledger_totals(demo_ledger.ledger(start, end))["total_characters"]
    before = ledger_totals(demo_ledger.ledger(*previous_range(start, end)))["total_characters"]
    change = change_as_written(now, before)

    overview = open_page("overview", period="Last 30 days")
    assert {m.label: m.delta for m in overview.metric}["Total characters"] == change
    capacity = open_page("capacity", period="Last 30 days")
    [services] = [df.value for df in capacity.dataframe if "Total characters" in df.value.index]
    assert services.loc["Total characters", "change %"] == change
    written = tmp_path / "report.html"
    result = invoke("report", "--period", "last-30-days", "--demo", "-o", str(written))
    assert result.exit_code == 0, result.stderr
    summary = written.read_text(encoding="utf-8")
    assert f'<div class="delta">{change} vs previous period' in summary.split("Total characters")[1]
