"""The money files the dashboard uses: uploads, or `pricing.toml` / `teams.toml` beside the
dashboard, or (demo) the examples. Kept as text: the cache keys of the money views. And the
note every money view shows when some of its days have no price."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import streamlit as st

from analytics.cost.prices import parse_pricing, unpriced_text
from analytics.dashboard.uploads import UploadedFile
from analytics.storage.bundle import organization_file


def money_text(name: str, uploaded: UploadedFile | None, demo: bool) -> str | None:
    """The text of ``name``.toml in force, or None (usage only)."""
    if uploaded is not None:
        return uploaded.getvalue().decode("utf-8", errors="replace")
    path = organization_file(name, None, Path.cwd(), demo)
    return path.read_text(encoding="utf-8") if path else None


def file_in_force(name: str, demo: bool, uploaded: UploadedFile | None = None) -> str:
    """How a page names the ``name``.toml it reads: the file chosen on the page, else the one
    beside the dashboard, else in the demo the shipped example (``pricing.example.toml``), so a
    caption never points at a file that is not there. ``name``.toml when there is none: where
    to put one."""
    if uploaded is not None:
        return str(uploaded.name)
    path = organization_file(name, None, Path.cwd(), demo)
    return f"{name}.toml" if path is None else path.name


# What a page says when a money view is asked for without its file.
NEEDS_PRICING = (
    "Money views need prices: put a pricing.toml (and a teams.toml for the teams) beside "
    "the dashboard. See pricing.example.toml."
)
NEEDS_TEAMS = (
    "Grouping by team needs teams: put a teams.toml beside the dashboard. See teams.example.toml."
)


def say_unpriced(pricing: str, start: date, end: date, what: str = "costs and totals") -> None:
    """Name the days of ``start``–``end`` that ``pricing`` has no price for, if any: the page
    still shows the money of the others, rather than an error or usage instead."""
    unpriced = parse_pricing(pricing).unpriced(start, end)
    if unpriced is not None:
        st.info(unpriced_text(unpriced.note, what), icon=":material/money_off:")
