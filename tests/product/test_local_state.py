"""Local state that cannot be fetched again: concurrent writers lose nothing, and a damaged
file is moved aside (kept, with a warning), never silently replaced.

The writers are real processes (`mark-anomaly` commands) and threads of this process (as the
dashboard's sessions are), all at once on the embedded state store."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from support import kept
from support.builders import invoke, serve_to_cli
from support.receivers import (
    Mailbox,
    WebhookReceiver,
    mail_and_webhook_alerts,
    smtp_server,
    webhook_receiver,
)
from support.servers import FIXED_TODAY, small_config, start_cli

from analytics.alerts.events import REPEATED
from analytics.anomalies.marks import Marks
from analytics.service.service_connection import ServiceConnection
from analytics.storage.files import DAMAGED_KEPT, move_aside
from emulator import create_app

# Processes and threads writing the embedded store at once; each process spends more than a
# processor-second starting, and the 16 and 16 of two hosts on PostgreSQL are
# tests/product/test_shared_store.py's.
COMMANDS = 8
SESSIONS = 8
GARBAGE = b"\x00{not json at all"


def anomaly(index: int) -> str:
    return f"spike:k{index:03}****z001:total_characters:2025-03-05"


def mark_command(history: Path, anomaly_id: str) -> subprocess.Popen[str]:
    """`mark-anomaly … expected` as cron or a script runs it, on the demo's marks file."""
    env = {**os.environ, "SERVICE_HISTORY_PATH": str(history)}
    return start_cli("mark-anomaly", anomaly_id, "expected", "--demo", env=env)


def demo_marks(history: Path) -> Marks:
    marks = Marks.for_connection(ServiceConnection(history_path=history), demo=True)
    assert marks is not None
    return marks


def test_concurrent_commands_and_sessions_keep_every_mark(tmp_path):
    commands = [mark_command(tmp_path, anomaly(index)) for index in range(COMMANDS)]
    # The dashboard's sessions mark through the same file while the commands run.
    first = commands[0].communicate(timeout=120)
    assert commands[0].returncode == 0, first
    marks = demo_marks(tmp_path)
    start = threading.Barrier(SESSIONS)

    def session(index: int) -> None:
        start.wait()
        marks.set(anomaly(COMMANDS + index), "acknowledged")

    sessions = [threading.Thread(target=session, args=(i,)) for i in range(SESSIONS)]
    for thread in sessions:
        thread.start()
    for thread in sessions:
        thread.join(timeout=120)
    for command in commands[1:]:
        _, stderr = command.communicate(timeout=120)
        assert command.returncode == 0, stderr
    given = kept.marks(tmp_path)
    assert len(given) == COMMANDS + SESSIONS
    assert {given[anomaly(i)] for i in range(COMMANDS)} == {"expected"}
    assert {given[anomaly(COMMANDS + i)] for i in range(SESSIONS)} == {"acknowledged"}


def test_a_damaged_store_is_moved_aside_with_a_warning(tmp_path):
    path = tmp_path / "state.sqlite"
    path.write_bytes(GARBAGE * 1000)
    command = mark_command(tmp_path, anomaly(1))
    _, stderr = command.communicate(timeout=120)
    assert command.returncode == 0, stderr
    [moved] = tmp_path.glob(f"{path.name}.damaged-*")
    assert moved.read_bytes() == GARBAGE * 1000
    [line] = stderr.splitlines()
    assert (
        line
        == f"WARNING: The state store {path} was not a database; kept as {moved}, starting afresh"
    )
    assert kept.marks(tmp_path) == {anomaly(1): "expected"}
    again = mark_command(tmp_path, anomaly(2))
    assert again.communicate(timeout=120)[1] == ""  # the next run is quiet


def test_only_the_newest_damaged_copies_are_kept(tmp_path):
    path = tmp_path / "state.json"
    for number in range(DAMAGED_KEPT + 2):
        path.write_text(f"damaged {number}")
        move_aside(path)
    copies = sorted(tmp_path.glob("state.json.damaged-*"))
    assert [copy.read_text() for copy in copies] == [
        f"damaged {number}" for number in range(2, DAMAGED_KEPT + 2)
    ]
    assert not path.exists()


def truncated(store: Path) -> None:
    """A crash or a full disk cut the file short."""
    os.truncate(store, store.stat().st_size // 3)


def scribbled(store: Path) -> None:
    """Blocks overwritten: DuckDB's checksums no longer match."""
    content = bytearray(store.read_bytes())
    content[4096:36864] = b"\xab" * 32768
    store.write_bytes(bytes(content))


@pytest.mark.usefixtures("instant_retries")
@pytest.mark.parametrize("damage", [truncated, scribbled])
def test_a_damaged_history_store_is_moved_aside_and_rebuilt(
    monkeypatch, tmp_path, damage: Callable[[Path], None]
):
    app = create_app(small_config())
    history = tmp_path / "store"
    serve_to_cli(monkeypatch, app, app.state.emulator.admin_key, FIXED_TODAY, history)

    def export(name: str) -> tuple[bytes, str]:
        out = tmp_path / name
        result = invoke("export", "--start", "2025-04-01", "--end", "2025-05-31", "-o", str(out))
        assert result.exit_code == 0, result.stderr
        return out.read_bytes(), result.stderr

    clean, quiet = export("clean.csv")
    assert quiet == ""
    [store] = history.glob("*.duckdb")
    damage(store)
    damaged = store.read_bytes()
    rebuilt, warned = export("rebuilt.csv")
    [kept] = history.glob(f"{store.name}.damaged-*")
    assert kept.read_bytes() == damaged
    [line] = warned.splitlines()
    assert line.startswith(f"WARNING: History store {store} was damaged (")
    assert line.endswith(f"kept as {kept}, rebuilding it from the service")
    assert rebuilt == clean
    assert export("again.csv") == (clean, "")  # the next run is quiet, from the new store


def notify_command(folder: Path, hook: str) -> subprocess.Popen[str]:
    """`check-anomalies --notify` as a timer runs it: the demo's anomalies to mail and a JSON
    webhook, its delivery state in `folder`/history."""
    env = {
        **os.environ,
        "SERVICE_HISTORY_PATH": str(folder / "history"),
        "SERVICE_DEMO_KEYS": "8",
        "SERVICE_DEMO_DAYS": "120",
        "SERVICE_DEMO_SEED": "42",
        "TEST_HOOK_URL": hook,
    }
    alerts = str(folder / "alerts.toml")
    command = ["check-anomalies", "--days", "30", "--demo", "--notify", "--alerts", alerts]
    return start_cli(*command, env=env)


def sent(mailbox: Mailbox, hooks: WebhookReceiver) -> tuple[list[str], list[str]]:
    """The subjects each destination received, in order."""
    return mailbox.subjects, [body["subject"] for body in hooks.at("/hook")]


@pytest.mark.parametrize("crash", ["mail", "webhook"])
def test_a_delivery_killed_between_sending_and_recording_repeats_one_message(tmp_path, crash):
    with smtp_server() as mailbox, webhook_receiver() as hooks:
        mail_and_webhook_alerts(tmp_path, mailbox, "TEST_HOOK_URL")
        killed = notify_command(tmp_path, hooks.url("/hook"))

        def kill() -> None:
            """SIGKILL after the first message arrived and before its sender heard so."""
            mailbox.on_message = hooks.on_post = None
            os.kill(killed.pid, signal.SIGKILL)

        if crash == "mail":
            mailbox.on_message = kill
        else:
            hooks.on_post = kill
        killed.communicate(timeout=120)
        assert killed.returncode == -signal.SIGKILL
        mails, posts = sent(mailbox, hooks)
        [first] = mails if crash == "mail" else posts

        resumed = notify_command(tmp_path, hooks.url("/hook"))
        _, stderr = resumed.communicate(timeout=120)
        assert resumed.returncode == 12, stderr
        mails, posts = sent(mailbox, hooks)
        repeated = mails if crash == "mail" else posts
        others = posts if crash == "mail" else mails
        # Every alert got through; only the one in flight came twice, marked the second time.
        assert repeated[0] == first and repeated[1] == f"{REPEATED} {first}"
        assert repeated[:1] + repeated[2:] == others
        assert len(set(others)) == len(others) > 1

        again = notify_command(tmp_path, hooks.url("/hook"))
        assert again.communicate(timeout=120)[1] == ""
        assert sent(mailbox, hooks) == (mails, posts)  # nothing sent a third time


def test_a_damaged_store_sends_every_alert_again(tmp_path):
    """Without a valid record nothing says what was sent: every current alert goes out again,
    and the damaged store is kept for a person to look at."""
    store = tmp_path / "history" / "state.sqlite"
    store.parent.mkdir()
    store.write_bytes(GARBAGE * 1000)
    with smtp_server() as mailbox, webhook_receiver() as hooks:
        mail_and_webhook_alerts(tmp_path, mailbox, "TEST_HOOK_URL")
        command = notify_command(tmp_path, hooks.url("/hook"))
        _, stderr = command.communicate(timeout=120)
        assert command.returncode == 12, stderr
        [moved] = store.parent.glob("state.sqlite.damaged-*")
        assert moved.read_bytes() == GARBAGE * 1000
        [line] = stderr.splitlines()
        assert line.startswith(f"WARNING: The state store {store} was not a database")
        mails, posts = sent(mailbox, hooks)
        assert mails == posts and len(set(mails)) == len(mails) > 1
        again = notify_command(tmp_path, hooks.url("/hook"))
        assert again.communicate(timeout=120)[1] == ""
        assert sent(mailbox, hooks) == (mails, posts)
