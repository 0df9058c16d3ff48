"""`make bench` checks the tools its chosen scenarios need before the first one: without
chromium, a run that includes the browser lines stops at once with one line that says what
is missing, instead of failing after every other scenario has run."""

from __future__ import annotations

import subprocess
import sys

from support.servers import ROOT


def test_a_run_without_chromium_stops_before_any_scenario(tmp_path):
    results = tmp_path / "results.json"
    scenarios = ["--only", "decoding", "browser_pages"]  # the browser line after another
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--scale", "0.05", "--output", str(results), *scenarios],
        cwd=ROOT,
        env={"PATH": str(tmp_path), "HOME": str(tmp_path)},  # a PATH without chromium
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stdout == ""  # no scenario ran, not even the first
    assert done.stderr == (
        "error: the browser lines (browser_pages) need chromium on PATH (apt-get install "
        "chromium); install it or leave them out with --only\n"
    )
    assert not results.exists()
