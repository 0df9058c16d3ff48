"""Bounded load on loopback: the emulator under 50 concurrent clients, the dashboard under 10
concurrent sessions. Both stop by themselves (5 s each; 30 s with LOAD_FULL=1, as `make load`
runs them), each client sending at least once. They assert no errors and that every client was
served; latency figures are reported, never asserted, and written to test-artifacts/load.json.

Dashboard sessions speak Streamlit's own websocket protocol, as a browser tab does: each one
asks for a script run, reads every message until the run finishes, and checks that no element
is an exception or an error message; then it asks again, with another date range.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urlencode

import httpx
import pytest
import websockets
from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.Element_pb2 import Element
from support.headless import one_run
from support.servers import ROOT, auth, running_dashboard

pytestmark = pytest.mark.load

FULL = os.environ.get("LOAD_FULL") == "1"
SECONDS = 30.0 if FULL else 5.0
MAX_REQUESTS = 200_000  # a second bound, whatever the machine's speed
ARTIFACT = ROOT / "test-artifacts" / "load.json"


@dataclass
class Tally:
    """Latencies of successful requests, the clients that had one, and every failure."""

    latencies: list[float] = field(default_factory=list)
    served: set[int] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)

    def success(self, client: int, began: float) -> None:
        self.latencies.append(time.perf_counter() - began)
        self.served.add(client)

    def summary(self, clients: int, seconds: float) -> dict[str, object]:
        ordered = sorted(self.latencies)

        def percentile(p: float) -> float:
            return round(1000 * ordered[min(len(ordered) - 1, int(p * len(ordered)))], 1)

        return {
            "clients": clients,
            "seconds": round(seconds, 1),
            "requests": len(ordered),
            "errors": len(self.failures),
            "per_second": round(len(ordered) / seconds, 1),
            "p50_ms": percentile(0.50),
            "p95_ms": percentile(0.95),
            "p99_ms": percentile(0.99),
            "max_ms": round(1000 * ordered[-1], 1),
        }


def turns(index: int, deadline: float) -> Iterator[int]:
    """A client's turns: the first whatever the time (so every client is served at least once,
    however busy the machine), then one more while the deadline has not passed."""
    turn = index
    while True:
        yield turn
        turn += 1
        if time.perf_counter() >= deadline:
            return


async def run_clients(
    clients: int, one_client: Callable[[int, float, Tally], Awaitable[None]]
) -> tuple[Tally, float]:
    tally = Tally()
    started = time.perf_counter()
    deadline = started + SECONDS
    await asyncio.gather(*(one_client(i, deadline, tally) for i in range(clients)))
    return tally, time.perf_counter() - started


def record(name: str, figures: dict[str, object]) -> None:
    ARTIFACT.parent.mkdir(exist_ok=True)
    existing = json.loads(ARTIFACT.read_text()) if ARTIFACT.exists() else {}
    existing[name] = figures | {"full": FULL}
    ARTIFACT.write_text(json.dumps(existing, indent=2) + "\n")
    print(f"\n{name} load: {figures}")


# -- the emulator ------------------------------------------------------------------------------

REQUESTS = [
    ("GET", "/v2/admin/analytics", {"start_date": "2025-01-01", "end_date": "2025-02-01",
                                    "group_by": "key"}),
    ("GET", "/v2/admin/analytics", {"start_date": "2025-03-01", "end_date": "2025-03-08",
                                    "group_by": "key_and_day"}),
    ("GET", "/v2/admin/analytics", {"start_date": "2024-01-01", "end_date": "2024-12-31"}),
    ("GET", "/v3/languages", {"resource": "translate_document"}),
    ("POST", "/v3/detect/language", None),
]  # fmt: skip


def test_emulator_holds_50_concurrent_clients(emulator_process):
    async def one_client(index: int, deadline: float, tally: Tally) -> None:
        async with httpx.AsyncClient(
            base_url=emulator_process.base_url,
            headers=auth(emulator_process.admin_key),
            timeout=30,
        ) as client:
            for turn in turns(index, deadline):
                if len(tally.latencies) >= MAX_REQUESTS:
                    break
                method, path, params = REQUESTS[turn % len(REQUESTS)]
                body = {"text": ["Guten Morgen, wie geht es?"]} if method == "POST" else None
                began = time.perf_counter()
                try:
                    response = await client.request(method, path, params=params, json=body)
                except httpx.HTTPError as exc:
                    tally.failures.append(f"{path}: {type(exc).__name__} {exc}")
                    continue
                if response.status_code != 200:
                    tally.failures.append(f"{path}: {response.status_code} {response.text[:200]}")
                    continue
                tally.success(index, began)

    tally, seconds = asyncio.run(run_clients(50, one_client))
    record("emulator", tally.summary(50, seconds))
    assert tally.failures == []
    assert tally.served == set(range(50))


# -- the dashboard -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory) -> Iterator[str]:
    """The dashboard in demo mode on a small organization."""
    env = {
        "SERVICE_DEMO_KEYS": "8",
        "SERVICE_DEMO_DAYS": "120",
        "SERVICE_HISTORY_PATH": str(tmp_path_factory.mktemp("history")),
    }
    with running_dashboard(env) as base:
        yield base


PERIODS = ["Last 30 days", "Last 7 days", "Last 90 days", "Month to date"]


def problems(elements: list[Element]) -> list[str]:
    """Exceptions and error messages among the elements of a run."""
    found = []
    for element in elements:
        if element.WhichOneof("type") == "exception":
            found.append(f"exception: {element.exception.message}")
        if element.WhichOneof("type") == "alert" and element.alert.format == Alert.ERROR:
            found.append(f"error: {element.alert.body}")
    return found


def test_dashboard_serves_10_concurrent_sessions(dashboard):
    stream = dashboard.replace("http://", "ws://") + "/_stcore/stream"

    async def one_session(index: int, deadline: float, tally: Tally) -> None:
        async with websockets.connect(stream, max_size=None) as session:
            for turn in turns(index, deadline):
                query = urlencode({"period": PERIODS[turn % len(PERIODS)]})
                began = time.perf_counter()
                shown = problems(await one_run(session, query))
                if shown:
                    tally.failures.extend(shown)
                else:
                    tally.success(index, began)

    async def warm_up() -> list[str]:
        # The first run builds the demo organization; the figures are for the runs after it.
        async with websockets.connect(stream, max_size=None) as session:
            return problems(await one_run(session, ""))

    assert asyncio.run(warm_up()) == []
    tally, seconds = asyncio.run(run_clients(10, one_session))
    # Plain HTTP the browser also needs: the page, the health probe, the host configuration.
    for path in ("/", "/_stcore/health", "/_stcore/host-config"):
        assert httpx.get(dashboard + path, timeout=10).status_code == 200
    record("dashboard", tally.summary(10, seconds) | {"unit": "one full script run"})
    assert tally.failures == []
    assert tally.served == set(range(10))
