"""Shared fixtures: the emulator in-process (ASGI, no port) and as a real loopback process."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import clock  # noqa: F401 - pins the run's clock before anything reads it
import httpx
import pytest
import stamina
import streamlit as st
from fastapi import FastAPI
from faultserver import FaultServer
from headless import DEMO, DEMO_DAYS, DEMO_KEYS, DEMO_SEED, TODAY
from hypothesis import settings

from analytics.connection import demo_app
from analytics.usage import calendar
from bench.processes import free_port, stop_process, wait_until_healthy
from emulator import EmulatorConfig, create_app

ROOT = Path(__file__).resolve().parent.parent

# Property tests draw the same examples on every run, so CI failures reproduce anywhere, and
# carry no per-example deadline: how long an example takes on a busy machine is no verdict.
settings.register_profile("repeatable", derandomize=True, deadline=None)
settings.load_profile("repeatable")

FIXED_TODAY = dt.date(2025, 6, 1)
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
    }
)
# The 33 detection languages the spec lists.
SPEC_DETECTION_CODES = set(
    [
        "en",
        "de",
        "fr",
        "es",
        "pt",
        "it",
        "nl",
        "pl",
        "ru",
        "zh",
        "ja",
        "bg",
        "cs",
        "da",
        "el",
        "et",
        "fi",
        "hu",
        "lt",
        "lv",
        "ro",
        "sk",
        "sl",
        "sv",
        "tr",
        "id",
        "uk",
        "ko",
        "nb",
        "ar",
        "vi",
        "he",
        "th",
    ]
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "demo: reads an organization generated relative to the run's clock"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that read an organization generated relative to the clock `demo`."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if DEMO_FIXTURES.intersection(fixtures) or item.module.__name__ in DEMO_MODULES:
            item.add_marker(pytest.mark.demo)


def auth(key: str) -> dict[str, str]:
    """The Authorization header the service expects."""
    return {"Authorization": f"Service-Auth-Key {key}"}


def small_config(**overrides: object) -> EmulatorConfig:
    """A small synthetic organization on a fixed day, quick to build in every test."""
    settings: dict[str, object] = {"seed": 7, "keys": 8, "days": 60, "today": FIXED_TODAY}
    settings.update(overrides)
    return EmulatorConfig(**settings)  # type: ignore[arg-type]


def file_app(directory: Path, text: str, **overrides: object) -> FastAPI:
    """An emulator serving the organization file `text` (written to `directory/org.toml`)."""
    path = directory / "org.toml"
    path.write_text(text)
    return create_app(EmulatorConfig(org_file=path, **overrides))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def served_org(request, tmp_path_factory) -> Iterator[str]:
    """The address of an emulator serving the test module's organization file (its ORG, on
    FIXED_TODAY) over loopback, for commands run as a shell runs them."""
    app = file_app(tmp_path_factory.mktemp("org"), request.module.ORG, today=FIXED_TODAY)
    with FaultServer(app) as server:
        yield server.base_url
    app.state.emulator.store.close()


def client_for(app: FastAPI, key: str | None = None) -> httpx.AsyncClient:
    """httpx over ASGITransport, authorized with `key` when given."""
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://emulator.test",
        headers=auth(key) if key else None,
    )


async def all_pages(app: FastAPI, path: str, rows: str, **params: str) -> tuple[list[dict], int]:
    """Every row (`rows` field) of a paged report, following next_page from the first page;
    and the number of pages. Each next_page must be the following page's number."""
    found: list[dict] = []
    pages = 0
    async with client_for(app, app.state.emulator.admin_key) as client:
        while True:
            query = params if not pages else {**params, "page": str(pages + 1)}
            response = await client.get(path, params=query)
            assert response.status_code == 200, response.text
            [report] = response.json().values()
            found += report[rows]
            pages += 1
            if report["next_page"] is None:
                return found, pages
            assert report["next_page"] == pages + 1


@contextmanager
def emulator_of(config: EmulatorConfig) -> Iterator[FastAPI]:
    """An in-process emulator app of `config`, its store closed on leaving the block (a
    module's fixture keeps one for all its tests)."""
    app = create_app(config)
    try:
        yield app
    finally:
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
    monkeypatch.delenv("SERVICE_AUTH_KEY", raising=False)
    monkeypatch.delenv("SERVICE_BASE_URL", raising=False)
    for name, value in DEMO.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path / "history"))


def forget_demo() -> None:
    """Drop the dashboard's demo emulators and every cached answer of theirs, so the next run
    reads the demo organization's store afresh."""
    demo_app.cache_clear()
    st.cache_data.clear()
    st.cache_resource.clear()


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
    app = create_app(EmulatorConfig(seed=DEMO_SEED, keys=DEMO_KEYS, days=DEMO_DAYS, today=TODAY))
    yield app.state.emulator
    app.state.emulator.store.close()


def base_path(options: tuple[str, ...] | list[str]) -> str:
    """The `--server.baseUrlPath` among `streamlit run` options, as a URL path ("" if none)."""
    if "--server.baseUrlPath" not in options:
        return ""
    return "/" + options[list(options).index("--server.baseUrlPath") + 1].strip("/")


@contextmanager
def running_dashboard(
    env: dict[str, str], *options: str, log: Path | None = None, port: int | None = None
) -> Iterator[str]:
    """`streamlit run app.py` on a free loopback port (or `port`), as deployed, with only
    `env`'s SERVICE_* settings; yields its address (with the `--server.baseUrlPath` among
    `options`, if any) and stops it afterwards. The file watcher stays off: it would
    reload the app's modules when a file in the checkout changes, racing the sessions.
    Output goes to `log` when given (for the caller to inspect), else to a temporary file."""
    port = port or free_port()
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    command += ["--server.fileWatcherType", "none", *options]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
    with log.open("w+b") if log else tempfile.TemporaryFile() as output:
        server = subprocess.Popen(command, cwd=ROOT, env=clean | env, stdout=output, stderr=output)
        try:
            base = f"http://127.0.0.1:{port}{base_path(options)}"
            if not wait_until_healthy(f"{base}/_stcore/health", server):
                output.seek(0)
                pytest.fail(f"the dashboard never started: {output.read()[-2000:]!r}")
            yield base
        finally:
            stop_process(server)


@dataclass
class EmulatorProcess:
    base_url: str
    admin_key: str
    today: dt.date  # pinned at start, so a run across UTC midnight sees one history
    process: subprocess.Popen[str]


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


@contextmanager
def emulator_server(*options: str, today: dt.date | None = None) -> Iterator[EmulatorProcess]:
    """`python -m emulator --port 0 ...options` on loopback, stopped on leaving the block.

    The current UTC day is pinned (`today`, else the clock's). `admin_key` is empty for an
    organization file (`--org`), for which the command line prints no key.
    """
    today = today or calendar.utc_today()
    command = [sys.executable, "-m", "emulator", "--host", "127.0.0.1", "--port", "0"]
    command += ["--today", today.isoformat(), *options]
    with tempfile.TemporaryFile(mode="w+") as stderr:
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=stderr, text=True
        )
        try:
            assert process.stdout is not None
            first = process.stdout.readline()
            if not first.startswith("Emulator listening on http://"):
                stderr.seek(0)
                pytest.fail(f"emulator did not start: {first!r} {stderr.read()[-2000:]}")
            base_url = first.split()[-1]
            admin_key = ""
            if "--org" not in options:
                admin_key = process.stdout.readline().removeprefix("Admin key: ").strip()
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


@pytest.fixture
def clean_cli_environment(monkeypatch, tmp_path) -> Iterator[None]:
    """The CLI as a fresh shell runs it: no SERVICE_ setting from the developer's environment,
    history in tmp_path, and retries without waiting."""
    for name in list(os.environ):
        if name.startswith("SERVICE_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path / "history"))
    with stamina.set_testing(True, attempts=1000, cap=True):
        yield
