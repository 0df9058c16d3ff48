"""The emulator and the dashboard as the tests start them: in-process (ASGI, no port) or as
real processes on loopback, and the small organizations most tests read."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import streamlit as st
from fastapi import FastAPI

from analytics.connection import demo_app
from analytics.usage import calendar
from bench.processes import free_port, stop_process, wait_until_healthy
from emulator import EmulatorConfig, create_app

ROOT = Path(__file__).resolve().parents[2]


FIXED_TODAY = dt.date(2025, 6, 1)


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


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The real command in a child process, as cron would run it: none of the developer's
    SERVICE_ settings, only `env`'s."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
    return subprocess.run(
        [sys.executable, "-m", "analytics", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def start_cli(*args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    """The real command started in a child process with `env` as its whole environment, as a
    timer starts it beside others: its output read, as text, once it ends."""
    return subprocess.Popen(
        [sys.executable, "-m", "analytics", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


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


def forget_demo() -> None:
    """Drop the dashboard's demo emulators and every cached answer of theirs, so the next run
    reads the demo organization's store afresh."""
    demo_app.cache_clear()
    st.cache_data.clear()
    st.cache_resource.clear()


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
