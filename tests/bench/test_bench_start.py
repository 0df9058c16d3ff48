"""`make bench` checks the tools its chosen scenarios need before the first one: without
chromium (or PostgreSQL's server), a run that includes the browser lines (or the state store
lines) stops at once with one line that says what is missing, instead of failing after every
other scenario has run."""

from __future__ import annotations

import subprocess
import sys

from support.servers import ROOT

from bench import postgres
from bench.__main__ import missing_tools


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


def test_the_state_lines_name_a_missing_postgresql_server(monkeypatch, tmp_path):
    """Without Debian's server programs, a run choosing a state store line stops before its
    first scenario, as one without chromium does (above), saying which lines need what."""
    monkeypatch.setattr(postgres, "SERVERS", str(tmp_path / "*" / "bin" / "initdb"))
    assert missing_tools(["decoding", "state_marks", "state_pages"]) == [
        f"the state store lines (state_marks, state_pages) need PostgreSQL's server (no "
        f"{tmp_path}/*/bin/initdb: apt-get install postgresql); install it or leave them out "
        "with --only"
    ]
    assert missing_tools(["decoding"]) == []
