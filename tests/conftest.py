"""Shared fixtures: the emulator in-process (ASGI, no port) and as a real loopback process, and
throw-away PostgreSQL servers (`support.postgres`)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
import stamina
from fastapi import FastAPI
from hypothesis import settings
from support import clock  # noqa: F401 - pins the run's clock before anything reads it
from support.faultserver import FaultServer
from support.headless import DEMO, TODAY, demo_config
from support.postgres import Cluster, PostgresMissing, claim_shared, shared_cluster, stop_shared
from support.servers import (
    FIXED_TODAY,
    ROOT,
    EmulatorProcess,
    auth,
    emulator_of,
    emulator_server,
    file_app,
    forget_demo,
    small_config,
)

from analytics.storage.state_store import Store, embedded_store, postgresql_store
from analytics.usage import calendar
from bench.processes import stop_process, wait_until_healthy
from emulator import create_app

# Property tests draw the same examples on every run, so CI failures reproduce anywhere, and
# carry no per-example deadline: how long an example takes on a busy machine is no verdict.
settings.register_profile("repeatable", derandomize=True, deadline=None)
settings.load_profile("repeatable")

# Tests that read an organization generated relative to the run's clock are marked `demo`, so
# that `make test-clocks` runs them on a day drawn at random: those using these fixtures (the
# demo organization of the headless dashboard and its ledger, the emulator's default one)...
DEMO_FIXTURES = frozenset({"demo_env", "demo_ledger", "emulator_process"})
# ...and every test of these modules, which read the demo organization through `--demo`
# commands, `demo_app` or dashboards started on it.
DEMO_MODULES = frozenset(
    {
        "test_anomalies_cli",
        "test_browser",
        "test_budgets_cli",
        "test_cli",
        "test_cli_errors",
        "test_install",
        "test_demo_state",
        "test_load",
        "test_local_state",
        "test_report",
        "test_signin",
        "test_team_walk",
    }
)


# Markers of tests that take many seconds each: processes, browsers and large data sets. Such a
# test is marked `long` too: its file runs first, and `make test-clocks` leaves it out of its
# pinned-clock run.
LONG_RUNNING = frozenset({"smoke", "browser", "oidc", "slow", "load"})


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the cores. The browser, server and command tests spend
    much of their time waiting on processes of their own (chromium, `streamlit run`, a
    command), during which a third worker on two cores keeps the processor busy."""
    return (os.cpu_count() or 1) + 1


# The folder through which the run's processes share one PostgreSQL cluster, kept by the
# process that owns the run (see `support.postgres`).
SHARED_POSTGRES = pytest.StashKey[Path | None]()


def pytest_configure(config: pytest.Config) -> None:
    """Register the `demo` and `long` markers; in the process that owns the run (the xdist
    controller, or the only process: not a worker, which has `workerinput`), name the folder
    the run's one PostgreSQL cluster will be shared through, before the workers start and
    inherit it. The cluster itself is started by the first test that needs it, so a run
    without one pays nothing."""
    config.addinivalue_line(
        "markers", "demo: reads an organization generated relative to the run's clock"
    )
    config.addinivalue_line("markers", "long: takes many seconds: processes, browsers, data")
    if not hasattr(config, "workerinput"):
        config.stash[SHARED_POSTGRES] = claim_shared()


def pytest_unconfigure(config: pytest.Config) -> None:
    """In the process that owns the run, once every worker is done: stop the shared cluster
    and remove its folder."""
    shared = config.stash.get(SHARED_POSTGRES, None)
    if shared is not None:
        stop_shared(shared)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that read an organization generated relative to the clock `demo` and the
    long-running ones `long`, and put the files holding a long-running test first.

    `--dist loadfile` (with `--no-loadscope-reorder`, see the Makefile) hands files to the
    workers in this order: the long files start at once and the short ones fill in around
    them, instead of a long file starting last and the run waiting on it alone.
    """
    long_files = set()
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if DEMO_FIXTURES.intersection(fixtures) or item.module.__name__ in DEMO_MODULES:
            item.add_marker(pytest.mark.demo)
        if LONG_RUNNING.intersection(mark.name for mark in item.iter_markers()):
            item.add_marker(pytest.mark.long)
            long_files.add(item.path)
    items.sort(key=lambda item: item.path not in long_files)


@pytest.fixture(scope="module")
def served_org(request, tmp_path_factory) -> Iterator[str]:
    """The address of an emulator serving the test module's organization file (its ORG, on
    FIXED_TODAY) over loopback, for commands run as a shell runs them."""
    app = file_app(tmp_path_factory.mktemp("org"), request.module.ORG, today=FIXED_TODAY)
    with FaultServer(app) as server:
        yield server.base_url
    app.state.emulator.store.close()


@pytest.fixture(scope="module", params=["exclusive", "inclusive"])
def paged_app(request) -> Iterator[FastAPI]:
    """An emulator of the test module's PAGED settings (keys, days, page size), so that its
    reports take many pages over several windows, reading a date-only end_date either way."""
    config = small_config(**request.module.PAGED, end_date_reading=request.param)
    with emulator_of(config) as app:
        yield app


@pytest.fixture
def emulator_app() -> Iterator[FastAPI]:
    """A fresh in-process emulator app (8 keys × 60 days ending 2025-05-31)."""
    with emulator_of(small_config()) as app:
        yield app


@pytest.fixture
async def emulator_client(emulator_app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """httpx client over ASGITransport, authorized with the admin key."""
    transport = httpx.ASGITransport(app=emulator_app)
    async with httpx.AsyncClient(
        transport=transport,
        base_url="http://emulator.test",
        headers=auth(emulator_app.state.emulator.admin_key),
    ) as client:
        yield client


@pytest.fixture(autouse=True)
def fresh_environment(monkeypatch, tmp_path) -> None:
    """Every test runs as a fresh shell would: no SERVICE_ setting from the developer's
    environment (a key, an address, demo settings, where the settings are), and a history
    folder of its own."""
    for name in list(os.environ):
        if name.startswith("SERVICE_") or name == "SETTINGS_SOURCE":
            monkeypatch.delenv(name)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path / "history"))


@pytest.fixture
def instant_retries() -> Iterator[None]:
    """Retries without sleeping; each client keeps its own attempt limit."""
    with stamina.set_testing(True, attempts=1000, cap=True):
        yield


@pytest.fixture
def no_retries() -> Iterator[None]:
    """Every request is tried once: a failure shows at once."""
    with stamina.set_testing(True, attempts=1):
        yield


@pytest.fixture
def demo_env(monkeypatch, tmp_path) -> None:
    """The headless dashboard on the small demo organization, on the pinned day TODAY, with no
    service configured and a private history folder."""
    monkeypatch.setattr(calendar, "utc_today", lambda: TODAY)
    for name, value in DEMO.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path / "history"))


@pytest.fixture
def changed_demo(demo_env) -> Iterator[None]:
    """The headless dashboard on a demo organization of this test's own, for a test that
    changes keys: `demo_env` gives it a history folder (where the demo's store and audit log
    live) of its own; the caches of earlier tests are dropped before and after."""
    forget_demo()
    yield
    forget_demo()


@pytest.fixture(scope="module")
def demo_ledger() -> Iterator:
    """The emulator of the headless dashboard's demo organization (see `demo_env`), built again
    from its settings: its ledger is what the pages must show."""
    app = create_app(demo_config(today=TODAY))
    yield app.state.emulator
    app.state.emulator.store.close()


@pytest.fixture(scope="session")
def emulator_process() -> Iterator[EmulatorProcess]:
    """`python -m emulator --port 0` on loopback for the whole session (default organization)."""
    today = calendar.utc_today()
    command = [sys.executable, "-m", "emulator", "--host", "127.0.0.1", "--port", "0"]
    with tempfile.TemporaryFile(mode="w+") as stderr:
        process = subprocess.Popen(
            [*command, "--today", today.isoformat()],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
        try:
            assert process.stdout is not None
            first, second = process.stdout.readline(), process.stdout.readline()
            if not first.startswith("Emulator listening on http://"):
                stderr.seek(0)
                pytest.fail(f"emulator did not start: {first!r} {stderr.read()[-2000:]}")
            base_url = first.split()[-1]
            admin_key = second.removeprefix("Admin key: ").strip()
            if not wait_until_healthy(f"{base_url}/healthz", process):
                pytest.fail(f"emulator at {base_url} never became healthy")
            yield EmulatorProcess(base_url, admin_key, today, process)
        finally:
            stop_process(process)


@pytest.fixture(scope="session")
def official_client_emulator() -> Iterator[EmulatorProcess]:
    """An emulator process taking the official client libraries' `DeepL-Auth-Key` scheme."""
    with emulator_server(
        "--auth-scheme", "DeepL-Auth-Key", "--keys", "3", "--days", "30"
    ) as server:
        yield server


@pytest.fixture(scope="session")
def postgres_cluster() -> Cluster:
    """The run's shared PostgreSQL cluster (started by the first test of the run that needs
    it, in any worker). Never stop it: other workers' tests are using it; see `own_postgres`."""
    try:
        return shared_cluster()
    except PostgresMissing as exc:
        from support.browsers import unavailable

        unavailable(str(exc))


@pytest.fixture
def postgres_url(postgres_cluster: Cluster) -> Iterator[str]:
    """A fresh empty database of this test's own on the shared cluster, as the store takes it
    (``postgresql://role:password@127.0.0.1:port/db``, the role neither superuser nor able to
    make databases); dropped after the test."""
    name = postgres_cluster.create_database()
    yield postgres_cluster.url(name)
    postgres_cluster.drop_database(name)


@pytest.fixture
def own_postgres() -> Iterator[Cluster]:
    """A PostgreSQL cluster of this test's own, which it may stop and start again
    (`Cluster.stop_server`, `start_server`) without breaking other workers' tests. It costs a
    cluster's start, about half a second (`initdb` and the first start), so only tests that
    stop the server take it; make a database with `create_database`."""
    try:
        cluster = Cluster.start()
    except PostgresMissing as exc:
        from support.browsers import unavailable

        unavailable(str(exc))
    yield cluster
    cluster.remove()


@pytest.fixture(params=["embedded", "postgresql"])
def state_store(request, tmp_path) -> Store:
    """A fresh state store on each backend: the contract every kind of record is tested
    against, once per backend (the embedded file, a database of the shared cluster)."""
    if request.param == "embedded":
        return embedded_store(tmp_path / "state")
    return postgresql_store(request.getfixturevalue("postgres_url"))
