"""One way to write a number: a share, minutes, characters and money read the same from the
formatter, the dashboard's table columns (as Streamlit's printf formats draw them), the output
of `check-budgets` and the meeting report `report` writes. A share is one decimal and a narrow
no-break space (U+202F) before ``%`` everywhere: "22.6 %", never "22.6%" nor "22.6 %" with a
plain space."""

from __future__ import annotations

import re
from html import unescape

import pandas as pd
from support.headless import DEMO
from typer.testing import CliRunner

from analytics.cli import app
from analytics.cost.money import amount_text
from analytics.dashboard.column_config import (
    budget_columns,
    in_percent,
    key_table_columns,
    money_column,
    pair_table_columns,
    tag_table_columns,
)
from analytics.usage.metrics import MINUTES, TOTAL_CHARACTERS, format_value, share_text

# The values, and how a person writes each (the oracle).
SHARE, MINUTES_USED, CHARACTERS, CENTS = 0.226, 12.5, 1234, 123456
WRITTEN = {"share": "22.6\u202f%", "minutes": "12.50", "characters": "1,234", "money": "1,234.56"}
# A figure followed by "%" with nothing, a plain or a no-break space between.
MISSPELT = re.compile(r"\d[ \u00a0]?%")
# An interval's level is its name ("the 80 % interval", "In 95 %"), not a figure.
LEVEL = re.compile(r"(?<![\d.,])(?:80|95) %")
runner = CliRunner()


def printf(spec: str, value: float) -> str:
    """``value`` as Streamlit draws a column of printf format ``spec``: ``%,`` groups the
    thousands, ``%%`` is a percent sign."""
    found = re.fullmatch(r"(.*?)%(,?)(\.\d+)?([df])(.*)", spec)
    assert found, spec
    before, group, places, kind, after = found.groups()
    shown = format(value, f"{group}{places or ''}{kind if kind == 'f' else 'd'}")
    return f"{before}{shown}{after}".replace("%%", "%")


def test_the_formatter_writes_each_value_one_way():
    assert share_text(SHARE) == WRITTEN["share"]
    assert format_value(MINUTES_USED, MINUTES) == WRITTEN["minutes"]
    assert format_value(CHARACTERS, TOTAL_CHARACTERS) == WRITTEN["characters"]
    assert amount_text(CENTS, "EUR") == f"{WRITTEN['money']} EUR"


def test_the_dashboards_columns_draw_what_the_formatter_writes():
    table = in_percent(
        pd.DataFrame({"share": [SHARE], MINUTES: [MINUTES_USED], TOTAL_CHARACTERS: [CHARACTERS]})
    )
    for columns in (
        key_table_columns(),
        tag_table_columns(),
        pair_table_columns("Share of total characters"),
    ):
        share = columns["share"]["type_config"]
        assert printf(share["format"], table["share"][0]) == WRITTEN["share"]
        assert share["max_value"] == 100  # the bar is full at 100 %, the table in percent
    usage = key_table_columns()
    drawn = {
        "minutes": printf(usage[MINUTES]["type_config"]["format"], table[MINUTES][0]),
        "characters": printf(
            usage[TOTAL_CHARACTERS]["type_config"]["format"], table[TOTAL_CHARACTERS][0]
        ),
        "money": printf(money_column("Cost (EUR)", "EUR")["type_config"]["format"], CENTS / 100),
    }
    assert drawn == {k: WRITTEN[k] for k in drawn}
    used = budget_columns()["used %"]["type_config"]["format"]
    assert printf(used, 100 * SHARE) == WRITTEN["share"]


def text_of(html: str) -> str:
    """A page's words: its scripts and styles left out, its tags dropped."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", "\t", html))


def misspelt(text: str) -> set[str]:
    return set(MISSPELT.findall(LEVEL.sub("", text)))


def test_check_budgets_and_the_report_write_each_share_one_way(monkeypatch, tmp_path):
    for name, value in DEMO.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path / "history"))
    monkeypatch.chdir(tmp_path)
    checked = runner.invoke(app, ["check-budgets", "--demo"])
    assert checked.exit_code in (0, 10, 11), checked.output
    written = tmp_path / "report.html"
    made = runner.invoke(app, ["report", "--period", "last-30-days", "--demo", "-o", str(written)])
    assert made.exit_code == 0, made.output
    report = text_of(written.read_text(encoding="utf-8"))

    # Each budget's used share, as check-budgets prints it, is in the report as written.
    rows = [re.split(r"\s{2,}", line) for line in checked.stdout.splitlines()]
    used = rows[0].index("used %")
    shares = {row[0]: row[used] for row in rows[1:]}
    assert shares
    for budget, share in shares.items():
        assert share == "N/A" or re.fullmatch(r"[\d,]+\.\d\u202f%", share), (budget, share)
        assert f"\t{share}\t" in report, (budget, share)
    assert misspelt(checked.stdout) == set()
    assert misspelt(report) == set()
