"""The paper the meeting report is printed on, by one rule whether the Capacity page or the
`report` command makes it: the ``REPORT_PAGE_SIZE`` setting, A4 unless it says Letter. (Its
budgets, prices and teams are the settings in force, read as every surface reads them:
``settings.in_force``.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

PageSize = Literal["A4", "Letter"]
PAGE_SIZES: Final[tuple[PageSize, ...]] = ("A4", "Letter")
PAGE_SIZE_SETTING: Final = "REPORT_PAGE_SIZE"


class ReportSettingsError(ValueError):
    """A setting of the report that cannot be used; the message names it and what it may be."""


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


def report_page_size(environ: Mapping[str, str], size: str | None = None) -> PageSize:
    """The report's paper: the size given, else the ``REPORT_PAGE_SIZE`` setting, else A4."""
    return page_size(size if size is not None else environ.get(PAGE_SIZE_SETTING))
