"""Servers run as child processes on loopback, shared by the benchmarks and the test suite:
a free port, a wait for the health address, a stop that cannot hang."""

from __future__ import annotations

import socket
import subprocess
import time
from typing import Any

import httpx


def free_port() -> int:
    """A loopback port nothing listens on right now (for servers that cannot take port 0)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_healthy(url: str, process: subprocess.Popen[Any], seconds: float = 120) -> bool:
    """Poll `url` until it answers 200; False when the process exits or time runs out.

    The bound is generous: a loaded two-core machine can take long to start a server.
    """
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return True
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    return False


def stop_process(process: subprocess.Popen[Any]) -> None:
    """Terminate, then kill if it does not go within ten seconds."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
