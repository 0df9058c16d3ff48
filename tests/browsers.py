"""What the browser tests share: Debian's chromium as Playwright drives it, where screenshots
go, and how a missing tool is reported (a skip on a workstation, a failure in CI)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import NoReturn

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = shutil.which("chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
WAIT_MS = 60_000


def unavailable(what: str) -> NoReturn:
    """A tool the test needs is missing: CI (`CI=true`) must not pass without the test."""
    if os.environ.get("CI") == "true":
        pytest.fail(what)
    pytest.skip(what)
