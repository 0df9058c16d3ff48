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
    context.add_init_script(CHANGES_JS)
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
    context.add_init_script(CHANGES_JS)
    return context


# The app's run has ended and nothing an earlier run drew is left (see `settled`).
IDLE_JS = """() => document.querySelector('[data-testid="stApp"]')
  ?.getAttribute('data-test-script-state') === 'notRunning'
  && document.querySelector('[data-stale="true"]') === null"""
# How often `settled` looks: `expect` retries every half second once a wait passes a quarter
# of one, which a page's run nearly always does, so each wait for a run outlasted it by a
# quarter of a second on average, and the browser tests spent much of their time so.
POLL_MS = 50


def settled(page: Page) -> None:
    """Waits until the app's run has ended and nothing an earlier run drew is left: until a
    rerun ends, the elements of the run before stay on the page, marked stale, beside those
    the rerun drew (two buttons of one name, one of them the old one). Streamlit sends a run's
    end after everything the run drew, so once it shows the run ended, what the run drew is on
    the page and nothing more of it arrives."""
    page.wait_for_function(IDLE_JS, polling=POLL_MS, timeout=WAIT_MS)


# Kept in every page of a context (`fresh_browser`, `fresh_context`): when its document last
# changed. A table draws its rows and a chart its marks a moment after the run that sent them
# has ended, each changing the document as it does.
CHANGES_JS = """window.__changed = performance.now();
new MutationObserver(() => { window.__changed = performance.now(); })
  .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});"""
QUIET_MS = 400  # how long a still page has not changed: longer than a table takes to draw


def still(page: Page) -> None:
    """Waits until the app's run has ended (`settled`) and the page has not changed for
    QUIET_MS: every table and chart of the run drawn, as a person sees the page once it
    stops moving."""
    quiet = f"() => ({IDLE_JS})() && performance.now() - window.__changed > {QUIET_MS}"
    page.wait_for_function(quiet, polling=POLL_MS, timeout=WAIT_MS)


def shoot(page: Page, name: str) -> None:
    """The page's screenshot `name` in SHOTS once it is `still`, its CSS animations and
    transitions run to their end (Playwright's `animations="disabled"`)."""
    still(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / name, animations="disabled")


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
