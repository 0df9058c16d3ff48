"""The fault matrix: every way the service or the network can fail, through the real export
command and the dashboard.

Each fault either heals within the bounded retries (the export then holds exactly the data a
clean run gives) or ends with the documented exit code and one stderr line quoting the status
and trace id; an earlier export is never touched. The dashboard shows an error, never a
traceback. What each case observed is written to test-artifacts/fault-matrix.json (the table
in docs/reliability.md is made from it).
"""

from __future__ import annotations

import email.utils
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import orjson
import pandas as pd
import pytest
import stamina
from streamlit.testing.v1 import AppTest
from support.faultserver import PASS, FaultServer, Reply
from support.headless import open_page
from support.servers import ROOT, small_config
from typer.testing import CliRunner

from analytics.cli import app as cli_app
from analytics.service.client import AsyncServiceClient, Policy
from bench.processes import free_port
from emulator import create_app

START, END = date(2025, 5, 1), date(2025, 5, 10)
UPSTREAM = create_app(small_config())
KEY = UPSTREAM.state.emulator.admin_key
EARLIER = b"usage_date,api_key\r\n2025-01-01,earlier export\r\n"
ARTIFACTS = ROOT / "test-artifacts"
OBSERVED: dict[str, dict[str, object]] = {}


@pytest.fixture(scope="module")
def upstream():
    """The emulator behind every fault server; its admin key is the one the export sends."""
    return UPSTREAM


@pytest.fixture(scope="module")
def clean_export(upstream, tmp_path_factory):
    """The export of START..END when nothing fails: what every healed fault must produce."""
    out = tmp_path_factory.mktemp("clean") / "usage.csv"
    with FaultServer(upstream, [PASS]) as server:
        result = export(server.base_url, out)
    assert result.exit_code == 0, result.stderr
    frame = pd.read_csv(out, keep_default_na=False)
    ledger = upstream.state.emulator.ledger(START, END)
    assert len(frame) == len(ledger) > 0
    assert frame["text_translation_characters"].sum() == sum(
        row.text_translation_characters for row in ledger
    )
    return out.read_bytes()


@pytest.fixture(autouse=True)
def quick_client(monkeypatch, tmp_path):
    """Real retries with short waits: each client's own policy (the CLI's or the dashboard's:
    attempts, retry budget), its timeout and waits scaled down for a test run."""
    build = AsyncServiceClient.__init__

    def quick(self, *args, policy: Policy = Policy(), **kwargs) -> None:  # noqa: B008
        scaled = replace(policy, timeout=1.0, backoff=(0.02, 0.1), max_retry_wait=2.0)
        build(self, *args, policy=scaled, **kwargs)

    monkeypatch.setattr(AsyncServiceClient, "__init__", quick)
    for name in list(os.environ):
        if name.startswith("SERVICE_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("SERVICE_AUTH_KEY", KEY)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path / "history"))


@pytest.fixture
def retry_waits():
    """Every wait the client chose between attempts, as stamina reports it."""
    waits: list[float] = []
    stamina.instrumentation.set_on_retry_hooks([lambda details: waits.append(details.wait_for)])
    yield waits
    stamina.instrumentation.set_on_retry_hooks(None)


def export(base_url: str, out: Path):
    """`python -m analytics export` in-process, as a nightly job would call it."""
    return CliRunner().invoke(
        cli_app,
        ["export", "--start", str(START), "--end", str(END), "-o", str(out), "--no-history"],
        env={"SERVICE_BASE_URL": base_url, "SERVICE_AUTH_KEY": KEY},
        catch_exceptions=False,
    )


def reply_on(status: int, **options: object) -> Reply:
    return Reply(
        status=status,
        body=orjson.dumps({"message": f"scripted {status}", "code": "scripted"}),
        **options,  # type: ignore[arg-type]
    )


def http_date(seconds_from_now: int) -> str:
    when = datetime.now(UTC) + timedelta(seconds=seconds_from_now)
    return email.utils.format_datetime(when, usegmt=True)


def drop_api_key(body: bytes) -> bytes:
    """A row that names no key: the one field of a row that nothing can stand in for."""
    data = orjson.loads(body)
    del data["usage_report"]["key_and_day_usages"][0]["api_key"]
    return orjson.dumps(data)


def characters_as_text(body: bytes) -> bytes:
    data = orjson.loads(body)
    for item in data["usage_report"]["key_and_day_usages"]:
        item["usage"]["total_characters"] = str(item["usage"]["total_characters"])
    return orjson.dumps(data)


def with_unknown_fields(body: bytes) -> bytes:
    data = orjson.loads(body)
    data["report_version"] = 7
    if "usage_report" not in data:  # the plan's answer, for the Overview's plan panel
        data["currency"] = {"code": "EUR"}
        return orjson.dumps(data)
    report = data["usage_report"]
    report["currency"] = {"code": "EUR", "nested": [1, 2, {"x": None}]}
    report["total_usage"]["image_translation_pages"] = 3
    for item in report["key_and_day_usages"]:
        item["api_key_created"] = "2020-01-01T00:00:00Z"
        item["usage"]["glossary_lookups"] = 12.5
    return orjson.dumps(data)


HTML_PAGE = b"<!doctype html><html><body><h1>Service maintenance</h1>Back soon.</body></html>"


@dataclass(frozen=True)
class Case:
    """One fault: the script the server follows and what the export must end with."""

    name: str
    script: Callable[[], list[Reply]]  # built when the case runs (HTTP-dates are relative)
    exit_code: int = 0
    requests: int | None = None
    quotes: tuple[str, ...] = ()
    waits: tuple[float, float] | None = None  # bounds of the single wait before the retry
    transport: bool = False  # failed below HTTP: no status, no trace id to quote


def unusable_200(name: str, reply: Reply, *quotes: str) -> Case:
    """A 200 whose body is no usable answer: the export ends with exit code 4 after that one
    request (a retry would only get the same body), quoting the 200 and `quotes`."""
    return Case(name, lambda: [reply], exit_code=4, requests=1, quotes=("200", *quotes))


CASES = [
    Case(
        "429 with Retry-After in seconds",
        lambda: [reply_on(429, headers={"Retry-After": "1"}), PASS],
        requests=2,
        waits=(1.0, 1.0),
    ),
    Case(
        "429 with Retry-After as HTTP-date",
        # 2-3 s ahead (whole seconds), capped at 2 s: a wait of at least 0.5 s shows the date
        # was understood (otherwise the wait would be the 0.02-0.1 s backoff).
        lambda: [reply_on(429, headers={"Retry-After": http_date(3)}), PASS],
        requests=2,
        waits=(0.5, 2.0),
    ),
    Case("429 without Retry-After", lambda: [reply_on(429), PASS], requests=2, waits=(0.0, 0.2)),
    Case(
        "429 on every attempt",
        lambda: [reply_on(429)],
        exit_code=4,
        requests=5,
        quotes=("429", "Too Many Requests"),
    ),
    *(
        Case(
            f"{status} twice, then healthy",
            lambda status=status: [reply_on(status), reply_on(status), PASS],
            requests=3,
        )
        for status in (500, 502, 503, 504)
    ),
    *(
        Case(
            f"{status} on every attempt",
            lambda status=status: [reply_on(status)],
            exit_code=4,
            requests=5,
            quotes=(str(status),),
        )
        for status in (500, 502, 503, 504)
    ),
    Case(
        "connection refused",
        list,
        exit_code=4,
        quotes=("ConnectError", "127.0.0.1"),
        transport=True,
    ),
    Case(
        "connection reset mid-body, then healthy", lambda: [Reply(action="reset"), PASS], requests=2
    ),
    Case(
        "connection reset mid-body on every attempt",
        lambda: [Reply(action="reset")],
        exit_code=4,
        requests=5,
        quotes=("Connection failed", "ReadError"),
        transport=True,
    ),
    Case(
        "closed without an answer, then healthy", lambda: [Reply(action="close"), PASS], requests=2
    ),
    Case("read timeout, then healthy", lambda: [Reply(action="hang"), PASS], requests=2),
    Case(
        "read timeout on every attempt",
        lambda: [Reply(action="hang")],
        exit_code=4,
        requests=5,
        quotes=("ReadTimeout",),
        transport=True,
    ),
    unusable_200(
        "truncated JSON",
        Reply(transform=lambda body: body[: len(body) // 2]),
        "Invalid response",
    ),
    unusable_200(
        "non-JSON body", Reply(status=200, body=b"upstream ok", content_type="text/plain")
    ),
    unusable_200("JSON row without its api_key", Reply(transform=drop_api_key), "api_key"),
    unusable_200(
        "JSON with a wrongly typed field", Reply(transform=characters_as_text), "total_characters"
    ),
    Case(
        "JSON with extra unknown fields", lambda: [Reply(transform=with_unknown_fields)], requests=1
    ),
    unusable_200(
        "HTML error page with status 200",
        Reply(status=200, body=HTML_PAGE, content_type="text/html"),
    ),
    Case("403", lambda: [reply_on(403)], exit_code=3, requests=1, quotes=("403", "Forbidden")),
    Case("404", lambda: [reply_on(404)], exit_code=4, requests=1, quotes=("404", "Not Found")),
]


def served(case: Case, upstream) -> FaultServer | None:
    return None if case.name == "connection refused" else FaultServer(upstream, case.script())


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_export_through_a_fault(case, upstream, clean_export, retry_waits, tmp_path):
    out = tmp_path / "usage.csv"
    out.write_bytes(EARLIER)
    server = served(case, upstream)
    if server is None:
        result = export(f"http://127.0.0.1:{free_port()}", out)
        seen = []
    else:
        with server:
            result = export(server.base_url, out)
        seen = server.seen
    stderr = result.stderr.strip()
    OBSERVED[case.name] = {
        "exit_code": result.exit_code,
        "requests": len(seen) if server else None,
        "retries": len(retry_waits),
        "waits": [round(w, 2) for w in retry_waits],
        "stderr": stderr,
    }

    assert result.exit_code == case.exit_code, stderr
    if case.requests is not None:
        assert len(seen) == case.requests
    assert os.listdir(tmp_path) == ["usage.csv"]  # no temporary file left behind
    if case.exit_code == 0:
        assert out.read_bytes() == clean_export
        assert stderr == ""
    else:
        assert out.read_bytes() == EARLIER
        assert stderr.startswith("error: ") and "\n" not in stderr
        assert "Traceback" not in stderr
        for quoted in case.quotes:
            assert quoted in stderr
        if not case.transport:
            assert f"(trace id {seen[-1].trace_id})" in stderr
        assert KEY not in stderr + result.stdout
    if case.waits is not None:
        low, high = case.waits
        assert len(retry_waits) == 1 and low <= retry_waits[0] <= high


@pytest.mark.parametrize("status", [503, 403])
def test_export_as_a_child_process(status, upstream, clean_export, tmp_path):
    """The real command as cron runs it: the same outcome outside the test process."""
    out = tmp_path / "usage.csv"
    out.write_bytes(EARLIER)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
    with FaultServer(upstream, [reply_on(status), PASS]) as server:
        env |= {
            "SERVICE_BASE_URL": server.base_url,
            "SERVICE_AUTH_KEY": KEY,
            "SERVICE_HISTORY_PATH": str(tmp_path / "history"),
        }
        args = ["export", "--start", str(START), "--end", str(END), "-o", str(out)]
        child = subprocess.run(
            [sys.executable, "-m", "analytics", *args, "--no-history"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    if status == 503:
        assert child.returncode == 0, child.stderr
        assert out.read_bytes() == clean_export
        assert len(server.seen) == 2
    else:
        assert child.returncode == 3
        assert out.read_bytes() == EARLIER
        assert child.stderr.count("\n") == 1
        assert f"403 Forbidden: scripted 403 [scripted] (trace id {server.seen[0].trace_id})" in (
            child.stderr
        )


# -- the dashboard -----------------------------------------------------------------------------


def open_overview(monkeypatch, base_url: str) -> AppTest:
    monkeypatch.setenv("SERVICE_BASE_URL", base_url)
    # The range the export matrix uses, where the emulator's organization has usage.
    return open_page("overview", period="Custom range", range=[START.isoformat(), END.isoformat()])


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_dashboard_through_a_fault(case, upstream, monkeypatch):
    # The dashboard's own retry policy (fewer attempts than the CLI), scaled by quick_client.
    server = served(case, upstream)
    if server is None:
        at = open_overview(monkeypatch, f"http://127.0.0.1:{free_port()}")
    else:
        with server:
            at = open_overview(monkeypatch, server.base_url)
    assert not at.exception
    errors = [e.value for e in at.error]
    observed = OBSERVED.setdefault(case.name, {})
    observed["dashboard"] = errors[0] if errors else "data shown"
    observed["dashboard_requests"] = len(server.seen) if server else None
    if case.exit_code == 0:
        assert not errors
        ledger = upstream.state.emulator.ledger(START, END)
        total = sum(row.text_translation_characters for row in ledger)
        tiles = {metric.label: metric.value for metric in at.metric}
        assert tiles["Text translation characters"] == f"{total:,}"
        return
    assert len(errors) == 1
    assert not at.metric
    assert KEY not in errors[0]
    for quoted in case.quotes:
        assert quoted in errors[0]
    if not case.transport:
        assert f"(trace id {server.seen[-1].trace_id})" in errors[0]


def teardown_module() -> None:
    """Record what the cases observed, for the table in docs/reliability.md."""
    if not OBSERVED:
        return
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / "fault-matrix.json"
    known = json.loads(path.read_text()) if path.exists() else {}  # a partial run adds to it
    path.write_text(json.dumps(known | OBSERVED, indent=2) + "\n")
