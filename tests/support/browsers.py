"""What the browser tests share: Debian's chromium as Playwright drives it, where screenshots
go, and how a missing tool is reported (a skip on a workstation, a failure in CI)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, NoReturn

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, Playwright, expect

from analytics.reports import pdf
from bench import browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
# Found as the PDF report finds it.
CHROMIUM = pdf.find_chromium()
# How long a page may take to load or show what a test waits for: the suite runs three workers
# on two cores beside the servers and browsers they start, and a page's first load competes
# with all of them (Playwright's own default, 30 s, was once passed there).
WAIT_MS = 60_000
# An assertion waits as long: Playwright's five seconds for `expect` ran out under a rerun
# that took longer on a busy machine (the guardrails section's last-run line after Apply now).
expect.set_options(timeout=WAIT_MS)


def fresh_browser(playwright: Playwright, profile: Path, **options: Any) -> BrowserContext:
    """Chromium as the benchmark starts it (`bench.browser.launch`: headless, a fresh profile at
    `profile`, `options` to Playwright), every wait, a page's load among them, allowed WAIT_MS."""
    context: BrowserContext = browser.launch(playwright, profile, **options)
    context.set_default_timeout(WAIT_MS)  # a navigation's too: nothing sets one of its own
    return context


def one_chromium(playwright: Playwright) -> Browser:
    """Chromium started as the benchmark starts it (`bench.browser.launch_options`), for
    tests that each need a browser of their own: each `fresh_context` of it is one."""
    return playwright.chromium.launch(**browser.launch_options())


def fresh_context(chromium: Browser) -> BrowserContext:
    """A browser of its own in `chromium`: a fresh profile (no cookie, storage or cache of
    another context), the viewport the benchmark's, every wait allowed WAIT_MS. Unlike
    `fresh_browser`, it starts no browser: a start cost one to two processor-seconds
    more than a context."""
    context = chromium.new_context(viewport=browser.VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    return context


def settled(page: Page) -> None:
    """Waits until the app's run has ended and nothing an earlier run drew is left: until a
    rerun ends, the elements of the run before stay on the page, marked stale, beside those
    the rerun drew (two buttons of one name, one of them the old one). Streamlit sends a run's
    end after everything the run drew, so once it shows the run ended, what the run drew is on
    the page and nothing more of it arrives."""
    idle = page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]')
    expect(idle).to_have_count(1, timeout=WAIT_MS)
    expect(page.locator('[data-stale="true"]')).to_have_count(0, timeout=WAIT_MS)


def grid_texts(grid: Locator, role: str) -> list[str]:
    """The texts of a dataframe's header or body cells in the grid's accessible table (the
    cells drawn on screen; the grid itself is a canvas)."""
    cells = grid.locator(f"[role={role}]")
    expect(cells.first).to_be_attached(timeout=WAIT_MS)
    return [cell.text_content() or "" for cell in cells.all()]


def unavailable(what: str) -> NoReturn:
    """A tool the test needs is missing: CI (`CI=true`) must not pass without the test."""
    if os.environ.get("CI") == "true":
        pytest.fail(what)
    pytest.skip(what)


def said(page: Page, text: str | re.Pattern[str]) -> Locator:
    """The page's message of a change made, ``text``, where it is said once and stays (the
    success box at the top)."""
    return page.get_by_test_id("stAlertContentSuccess").get_by_text(text)
