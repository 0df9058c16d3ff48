"""`python -m bench [--scale 0.05] [--only NAME ...] [--output PATH] [--keep FOLDER]`: run the
scenarios, print one JSON line per target and write them, with the machine they ran on, to
bench/results.json; `--keep` leaves the outputs each scenario compares in FOLDER.

Exits 0 when every target is met and 3 when one is missed; 2 at once, before any scenario,
when a tool the chosen scenarios need is missing (chromium, PostgreSQL's server)."""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import platform
import sys
from pathlib import Path

from analytics.reports import pdf
from analytics.storage.allocator import use_system_allocator
from analytics.storage.files import write_atomic
from bench import postgres, result_lines
from bench.synthetic_orgs import Scale, pin_clock
from bench.targets import SCENARIOS

RESULTS = Path(__file__).resolve().parent / "results.json"
MISSED = 3  # exit status when a target is missed (a crash exits with 1)
MISSING_TOOL = 2  # exit status when a tool a chosen scenario needs is missing
# The scenarios that time the dashboard in Debian's chromium, driven by Playwright: they run
# last, so a missing browser would otherwise be found after every other line, minutes in.
BROWSER_SCENARIOS = ("browser_pages", "session_memory", "scoped_pages")
# The scenarios that start a PostgreSQL cluster of their own, from Debian's server packages.
STATE_SCENARIOS = ("state_marks", "state_pages")


def machine() -> dict[str, object]:
    """What the figures came from: CPU count and model, memory, Python."""
    cpu = next(
        (line.split(":", 1)[1].strip() for line in _lines("/proc/cpuinfo") if "model name" in line),
        platform.processor(),
    )
    memory_kb = next(
        (int(line.split()[1]) for line in _lines("/proc/meminfo") if line.startswith("MemTotal")),
        0,
    )
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory_gib": round(memory_kb / 1024**2, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def _lines(path: str) -> list[str]:
    try:
        return Path(path).read_text().splitlines()
    except OSError:
        return []


def missing_tools(names: list[str]) -> list[str]:
    """What the scenarios `names` need and this machine lacks, one line per tool; empty:
    nothing. Chromium is found as the browser lines find it (`pdf.find_chromium`), PostgreSQL
    as the state lines start it (`bench.postgres`)."""
    problems = []
    browser = ", ".join(name for name in names if name in BROWSER_SCENARIOS)
    need = None
    if browser and importlib.util.find_spec("playwright") is None:
        need = "Playwright (pip install -r requirements-dev.txt)"
    elif browser and pdf.find_chromium() is None:
        need = f"{pdf.CHROMIUM} on PATH (apt-get install chromium)"
    if need:
        problems.append(
            f"the browser lines ({browser}) need {need}; install it or leave them out with --only"
        )
    state = ", ".join(name for name in names if name in STATE_SCENARIOS)
    if state and (why := postgres.missing()):
        problems.append(
            f"the state store lines ({state}) need PostgreSQL's server ({why}); install it or "
            "leave them out with --only"
        )
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="1 = 1,000 keys, 0.05 smoke")
    parser.add_argument("--only", nargs="*", choices=list(SCENARIOS), help="scenarios to run")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where to write results")
    parser.add_argument("--keep", type=Path, help="folder for the outputs scenarios compare")
    args = parser.parse_args(argv)
    names = args.only or list(SCENARIOS)
    if problems := missing_tools(names):
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        return MISSING_TOOL
    use_system_allocator()  # as the programs measured do
    pin_clock()
    result_lines.KEPT = args.keep
    scale = Scale(args.scale)
    results = []
    for name in names:
        for line in SCENARIOS[name](scale):
            print(json.dumps(line), flush=True)
            results.append(line)
    report = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "scale": args.scale,
        "keys": scale.keys,
        "machine": machine(),
        "results": results,
    }
    # Atomic: a run stopped while writing leaves the earlier figures whole, not half a file.
    write_atomic((json.dumps(report, indent=2) + "\n").encode(), args.output)
    return 0 if all(line["ok"] for line in results) else MISSED


if __name__ == "__main__":
    sys.exit(main())
