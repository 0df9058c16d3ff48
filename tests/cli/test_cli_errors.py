"""Errors classified at once: a bad setting, value, day or path is exit 2 (or, for a write
that fails, exit 1) with one `error: …` line naming what the user gave, before any request
where it can be known before; a 400 from the service is the user's argument too. Output and
warnings a user needs: `-o -` is standard output, a range without usage says so, and a
terminal hears about each retry while cron hears nothing."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from datetime import timedelta

import pytest
from support.builders import invoke
from support.faultserver import PASS, FaultServer, Reply
from support.servers import ROOT, small_config

from analytics.usage.calendar import utc_today
from emulator import create_app

pytestmark = pytest.mark.usefixtures("instant_retries")
SMALL_DEMO = {"SERVICE_DEMO_KEYS": "4", "SERVICE_DEMO_DAYS": "60"}
RESOURCES = (
    "'translate_text', 'translate_document', 'glossary', 'voice', 'write', 'style_rules', "
    "'translation_memory'"
)


@pytest.mark.parametrize(
    ("environment", "line"),
    [
        (
            {"SERVICE_BASE_URL": "api.deepl.com"},
            "SERVICE_BASE_URL: must start with https:// or http:// and name a host, "
            "got 'api.deepl.com'",
        ),
        (
            {"SERVICE_BASE_URL": "https://", "SERVICE_AUTH_SCHEME": "DeepL-Auth-Key"},
            "SERVICE_BASE_URL: must start with https:// or http:// and name a host, got 'https://'",
        ),
        (
            {"SERVICE_BASE_URL": "https://api.example", "SERVICE_AUTH_SCHEME": "DeepL Auth"},
            "SERVICE_AUTH_SCHEME: must be one word such as DeepL-Auth-Key, got 'DeepL Auth'",
        ),
    ],
)
def test_a_setting_that_cannot_work_exits_2_naming_it(environment, line):
    result = invoke("plan", env={"SERVICE_AUTH_KEY": "secret-key-0001", **environment})
    assert result.exit_code == 2
    assert result.stderr == f"error: invalid setting: {line}\n"
    assert "secret-key-0001" not in result.stderr


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["languages", "--resource", "text", "--demo"],
            f"Invalid value for '--resource': 'text' is not one of {RESOURCES}.",
        ),
        (
            ["check-anomalies", "--days", "0", "--demo"],
            "Invalid value for '--days': Input should be greater than or equal to 1",
        ),
        (
            ["export", "--start", "2025-2-3", "--end", "2025-03-01", "-o", "x.csv", "--demo"],
            "--start must be a day as YYYY-MM-DD, not '2025-2-3'",
        ),
        (
            ["export", "--period", "last-7-days", "-o", "-", "--format", "xlsx", "--demo"],
            "--output - (standard output) takes CSV only, not xlsx",
        ),
    ],
)
def test_a_usage_error_is_one_line_and_exit_2(args, line):
    result = invoke(*args, env=SMALL_DEMO)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"error: {line}\n")


def test_help_still_prints_the_help():
    result = invoke("export", "--help")
    assert result.exit_code == 0
    assert "Usage:" in result.stdout and "--output" in result.stdout


def test_help_ends_with_every_exit_code():
    result = invoke("--help")
    assert " ".join(result.stdout.split()).endswith(
        "Exit codes: 0 done; 1 unexpected; 2 bad arguments or configuration; 3 key refused "
        "(403); 4 service unreachable; 5 state store unavailable; 10 a budget's warning "
        "(check-budgets); 10 limit changes "
        "pending (guardrails plan); 10 old key still in use (keys rotation finish); 11 a budget "
        "exceeded (check-budgets); 12 new anomalies "
        "(check-anomalies); 13 a message not "
        "delivered (--notify, report --mail-to); 141 standard output closed (… | head)."
    )


@pytest.mark.parametrize("args", [["--help"], ["export", "--help"], ["check-anomalies", "--help"]])
def test_flags_show_no_value_placeholder_in_help(args):
    help_text = invoke(*args).stdout
    assert "--help" in help_text and "<bool>" not in help_text
    assert "<path>" in help_text or args == ["--help"]  # options that take a value keep theirs


def test_a_write_that_fails_names_the_file_given(tmp_path):
    result = invoke("export", "--period", "last-7-days", "-o", "/proc/x.csv", "--demo")
    assert result.exit_code == 1
    assert result.stderr == "error: /proc/x.csv: No such file or directory\n"


def test_dash_is_standard_output_for_csv(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["export", "--period", "last-7-days", "--group-by", "key", "--demo"]
    written = invoke(*args, "-o", "keys.csv", env=SMALL_DEMO)
    shown = invoke(*args, "-o", "-", env=SMALL_DEMO)
    assert written.exit_code == shown.exit_code == 0
    assert shown.stdout_bytes == (tmp_path / "keys.csv").read_bytes()
    assert shown.stdout.startswith("api_key,api_key_label,total_characters,")
    # Nothing beside the file but the history folder the environment names (the demo's store).
    assert sorted(path.name for path in tmp_path.iterdir()) == ["history", "keys.csv"]


def test_a_range_without_usage_writes_the_header_and_says_so(tmp_path):
    out = tmp_path / "early.csv"
    args = ["--start", "2019-01-01", "--end", "2019-01-31", "-o", str(out), "--demo"]
    result = invoke("export", *args, env=SMALL_DEMO)
    assert result.exit_code == 0
    assert result.stderr == (
        "WARNING: no usage from 2019-01-01 to 2019-01-31: the file holds the header only\n"
    )
    assert out.read_bytes().count(b"\r\n") == 1  # the header, nothing else


def plan_command(base_url: str, key: str, terminal: bool) -> tuple[int, str]:
    """`plan` against `base_url`, its stderr on a terminal (a pseudo-terminal) or a pipe."""
    env = {**os.environ, "SERVICE_BASE_URL": base_url, "SERVICE_AUTH_KEY": key}
    command = [sys.executable, "-m", "analytics", "plan"]
    if not terminal:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        return done.returncode, done.stderr
    controller, child = pty.openpty()
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=child, text=True
    )
    os.close(child)
    said = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        said += chunk
    os.close(controller)
    return process.wait(timeout=60), said.decode()


@pytest.mark.parametrize("terminal", [True, False])
def test_retries_are_said_on_a_terminal_only(terminal):
    app = create_app(small_config())
    busy = Reply(503, body=b'{"message": "busy"}', headers={"Retry-After": "1"})
    with FaultServer(app, [busy, PASS]) as server:
        code, said = plan_command(server.base_url, app.state.emulator.admin_key, terminal)
    assert code == 0
    if terminal:  # among the progress display's own lines
        assert said.count("retrying in 1 s (503)\r\n") == 1
    else:
        assert said == ""


def test_a_bad_request_answer_is_the_users_argument():
    app = create_app(small_config())
    refused = Reply(400, body=b'{"message": "Bad request. Reason: not today"}')
    with FaultServer(app, [refused]) as server:
        code, said = plan_command(server.base_url, app.state.emulator.admin_key, False)
    assert code == 2
    assert said.startswith("error: 400 Bad request. Reason: not today (trace id ")


def test_all_history_is_the_dashboards_all_history():
    result = invoke(
        "export", "--period", "all-history", "--group-by", "none", "-o", "-", "--demo",
        env=SMALL_DEMO,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    first, last = result.stdout.splitlines()[1].split(",")[:2]
    today = utc_today()
    # The demo organization's 60 days, ending yesterday: the dashboard's "All history".
    assert (first, last) == (str(today - timedelta(days=60)), str(today - timedelta(days=1)))
