"""What the browser tests share: Debian's chromium as Playwright drives it, where screenshots
go, and how a missing tool is reported (a skip on a workstation, a failure in CI)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

from analytics.reports import pdf

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
# Found and started as the PDF report finds and starts it.
CHROMIUM = pdf.find_chromium()
CHROMIUM_ARGS = list(pdf.CHROMIUM_ARGS)
WAIT_MS = 60_000


def unavailable(what: str) -> NoReturn:
    """A tool the test needs is missing: CI (`CI=true`) must not pass without the test."""
    if os.environ.get("CI") == "true":
        pytest.fail(what)
    pytest.skip(what)
