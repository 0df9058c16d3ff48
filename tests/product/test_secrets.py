"""The API key never leaves the Authorization header.

A recognizable administrator key is used by every command and every dashboard page; the test
fails if the key, or the part of it a masked form hides, shows up in standard output or error,
log records (DEBUG, httpx and httpcore included), exception texts and reprs, exported files,
the history store, the HTML report, any rendered element, the URL's query parameters, or a
request URL.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import traceback
from datetime import date, timedelta
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from pydantic import SecretStr
from streamlit.testing.v1 import AppTest
from support.builders import invoke
from support.faultserver import PASS, FaultServer, Reply, write_org_file
from support.headless import open_page
from support.servers import ROOT

from analytics.service.client import Policy, ServiceClient
from analytics.service.errors import ServiceError
from analytics.service.service_connection import ServiceConnection
from analytics.usage.pipeline import fetch_usage
from bench.processes import free_port
from emulator import EmulatorConfig, create_app

CANARY = "SECRETKEY-abcdef1234567890-canary:adm"
HIDDEN = CANARY[4:-4]  # what the masked form `SECR****:adm` leaves out
MIDDLE = "abcdef1234567890"
DAYS = [date(2025, 5, 1) + timedelta(days=i) for i in range(20)]
START, END = DAYS[0], DAYS[-1]
PAGES = ["overview", "keys", "trends", "languages", "export"]


def assert_no_key(text: str | bytes, where: str) -> None:
    raw = text.encode("utf-8") if isinstance(text, str) else text
    for secret in (CANARY, HIDDEN, MIDDLE):
        assert secret.encode() not in raw, f"the key appears in {where}"


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """The emulator with the canary as administrator key, on a loopback port.

    Afterwards, every request it saw carried the key in its header and nowhere else.
    """
    folder = tmp_path_factory.mktemp("org")
    labels = {CANARY: "Finance nightly", "team-key-000000000001": "Team A"}
    path = write_org_file(folder / "org.toml", labels, DAYS, admin=CANARY)
    app = create_app(EmulatorConfig(org_file=path, today=date(2025, 6, 1)))
    with FaultServer(app, [PASS]) as server:
        yield server
    app.state.emulator.store.close()
    assert server.seen
    for request in server.seen:
        assert request.headers["authorization"] == f"Service-Auth-Key {CANARY}"
        assert_no_key(request.target, f"the URL {request.target}")
        rest = {k: v for k, v in request.headers.items() if k != "authorization"}
        assert_no_key(repr(rest), "another request header")


@pytest.fixture(autouse=True)
def configured(monkeypatch, service, tmp_path):
    for name in list(os.environ):
        if name.startswith("SERVICE_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("SERVICE_AUTH_KEY", CANARY)
    monkeypatch.setenv("SERVICE_BASE_URL", service.base_url)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path / "history"))


def run_cli(*args: str, base_url: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
    env |= {k: v for k, v in os.environ.items() if k.startswith("SERVICE_")}
    if base_url:
        env["SERVICE_BASE_URL"] = base_url
    child = subprocess.run(
        [sys.executable, "-m", "analytics", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert_no_key(child.stdout, f"the stdout of {args[0]}")
    assert_no_key(child.stderr, f"the stderr of {args[0]}")
    return child


def file_text(path: Path) -> str:
    """Everything a reader of the file sees, whatever its format."""
    if path.suffix == ".xlsx":
        book = openpyxl.load_workbook(path)
        return "\n".join(
            str(cell.value) for sheet in book for row in sheet.iter_rows() for cell in row
        )
    if path.suffix == ".parquet":
        return pd.read_parquet(path).to_csv()
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "parquet"])
def test_export_in_every_format(fmt, tmp_path):
    out = tmp_path / f"usage.{fmt}"
    child = run_cli("export", "--start", str(START), "--end", str(END), "-o", str(out), "--debug")
    assert child.returncode == 0, child.stderr
    assert "DEBUG" in child.stderr  # --debug logs every request, and still no key
    text = file_text(out)
    assert "SECR****:adm" in text  # the key's usage is there, under its masked form
    assert_no_key(out.read_bytes(), "the exported file")
    assert_no_key(text, "the exported cells")
    # The history store the export filled: named by digests, holding masked keys only.
    stored = [path for path in (tmp_path / "history").rglob("*") if path.is_file()]
    assert stored
    for path in stored:
        assert_no_key(str(path), "a history file name")
        assert_no_key(path.read_bytes(), "a history file")


def test_languages_detect_and_report(tmp_path):
    for args in (
        ("languages", "--resource", "glossary", "--debug"),
        ("languages", "--resource", "translate_text", "--format", "csv"),
        ("detect", "Guten Morgen, wie geht es Ihnen heute?", "Bonjour tout le monde", "--debug"),
    ):
        child = run_cli(*args)
        assert child.returncode == 0, child.stderr
        assert child.stdout.strip()
    report = tmp_path / "report.html"
    child = run_cli("report", "--start", str(START), "--end", str(END), "-o", str(report))
    assert child.returncode == 0, child.stderr
    assert "SECR****:adm" in report.read_text(encoding="utf-8")
    assert_no_key(report.read_bytes(), "the HTML report")


@pytest.mark.parametrize(
    "script", [[Reply(status=500, body=b"boom")], [Reply(status=403, body=b"{}")]]
)
def test_failures_with_tracebacks(script, service, tmp_path):
    """--debug shows the whole traceback (with chained causes): still no key."""
    with FaultServer(None, script) as failing:
        child = run_cli(
            "export", "--period", "last-7-days", "-o", str(tmp_path / "u.csv"), "--debug",
            base_url=failing.base_url,
        )  # fmt: skip
        assert failing.seen[0].headers["authorization"].endswith(CANARY)
    assert child.returncode != 0
    assert "Traceback" in child.stderr


TWO_ATTEMPTS = Policy(max_attempts=2)


def test_logs_exceptions_and_reprs_in_process(service, caplog):
    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpcore", "stamina", "analytics", "asyncio"):
        caplog.set_level(logging.DEBUG, logger=name)  # restored after the test
    connection = ServiceConnection()
    failures: list[BaseException] = []
    with ServiceClient.from_connection(connection) as client:
        usage = fetch_usage(client, START, END)
        assert len(usage.frame) == 2 * len(DAYS)
        client.languages("translate_document")
        client.detect(["Das ist ein ganz normaler deutscher Satz."])
        for call in (
            lambda: client.languages("nothing-like-a-resource"),
            lambda: client.usage_report(START, START + timedelta(days=400)),
        ):
            with pytest.raises(ServiceError) as caught:
                call()
            failures.append(caught.value)
        texts = [repr(connection), str(connection), repr(client), repr(client.async_client)]
    with (
        FaultServer(None, [Reply(status=200, body=b"<html>")]) as broken,
        ServiceClient(broken.base_url, SecretStr(CANARY), policy=TWO_ATTEMPTS) as client,
        pytest.raises(ServiceError) as caught,
    ):
        fetch_usage(client, START, END)
    failures.append(caught.value)
    unreachable = f"http://127.0.0.1:{free_port()}"
    with ServiceClient(unreachable, SecretStr(CANARY), policy=TWO_ATTEMPTS) as client:
        with pytest.raises(ServiceError) as caught:
            client.languages("voice")
        failures.append(caught.value)
    for failure in failures:
        texts += [str(failure), repr(failure), "".join(traceback.format_exception(failure))]
    assert caplog.records, "nothing was logged: the check would prove nothing"
    assert any(r.name.startswith("httpcore") for r in caplog.records)
    texts += [caplog.text]
    texts += [repr(record.__dict__) for record in caplog.records]
    for text in texts:
        assert_no_key(text, f"in-process text: {text[:80]!r}")


def rendered(at: AppTest) -> bytes:
    """Every element of the page as the browser would receive it (protobuf bytes)."""
    out = []
    stack = [at._tree]
    while stack:
        node = stack.pop()
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(proto.SerializeToString())
        children = getattr(node, "children", {})
        stack.extend(children.values())
    return b"\n".join(out)


@pytest.mark.parametrize("page", PAGES)
def test_every_dashboard_page(page, caplog):
    caplog.set_level(logging.DEBUG)
    at = open_page(page, period="Custom range", range=[START.isoformat(), END.isoformat()])
    if page == "languages":
        at.text_area[0].set_value("Guten Morgen\nBonjour tout le monde")
        at.button[0].click().run()
    assert not at.exception
    assert not at.error
    content = rendered(at)
    if page == "keys":
        assert b"SECR****:adm" in content  # the key is shown, masked
    assert_no_key(content, f"the {page} page")
    assert_no_key(repr(dict(at.query_params)), "the URL query parameters")
    assert_no_key(repr(at.session_state.to_dict()), "the session state")
    assert_no_key(caplog.text, "the dashboard's logs")


def test_a_rotations_new_secret_is_printed_once_and_kept_nowhere(service, tmp_path, caplog):
    """The replacement's secret is stdout's one line: never in the debug log, the state store
    (its rotation record, the audit log), the history store, a request's address, `keys
    rotation list` or an export of the usage."""
    caplog.set_level(logging.DEBUG)
    made = invoke("keys", "rotate", "Team A", "--yes", "--debug")
    assert made.exit_code == 0, made.stderr
    secret = made.stdout.strip()
    assert made.stdout == f"{secret}\n" and len(secret) > 8
    listed = invoke("keys", "rotation", "list", "--format", "json")
    assert listed.exit_code == 0 and "Team A (" in listed.stdout
    audit = invoke("keys", "audit", "--format", "json")
    out = tmp_path / "usage.csv"
    exported = invoke("export", "--start", str(START), "--end", str(END), "-o", str(out))
    assert exported.exit_code == 0, exported.stderr
    texts = [made.stderr, listed.stdout + listed.stderr, audit.stdout, caplog.text, file_text(out)]
    texts += [seen.target for seen in service.seen]
    for text in texts:
        assert secret not in text, text[:200]
    for path in (tmp_path / "history").rglob("*"):
        assert not path.is_file() or secret.encode() not in path.read_bytes(), path
