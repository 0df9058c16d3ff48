"""The synthetic organizations the scenarios run against, in-process or as a real process."""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from analytics.usage.calendar import CLOCK_VARIABLE
from bench.processes import stop_process
from emulator import EmulatorConfig, create_app
from emulator.usage_report import build_report

ROOT = Path(__file__).resolve().parent.parent
FULL_KEYS = 1000
DAYS = 1826  # five years
SEED = 42
# The day every organization of a run is generated for (its history ends the day before), made
# the run's one clock by `pin_clock`: the organizations, their injected anomalies and the figures
# read from them are the same on any day, so a line moves with the code alone.
TODAY = dt.date(2026, 11, 25)
# The dashboard's entry script as `AppTest` runs it, from the checkout.
APP_LAUNCHER = f"import runpy; runpy.run_path({str(ROOT / 'app.py')!r})"


def pin_clock() -> None:
    """Make noon UTC of TODAY the clock of this process and of every process it starts
    (CLOCK_VARIABLE): the emulators, commands and dashboards of the run all read it."""
    os.environ[CLOCK_VARIABLE] = f"{TODAY.isoformat()}T12:00:00+00:00"


# The pages the smoke run opens in chromium: Overview (its total is read against the ledger)
# and Trends (a chart and a table). Not Capacity, the slowest page in the full runs: its
# forecasts, worked out anew by each of the smoke run's three servers, and its four charts
# cost the two chromium scenarios a quarter of their processor time (64.6 processor-seconds
# with it, 47.6 with Trends), and the smoke run checks the lines, not a page.
SMOKE_BROWSER_PAGES = ("overview", "trends")
# The ranges the browser lines open pages over, as the range control writes them in the address;
# the lines use the first.
PAGE_RANGES = ("All history", "Last 30 days")


@dataclass(frozen=True)
class Scale:
    """Organization size: `factor` 1 is the full 1,000 keys, 0.05 the smoke run."""

    factor: float

    @property
    def keys(self) -> int:
        return max(10, round(FULL_KEYS * self.factor))

    @property
    def repeat(self) -> int:
        """Timed rounds after the warm-up: five at full scale; one in the smoke run, which
        checks what each scenario computes, not how fast."""
        return 5 if self.factor >= 0.5 else 1

    @property
    def warmup(self) -> int:
        """Untimed rounds before the timed ones: one at full scale (the first run of a call
        builds what later runs find warm); none in the smoke run."""
        return 1 if self.factor >= 0.5 else 0

    @property
    def latency_rounds(self) -> int:
        """Timed rounds of `concurrent_windows` against the emulator answering after 200 ms:
        three at full scale; one in the smoke run, whose rounds are mostly that waiting and
        which checks the windows fetched and their frames, not how fast."""
        return 3 if self.factor >= 0.5 else 1

    @property
    def page_visits(self) -> int:
        """How many times the browser lines open each page: a median of three at full scale;
        once in the smoke run, which checks what the pages show, not how fast."""
        return 3 if self.factor >= 0.5 else 1

    @property
    def scoped_visits(self) -> int:
        """How many times `scoped_pages` opens each page for each person: a median of five at
        full scale, where a warm load is 0.2 to 0.4 s and the line is the largest of 24 ratios
        (with three, they read 0.64 to 1.16, median 0.96, while the lead's and the viewer's
        headless reruns of the largest took 0.03 and 0.04 s); once in the smoke run."""
        return 5 if self.factor >= 0.5 else 1

    @property
    def page_ranges(self) -> tuple[str, ...]:
        """The ranges the browser lines open each page over, as the range control writes them
        in the address: All history (the lines' range) and Last 30 days at full scale; All
        history alone in the smoke run."""
        return PAGE_RANGES if self.factor >= 0.5 else PAGE_RANGES[:1]

    @property
    def browser_pages(self) -> tuple[str, ...] | None:
        """The pages (by their `url_path`) the browser lines open: every page at full scale
        (None); Overview and Trends in the smoke run, which checks the lines' loading,
        timing and reading of what each page shows, not each page (the browser tests draw
        every page in chromium)."""
        return None if self.factor >= 0.5 else SMOKE_BROWSER_PAGES

    @property
    def scoped_pages(self) -> tuple[str, ...] | None:
        """The pages (by their `url_path`) `scoped_pages` opens for the organization viewer
        and the team lead: every page at full scale (None); Overview alone in the smoke run,
        which checks that both are signed in, that the lead's pages show the team and that
        the line is read, not each page (its dashboard of its own is the cost: its start and
        the organization's first loads)."""
        return None if self.factor >= 0.5 else SMOKE_BROWSER_PAGES[:1]

    @property
    def forecast_keys(self) -> int:
        """The largest keys scored beside the organization: twenty at full scale, three in
        the smoke run."""
        return 20 if self.factor >= 0.5 else 3

    @property
    def sessions(self) -> int:
        """The open sessions `session_memory` weighs against one: ten at full scale, two in
        the smoke run (which checks that each session showed every page, not how much)."""
        return 10 if self.factor >= 0.5 else 2

    @property
    def memory_samples(self) -> int:
        """Reads of a dashboard's resident memory, a second apart, `session_memory` takes the
        median of: five at full scale; one in the smoke run (which checks that each session
        showed every page and that the figures are read, not how steady they are)."""
        return 5 if self.factor >= 0.5 else 1

    @property
    def state_marks(self) -> int:
        """The anomaly marks `state_marks` has its eight processes write into each store: 1,000
        at full scale; 200 in the smoke run (it checks that every one is kept, in seconds)."""
        return 1000 if self.factor >= 0.5 else 200

    @property
    def replay_keys(self) -> int:
        """The keys of the guardrails' replay organization (the benchmark's seed): 22 at full
        scale, as many as it keeps active, so that none is deactivated with recent usage (the
        plan forecasts every listed key with usage in the run rate's window, ~11 ms each);
        10 in the smoke run."""
        return 22 if self.factor >= 0.5 else 10

    @property
    def replay_hours(self) -> int:
        """The hours the guardrails' replay simulates of each day of its two usage periods,
        the guardrails applied at each: every hour at full scale (the hourly timer); two in
        the smoke run, each carrying twelve hours' usage (it checks what the lines claim against
        the emulator's ledger, in seconds)."""
        return 24 if self.factor >= 0.5 else 2


@cache
def app(keys: int, days: int = DAYS, tags: int | None = None) -> Any:
    """The organization of `keys` over `days`, with `tags` distinct custom tags when given."""
    return create_app(EmulatorConfig(seed=SEED, keys=keys, days=days, tags=tags))


def key_and_day_body(keys: int, days: int) -> bytes:
    """The analytics body of the last `days` days for every key, as the emulator sends it."""
    emulator = app(keys).state.emulator
    end = emulator.today()
    start = end - dt.timedelta(days=days)
    report = build_report(emulator.store, start.isoformat(), end.isoformat(), "key_and_day")
    return orjson.dumps(report)


def five_years(today: dt.date) -> tuple[dt.date, dt.date]:
    """The inclusive range of the organization's whole history, ending yesterday."""
    return last_days(today, DAYS)


def last_days(today: dt.date, days: int) -> tuple[dt.date, dt.date]:
    """The inclusive range of the `days` days ending yesterday."""
    return today - dt.timedelta(days=days), today - dt.timedelta(days=1)


@dataclass(frozen=True)
class Served:
    base_url: str
    admin_key: str


@contextmanager
def emulator_process(keys: int, latency_ms: int = 0) -> Iterator[Served]:
    """`python -m emulator` on a free loopback port; stopped on exit."""
    command = [sys.executable, "-m", "emulator", "--keys", str(keys), "--days", str(DAYS)]
    command += ["--seed", str(SEED), "--latency-ms", str(latency_ms), "--port", "0"]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = re.search(r"http://\S+", process.stdout.readline())
        key = process.stdout.readline().removeprefix("Admin key:").strip()
        if not url or not key:
            raise RuntimeError("the emulator did not start")
        yield Served(url.group(0), key)
    finally:
        stop_process(process)


@contextmanager
def environment(values: dict[str, str], restored: Sequence[str] = ()) -> Iterator[None]:
    """`values` set in the environment for the block; they and the `restored` names (which the
    block may set) are as they were after it."""
    saved = {name: os.environ.get(name) for name in [*values, *restored]}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def demo_environment(folder: str) -> AbstractContextManager[None]:
    """Demo mode over the benchmark organization with a private history folder for the pages;
    the environment restored after."""
    values = {
        "SERVICE_DEMO_DAYS": str(DAYS),
        "SERVICE_DEMO_SEED": str(SEED),
        "SERVICE_HISTORY_PATH": folder,
        "SERVICE_AUTH_KEY": "",
        "SERVICE_BASE_URL": "",
    }
    return environment(values, ["SERVICE_DEMO_KEYS", "SERVICE_DEMO_TAGS"])
