"""What the meeting report reads besides usage, found by one rule whether the Capacity page or
the `report` command makes it: the budgets file (its contract year start and budgets), the
pricing and teams files (its spend), and the paper it is printed on.

The files are found as every organization file is (``bundle.organization_file``: given, else
in the working folder, else in demo mode the shipped example), so the page's download and the
command's file show the same contract year, budget status and spend. The paper is the
``REPORT_PAGE_SIZE`` setting: A4 unless it says Letter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from analytics.storage.bundle import organization_file

PageSize = Literal["A4", "Letter"]
PAGE_SIZES: Final[tuple[PageSize, ...]] = ("A4", "Letter")
PAGE_SIZE_SETTING: Final = "REPORT_PAGE_SIZE"


class ReportSettingsError(ValueError):
    """A setting of the report that cannot be used; the message names it and what it may be."""


@dataclass(frozen=True)
class ReportSettings:
    """The files in force (None: there is none) and the paper size."""

    budgets: Path | None
    pricing: Path | None
    teams: Path | None
    page_size: PageSize


def page_size(text: str | None) -> PageSize:
    """The paper a setting or option names (any case); A4 when none is given."""
    if text is None or not text.strip():
        return "A4"
    for size in PAGE_SIZES:
        if text.strip().lower() == size.lower():
            return size
    raise ReportSettingsError(
        f"page size {text!r} is not one of {', '.join(PAGE_SIZES)} ({PAGE_SIZE_SETTING})"
    )


def report_settings(
    environ: Mapping[str, str],
    folder: Path,
    demo: bool,
    *,
    budgets: Path | None = None,
    pricing: Path | None = None,
    teams: Path | None = None,
    size: str | None = None,
) -> ReportSettings:
    """The report's settings: each file given, else found in ``folder`` (else the example in
    demo mode); the page size given, else the ``REPORT_PAGE_SIZE`` setting, else A4."""
    return ReportSettings(
        budgets=organization_file("budgets", budgets, folder, demo),
        pricing=organization_file("pricing", pricing, folder, demo),
        teams=organization_file("teams", teams, folder, demo),
        page_size=page_size(size if size is not None else environ.get(PAGE_SIZE_SETTING)),
    )
