"""Pages as an administrator waits for them: the dashboard served by `streamlit run` over the
benchmark organization in demo mode, opened in Debian's chromium driven by Playwright.

A page has loaded when its run is over (Streamlit's script state back to "not running" after
the visit began, its status widget gone, nothing stale left from the page before) and the
browser has drawn it (every chart's SVG in place, no placeholder skeleton). Every time is a
ratio to the bare page (`bench/dashboard.py`) loaded the same way in the same run.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import analytics.pages
from analytics.reports import pdf
from bench import synthetic_orgs
from bench.processes import free_port, resident_kb, stop_process, wait_until_healthy
from bench.result_lines import Result, keep, result

PAGES = {page.address: page.title for page in analytics.pages.PAGES}  # address → its link's title
BARE = ("bare", "Bare")
BARE_LINE = "A bare page: one line, no data."
ALL_HISTORY, LAST_30_DAYS = synthetic_orgs.PAGE_RANGES  # the lines' range first
RANGE_DAYS = {ALL_HISTORY: f"{synthetic_orgs.DAYS:,}", LAST_30_DAYS: "30"}  # as the sidebar says
WAIT_MS = 300_000  # a cold page of five years × 1,000 keys on a loaded two-core machine
STARTUP_SECONDS = 600.0
VIEWPORT = {"width": 1366, "height": 768}

# A visit is over when the page's run has ended: the page shows the mark of a run other than
# the one before the visit (drawn before the page by bench/dashboard.py, after Streamlit has
# said the run began), Streamlit says it is not running and shows no status widget, nothing
# stale is left of the page before, and every chart is drawn.
LOADED = """
(before) => {
  const marks = document.querySelectorAll('[data-bench-run]');
  if (!marks.length || marks[marks.length - 1].dataset.benchRun === before) return false;
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  if (document.querySelector('[data-testid="stSkeleton"]')) return false;
  for (const chart of document.querySelectorAll('[data-testid="stPlotlyChart"]')) {
    if (!chart.querySelector('.main-svg')) return false;
  }
  return true;
}
"""
LAST_MARK = """
() => {
  const marks = document.querySelectorAll('[data-bench-run]');
  return marks.length ? marks[marks.length - 1].dataset.benchRun : null;
}
"""
SHOWN = """
() => ({
  heading: (document.querySelector('h1') || {}).innerText || '',
  text: document.querySelector('[data-testid="stMain"]')?.innerText || '',
  sidebar: document.querySelector('[data-testid="stSidebar"]')?.innerText || '',
  charts: document.querySelectorAll('[data-testid="stPlotlyChart"]').length,
  tables: document.querySelectorAll('[data-testid="stDataFrame"]').length,
  errors: document.querySelectorAll(
    '[data-testid="stException"], [data-testid="stAlertContentError"]').length,
})
"""


@dataclass(frozen=True)
class Dashboard:
    base_url: str
    pid: int


@dataclass
class Visits:
    """Seconds per (period, path) and what each page showed the last time it loaded."""

    seconds: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    shown: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def add(self, period: str, path: str, seconds: float, shown: dict[str, Any]) -> None:
        self.seconds.setdefault((period, path), []).append(seconds)
        self.shown[(period, path)] = shown

    def median(self, period: str, path: str) -> float:
        return statistics.median(self.seconds[(period, path)])


@contextmanager
def dashboard(
    keys: int, folder: Path, secrets: Callable[[str], str] | None = None, **settings: str
) -> Iterator[Dashboard]:
    """`streamlit run bench/dashboard.py` in demo mode over the benchmark organization with
    `keys` keys on a free loopback port, with `settings` in its environment and, when given,
    `secrets(address)` as its secrets.toml (written in `folder`); stopped on exit."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
    environment |= {
        "PYTHONPATH": str(synthetic_orgs.ROOT),
        "SERVICE_DEMO_KEYS": str(keys),
        "SERVICE_DEMO_DAYS": str(synthetic_orgs.DAYS),
        "SERVICE_DEMO_SEED": str(synthetic_orgs.SEED),
        "SERVICE_HISTORY_PATH": str(folder / "history"),
        **settings,
    }
    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", "bench/dashboard.py"]
    command += ["--server.port", str(port), "--server.headless", "true"]
    command += ["--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"]
    if secrets is not None:
        written = folder / "secrets.toml"
        written.write_text(secrets(f"http://127.0.0.1:{port}"))
        command += ["--secrets.files", str(written)]
    with (folder / "streamlit.log").open("w+b") as log:
        server = subprocess.Popen(
            command, cwd=synthetic_orgs.ROOT, env=environment, stdout=log, stderr=log
        )
        try:
            base_url = f"http://127.0.0.1:{port}"
            if not wait_until_healthy(f"{base_url}/_stcore/health", server, STARTUP_SECONDS):
                log.seek(0)
                raise RuntimeError(f"the dashboard did not start: {log.read()[-2000:]!r}")
            yield Dashboard(base_url, server.pid)
        finally:
            stop_process(server)


def launch_options() -> dict[str, Any]:
    """How Playwright starts Debian's chromium: headless, with the PDF report's arguments."""
    executable = pdf.find_chromium()
    if executable is None:
        raise RuntimeError(pdf.MISSING)
    return {"executable_path": executable, "args": list(pdf.CHROMIUM_ARGS), "headless": True}


def launch(playwright: Any, profile: Path, **options: Any) -> Any:
    """Debian's chromium driven by `playwright` (`launch_options`), with a fresh profile at
    `profile` (its own cookies, nothing shared); `options` go to Playwright, the viewport
    1366×768 unless given. The benchmark and the browser tests start it this one way."""
    return playwright.chromium.launch_persistent_context(
        str(profile), **launch_options(), **{"viewport": VIEWPORT, **options}
    )


@contextmanager
def chromium(folder: Path) -> Iterator[Any]:
    """Chromium for a benchmark run, its profile in `folder`, closed afterwards."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = launch(playwright, folder / "chromium-profile")
        try:
            yield context
        finally:
            context.close()


def open_cold(context: Any, base_url: str, path: str, period: str) -> tuple[float, Any]:
    """A new tab (a new session) opening the page's address: seconds until loaded, the tab."""
    tab = context.new_page()
    started = time.perf_counter()
    tab.goto(f"{base_url}/{path}?period={period.replace(' ', '+')}")
    tab.wait_for_function(LOADED, arg=None, timeout=WAIT_MS)
    return time.perf_counter() - started, tab


def open_warm(tab: Any, title: str) -> float:
    """The page's link in the navigation clicked in a session that has shown it before."""
    link = tab.get_by_role("navigation").get_by_role("link", name=title, exact=True)
    before = tab.evaluate(LAST_MARK)
    started = time.perf_counter()
    link.click()
    tab.wait_for_function(LOADED, arg=before, timeout=WAIT_MS)
    return time.perf_counter() - started


def shown(tab: Any) -> dict[str, Any]:
    return dict(tab.evaluate(SHOWN))


def opened(chosen: tuple[str, ...] | None, whole: bool = True) -> dict[str, str]:
    """The pages a line opens, address → title, in the navigation's order: of those a scope
    of the whole organization (``whole``) or a team's lists, those `chosen` by their
    `url_path` (`Scale.browser_pages`, `Scale.scoped_pages`), every one for None."""
    return {
        page.address: page.title
        for page in analytics.pages.listed(whole)
        if chosen is None or page.url_path in chosen
    }


def visit_all(context: Any, base_url: str, period: str, pages: dict[str, str]) -> Any:
    """One session that has loaded each of `pages` once (the server's caches warm after it)."""
    _, tab = open_cold(context, base_url, BARE[0], period)
    for title in [*pages.values(), BARE[1]]:
        open_warm(tab, title)
    return tab


def page_loads(
    contexts: Sequence[Any],
    base_url: str,
    periods: list[str],
    repeat: int,
    pages: dict[str, str],
    *,
    bare: bool = True,
) -> list[dict[str, Visits]]:
    """Warm and cold loads of `pages` in each of `contexts` (one browser each: whose cookies,
    whose session), each context's {"warm": …, "cold": …}. Alternated page by page so that
    drift reaches every side alike: the bare page first (`bare`, in the first context), then
    the page in each context in turn, every other round in the reverse order: bare, page,
    bare, … for one context; for two, the page in one then the other, then the other first."""
    loads = [{"warm": Visits(), "cold": Visits()} for _ in contexts]
    first = [(0, *BARE)] if bare else []

    def turns(path: str, title: str, lap: int) -> list[tuple[int, str, str]]:
        """Who opens what, in turn, for one page: (context, address, link's title)."""
        sides = range(len(contexts)) if lap % 2 == 0 else reversed(range(len(contexts)))
        return [*first, *((side, path, title) for side in sides)]

    for period in periods:
        tabs = [visit_all(context, base_url, period, pages) for context in contexts]
        for lap in range(repeat):
            for path, title in pages.items():
                for side, where, name in turns(path, title, lap):
                    seconds = open_warm(tabs[side], name)
                    loads[side]["warm"].add(period, where, seconds, shown(tabs[side]))
        for tab in tabs:
            tab.close()
        for lap in range(repeat):
            for path, title in pages.items():
                for side, where, _ in turns(path, title, lap):
                    seconds, tab = open_cold(contexts[side], base_url, where, period)
                    loads[side]["cold"].add(period, where, seconds, shown(tab))
                    tab.close()
    return loads


def settled_kb(pid: int, samples: int) -> dict[str, int]:
    """The median resident set of `samples` reads a second apart (the allocator returns
    memory to the system in its own time), and the peak."""
    reads = []
    for _ in range(samples):
        time.sleep(1.0)
        reads.append(resident_kb(pid))
    return {"VmRSS": int(statistics.median(r["VmRSS"] for r in reads)), "VmHWM": reads[-1]["VmHWM"]}


# --- the lines ------------------------------------------------------------------------------

WARM_TARGET = 3.0
COLD_TARGET = 4.0
OVERVIEW_TARGET = 1.3
SESSION_MEMORY_TARGET = 1.5


def browser_pages(scale: synthetic_orgs.Scale) -> list[Result]:
    """Every page warm (its link clicked in a session that has shown it) and cold (its address
    opened in a new tab, a new session; the server's caches warm), alternated with the bare
    page, over `Scale.page_ranges`. The lines are All history's."""
    repeat, periods, pages = scale.page_visits, scale.page_ranges, opened(scale.browser_pages)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        with dashboard(scale.keys, folder) as served, chromium(folder) as context:
            (loads,) = page_loads([context], served.base_url, list(periods), repeat, pages)
    for (period, path), seen in loads["warm"].shown.items():
        name = f"{period.lower().replace(' ', '-')}-{path or 'overview'}.txt"
        keep("browser_pages", name, seen["text"].encode())
    checks = {"pages_render_their_data": rendered(loads, demo_line(scale.keys))}
    ratios = {kind: _ratios(visits, ALL_HISTORY, pages) for kind, visits in loads.items()}
    medians = {kind: _median_seconds(visits, periods, pages) for kind, visits in loads.items()}
    shown_pages = _shown_pages(loads["warm"], periods, pages)
    warm = ratios["warm"]
    others = [ratio for path, ratio in warm.items() if path != ""]
    slowest = {kind: pages[max(r, key=r.__getitem__)] for kind, r in ratios.items()}
    return [
        result(
            "browser_pages_warm",
            max(warm.values()),
            WARM_TARGET,
            checks,
            slowest=slowest["warm"],
            seconds=medians["warm"],
            shown=shown_pages,
            keys=scale.keys,
            repeat=repeat,
        ),
        result(
            "browser_pages_cold",
            max(ratios["cold"].values()),
            COLD_TARGET,
            checks,
            slowest=slowest["cold"],
            seconds=medians["cold"],
        ),
        result(
            "overview_vs_pages",
            warm[""] / statistics.median(others),
            OVERVIEW_TARGET,
            checks,
            overview_to_bare=round(warm[""], 4),
            others_to_bare=round(statistics.median(others), 4),
        ),
    ]


def session_memory(scale: synthetic_orgs.Scale) -> list[Result]:
    """The dashboard's resident memory once several sessions (tabs, `Scale.sessions`) have
    each shown the pages the lines open (`opened`) over All history and are still open,
    against a server of its own that served one."""
    pages = opened(scale.browser_pages)
    figures: dict[int, dict[str, int]] = {}
    everything_shown = True
    for sessions in (1, scale.sessions):
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch)
            with dashboard(scale.keys, folder) as served, chromium(folder) as context:
                tabs = [
                    visit_all(context, served.base_url, ALL_HISTORY, pages) for _ in range(sessions)
                ]
                everything_shown &= all(_summary(shown(tab))["errors"] == 0 for tab in tabs)
                figures[sessions] = settled_kb(served.pid, scale.memory_samples)
    one, many = figures[1]["VmRSS"], figures[scale.sessions]["VmRSS"]
    return [
        result(
            "session_memory",
            many / one,
            SESSION_MEMORY_TARGET,
            {"every_session_shown": everything_shown},
            rss_mb={str(n): round(f["VmRSS"] / 1024) for n, f in figures.items()},
            peak_rss_mb={str(n): round(f["VmHWM"] / 1024) for n, f in figures.items()},
            sessions=scale.sessions,
            keys=scale.keys,
        )
    ]


def demo_line(keys: int) -> str:
    """How the sidebar of the organization's pages names the demo organization of `keys`
    keys (a team's names no count of the organization's: `team_demo_line`)."""
    return f"Demo organization generated from {keys} keys"


def team_demo_line() -> str:
    """How the sidebar of a team's pages names the demo organization."""
    return f"Demo organization generated over {synthetic_orgs.DAYS:,} days"


def rendered(loads: dict[str, Visits], sidebar: str) -> bool:
    """Every load showed its page's title (the bare page its line), no error, the demo's line
    `sidebar` and the chosen range in the sidebar."""
    for visits in loads.values():
        for (period, path), seen in visits.shown.items():
            heading = PAGES.get(path, "")
            if seen["heading"] != heading or seen["errors"]:
                return False
            if path == BARE[0] and BARE_LINE not in seen["text"]:
                return False
            if sidebar not in seen["sidebar"]:
                return False
            if f"({RANGE_DAYS[period]} days)" not in seen["sidebar"]:
                return False
    return True


def _ratios(visits: Visits, period: str, pages: dict[str, str]) -> dict[str, float]:
    bare = visits.median(period, BARE[0])
    return {path: visits.median(period, path) / bare for path in pages}


def _median_seconds(
    visits: Visits, periods: Sequence[str], pages: dict[str, str]
) -> dict[str, dict[str, float]]:
    """The median seconds of each page and the bare page, by period and page title: the
    figures the ratios are read from, kept beside them."""
    return {
        period: {
            pages.get(path, BARE[1]): round(visits.median(period, path), 4)
            for path in [*pages, BARE[0]]
        }
        for period in periods
    }


def _shown_pages(
    visits: Visits, periods: Sequence[str], pages: dict[str, str]
) -> dict[str, dict[str, dict[str, Any]]]:
    """What each page and the bare page showed the last time it loaded, by period and page
    title: a line that measured an empty or failing page says so."""
    return {
        period: {
            pages.get(path, BARE[1]): _summary(visits.shown[(period, path)])
            for path in [*pages, BARE[0]]
        }
        for period in periods
    }


def _summary(seen: dict[str, Any]) -> dict[str, Any]:
    return {name: seen[name] for name in ("heading", "charts", "tables", "errors")}
