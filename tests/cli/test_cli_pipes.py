"""A command whose output is piped into a reader that stops early (`… | head`) ends as a
shell expects of a writer to a closed pipe: nothing on stderr (no traceback, no "Exception
ignored", no `error:` line) and the status of a writer SIGPIPE stopped, 128 + 13, whether
Python buffers standard output or not (cron runs it buffered, `python -u` and
PYTHONUNBUFFERED do not)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support.headless import DEMO
from support.servers import ROOT

CLOSED_PIPE = 141  # what bash shows for `yes | head -1`: 128 + SIGPIPE
# The small demo organization (`DEMO`) over a month: fewer days than a key's forecast reads, so
# no forecast runs before the first write (its 120 days' took each command another
# processor-second, statsmodels' import among it, for output the closed pipe refuses anyway).
A_MONTH = {**DEMO, "SERVICE_DEMO_DAYS": "30"}
COMMANDS = [
    ["keys", "list", "--format", "csv"],
    ["keys", "list", "--format", "table"],
    ["keys", "list", "--format", "json"],
    ["plan", "--format", "json"],
    ["export", "--period", "last-7-days", "-o", "-"],
]


def environment(tmp_path, buffered: bool, **settings: str) -> dict[str, str]:
    """A fresh shell's environment: no service settings but `settings`, history in
    tmp_path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "PYTHONUNBUF"))}
    env |= {"SERVICE_HISTORY_PATH": str(tmp_path / "history"), **settings}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_output_into_a_closed_pipe_ends_quietly(tmp_path, args, buffered):
    # A month of the small demo organization (`A_MONTH`): its first byte already meets the
    # closed pipe.
    reader, writer = os.pipe()
    os.close(reader)  # the reader is gone before the first byte: every write meets EPIPE
    done = subprocess.run(
        [sys.executable, "-m", "analytics", *args, "--demo"],
        cwd=ROOT,
        env=environment(tmp_path, buffered, **A_MONTH),
        stdout=writer,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
    )
    os.close(writer)
    assert (done.returncode, done.stderr) == (CLOSED_PIPE, "")


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
def test_a_large_export_into_head_gives_its_first_line_and_no_noise(tmp_path, buffered):
    # The demo organization's whole history of key-days is far more than a pipe holds, so the
    # export is still writing when head has its line and leaves.
    pipeline = (
        f"{sys.executable} -m analytics export --period all-history --demo -o - | head -1;"
        " echo ${PIPESTATUS[0]} >&2"
    )
    done = subprocess.run(
        ["bash", "-c", pipeline],
        cwd=ROOT,
        env=environment(tmp_path, buffered),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.stdout.startswith("usage_date,api_key,api_key_label,total_characters,")
    assert done.stdout.count("\n") == 1
    assert done.stderr == f"{CLOSED_PIPE}\n"
