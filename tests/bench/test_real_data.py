"""The real series the benchmark ships (bench/data/): each file is listed in the folder's
README with its source and licence, each listed file is there, and each is the daily series
the README describes, read from the file itself."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from support.servers import ROOT

DATA = ROOT / "bench" / "data"
README = DATA / "README.md"
ROW = re.compile(r"^\| `([^`]+)` \|(.*)\|\s*$")
COLUMNS = ["source", "license", "what it is", "the shape it stands for"]


def listed() -> dict[str, dict[str, str]]:
    """The README's table: each file's cells by column name."""
    rows = {}
    for line in README.read_text().splitlines():
        if found := ROW.match(line):
            cells = [cell.strip() for cell in found[2].split("|")]
            rows[found[1]] = dict(zip(COLUMNS, cells, strict=True))
    return rows


def test_every_data_file_is_listed_with_its_source_and_license():
    shipped = {path.name for path in DATA.iterdir() if path.name != README.name}
    rows = listed()
    assert len(shipped) >= 4
    assert set(rows) == shipped
    for name, cells in rows.items():
        assert all(cells[column] for column in COLUMNS), name
        assert re.search(r"CC BY|CC0|public domain|ODbL|attribution", cells["license"]), name


def test_the_shipped_files_are_a_few_hundred_kilobytes_at_most():
    assert sum(path.stat().st_size for path in DATA.iterdir()) < 500_000


@pytest.mark.parametrize("name", sorted(listed()))
def test_each_file_is_every_day_of_its_span_from_the_readmes_first_to_last_day(name):
    """The README names each file's first and last day; the file holds every day between them
    once, each a count of zero or more."""
    frame = pd.read_csv(DATA / name, parse_dates=["day"])
    first, last = re.findall(r"\d{4}-\d{2}-\d{2}", listed()[name]["what it is"])
    assert list(frame["day"]) == list(pd.date_range(first, last, freq="D"))
    assert frame.shape[1] == 2 and (frame.iloc[:, 1] >= 0).all()
