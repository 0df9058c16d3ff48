"""Where the programs' Arrow buffers come from: the C library's allocator, chosen by the command
line and the dashboard as they start (the `memory_export` benchmark measures what it saves),
never by importing the package, and never over a pool the environment names."""

from __future__ import annotations

import os
import subprocess
import sys

import pyarrow as pa
from support.headless import app_test
from support.servers import ROOT

# Prints the pool Arrow allocates from after the given statements ran.
PROBE = "import pyarrow\n{statements}\nprint(pyarrow.default_memory_pool().backend_name)"
# `python -m analytics --help`, as the installed command and cron run the command line.
COMMAND_LINE = """import runpy, sys
sys.argv = ["analytics", "--help"]
try:
    runpy.run_module("analytics", run_name="__main__")
except SystemExit:
    pass"""


def pool_after(statements: str, **environment: str) -> str:
    """The pool a fresh interpreter allocates from after `statements`, with `environment`
    and without any pool the surrounding environment names."""
    inherited = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    finished = subprocess.run(
        [sys.executable, "-c", PROBE.format(statements=statements)],
        env=inherited | environment,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return finished.stdout.splitlines()[-1]


def test_the_command_line_allocates_from_the_system_allocator():
    assert pool_after(COMMAND_LINE) == "system"


def test_a_pool_the_environment_names_is_kept():
    assert pool_after(COMMAND_LINE, ARROW_DEFAULT_MEMORY_POOL="mimalloc") == "mimalloc"


def test_importing_the_package_leaves_the_allocator_alone():
    """A script or notebook that uses the library keeps Arrow's own choice."""
    imported = "import analytics.cli, analytics.exports.formats, analytics.usage.pipeline"
    assert pool_after(imported) == pool_after("") != "system"


def test_the_dashboard_allocates_from_the_system_allocator(demo_env, monkeypatch):
    monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)
    before = pa.default_memory_pool()
    pa.set_memory_pool(pa.mimalloc_memory_pool())
    try:
        at = app_test()
        at.run()
        assert not at.exception
        assert pa.default_memory_pool().backend_name == "system"
    finally:
        pa.set_memory_pool(before)
