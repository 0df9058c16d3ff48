"""Child processes, shared by the benchmarks and the test suite: a free loopback port for a
server, a wait for its health address, a stop that cannot hang, and a process's resident
memory."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx


def free_port() -> int:
    """A loopback port nothing listens on right now (for servers that cannot take port 0)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_healthy(url: str, process: subprocess.Popen[Any], seconds: float = 120) -> bool:
    """Poll `url` until it answers 200; False when the process exits or time runs out.

    The bound is generous: a loaded two-core machine can take long to start a server. One
    client asks every time: `httpx.get` makes a client, with its TLS context, per call
    (about 20 ms of processor, a second of it while a server takes five to start).
    """
    deadline = time.monotonic() + seconds
    with httpx.Client(timeout=1) as client:
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if client.get(url).status_code == 200:
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


def resident_kb(pid: int) -> dict[str, int]:
    """The process's resident set now and at its peak (kB), from /proc."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0])
    return fields
