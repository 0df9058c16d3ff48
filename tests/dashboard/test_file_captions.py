"""A page names the organization file it actually reads: in the demo, without files of one's
own, the shipped examples (`pricing.example.toml`), never a `pricing.toml` that is not there;
with a `pricing.toml` beside the dashboard, that file."""

from __future__ import annotations

import re
import shutil

import pytest
from support.headless import PAGES, ROOT, open_page
from support.shown import worded_texts

FILE_NAME = re.compile(r"[\w.-]+\.toml\b")
# Every page, and the views that read prices and teams.
VIEWS = [
    *((page, {}) for page in PAGES),
    *((page, {"show": "Cost", "group": "Team"}) for page in ("overview", "keys", "trends", "tags")),
    ("export", {"show": "Cost"}),
]


def named_files(page: str, params: dict[str, str]) -> set[str]:
    at = open_page(page, **params)
    assert not at.exception
    return {name for text in worded_texts(at) for name in FILE_NAME.findall(text)}


@pytest.mark.parametrize(("page", "params"), VIEWS, ids=[f"{p}{q or ''}" for p, q in VIEWS])
def test_the_demo_names_only_files_that_are_there(demo_env, tmp_path, monkeypatch, page, params):
    monkeypatch.chdir(tmp_path)  # the dashboard's folder: no organization file of one's own
    there = {path.name for path in ROOT.glob("*.example.toml")}  # shipped beside the program
    assert named_files(page, params) - there == set()


def test_a_pricing_file_beside_the_dashboard_is_the_one_named(demo_env, tmp_path, monkeypatch):
    shutil.copy(ROOT / "pricing.example.toml", tmp_path / "pricing.toml")
    monkeypatch.chdir(tmp_path)
    named = named_files("overview", {"show": "Cost"})
    assert "pricing.toml" in named
    assert "pricing.example.toml" not in named
