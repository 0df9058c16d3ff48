"""One demo organization for the dashboard and every `--demo` command: its store is a file in
the history folder, shared by separate processes until it is made again (a new UTC day, a
damaged file, `reset-demo`), and the demo's key audit log lives exactly as long. The emulator's
own store, read from the file, is the oracle; the original organization is an emulator of the
same shape built apart, in memory."""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from support import kept
from support.headless import DEMO, DEMO_KEYS, DEMO_SEED
from support.servers import ROOT, emulator_of, run_cli

from analytics.connection import demo_app, demo_client, reset_demo
from analytics.dashboard import data
from analytics.dashboard.source import Source
from analytics.keys.audit import AuditLog, entry
from analytics.service.service_connection import ServiceConnection
from analytics.storage.state_store import embedded_store
from analytics.usage.calendar import CLOCK_VARIABLE, utc_now
from analytics.usage.records import Records
from emulator import EmulatorConfig
from emulator.ledger import mask_key
from emulator.store import DeveloperKeyRow, Store

RENAMED = "Renamed in the demo"
# The small demo organization (`DEMO`) over a month: what is shared is its store, whatever its
# length, and a month is fewer days than a key's forecast reads, so `keys list` runs none (its
# 120 days' took each command another processor-second, statsmodels' import among it).
DAYS = 30
A_MONTH = {**DEMO, "SERVICE_DEMO_DAYS": str(DAYS)}


@pytest.fixture
def history(tmp_path) -> Path:
    return tmp_path / "history"


@pytest.fixture
def env(history) -> dict[str, str]:
    """A command's settings: a month of the small demo organization, in its own history
    folder."""
    return {**A_MONTH, "SERVICE_HISTORY_PATH": str(history)}


@pytest.fixture(scope="module")
def generated() -> Iterator[list[DeveloperKeyRow]]:
    """The demo organization's developer keys as generated, from an emulator of the same
    shape in memory."""
    config = EmulatorConfig(seed=DEMO_SEED, keys=DEMO_KEYS, days=DAYS)
    with emulator_of(config) as app:
        yield app.state.emulator.store.developer_keys()


@pytest.fixture(scope="module")
def original(generated) -> dict[str, str]:
    """The generated keys: published id -> label."""
    return {k.published_id: k.label for k in generated}


def connection_of(history: Path | None) -> ServiceConnection:
    return ServiceConnection(
        demo_seed=DEMO_SEED, demo_keys=DEMO_KEYS, demo_days=DAYS, history_path=history
    )


def stored(history: Path) -> dict[str, str]:
    """The developer keys (published id -> label) the demo's store file holds."""
    files = connection_of(history).demo_files
    assert files is not None
    store = Store(files.store)
    try:
        return {k.published_id: k.label for k in store.developer_keys()}
    finally:
        store.close()


def listed(env: dict[str, str], *args: str) -> dict[str, str]:
    """`keys list --demo` run as its own process: key id -> label."""
    result = run_cli("keys", "list", "--all", "--format", "json", "--demo", *args, env=env)
    assert result.returncode == 0, result.stderr
    return {row["key_id"]: row["label"] for row in json.loads(result.stdout) if row["key_id"]}


def audited(history: Path) -> list[dict]:
    """The demo's key audit log, as the state store holds it (none yet: empty)."""
    account = connection_of(history).demo_name
    query = f"SELECT entry FROM key_audit WHERE account = '{account}' ORDER BY id"
    return [json.loads(entry) for (entry,) in kept.rows(history, query)]


def rename_first(env: dict[str, str], original: dict[str, str]) -> str:
    """`keys rename … --demo` of the first generated key, as its own process; its id."""
    key_id, label = next(iter(original.items()))
    result = run_cli("keys", "rename", label, RENAMED, "--demo", env=env)
    assert result.returncode == 0, result.stderr
    return key_id


@pytest.fixture
def fresh_dashboard() -> Iterator[None]:
    """The dashboard's cached clients and the demo apps of this process forgotten, before
    and after: the test's history folder is its own."""

    def forget() -> None:
        demo_app.cache_clear()
        st.cache_data.clear()
        st.cache_resource.clear()

    forget()
    yield
    forget()


def test_a_rename_by_one_command_is_listed_by_the_next(env, history, original):
    key_id = rename_first(env, original)
    assert stored(history) == {**original, key_id: RENAMED}
    assert listed(env) == stored(history)
    [entry] = audited(history)
    assert (entry["action"], entry["key_id"], entry["outcome"]) == ("rename", key_id, "done")


def test_a_change_on_the_dashboard_is_listed_by_a_command(
    env, history, original, generated, fresh_dashboard, monkeypatch
):
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(history))
    connection = connection_of(history)
    client = data.client(Source(connection, connection.demo_name, True))
    # The dashboard's client renames directly, outside the audited change that records the
    # key's mask, so the key is one whose usage joins by its key id (its id starts and ends as
    # its secret): one joined by its old label would rightly be listed apart from its usage
    # (test_keys_cli renames one through the commands, which record its mask).
    key_id = next(k.published_id for k in generated if k.masked == mask_key(k.published_id))
    client.rename_developer_key(key_id, RENAMED)
    client.deactivate_developer_key(key_id)
    assert stored(history) == {**original, key_id: RENAMED}
    assert listed(env) == stored(history)
    result = run_cli("keys", "list", "--all", "--format", "json", "--demo", env=env)
    [row] = [row for row in json.loads(result.stdout) if row["key_id"] == key_id]
    assert row["state"] == "deactivated"


def test_a_reset_brings_the_generated_keys_back_and_empties_the_demo_audit_log(
    env, history, original
):
    key_id = rename_first(env, original)
    created = run_cli("keys", "create", "--label", "Made in the demo", "--demo", env=env)
    assert created.returncode == 0, created.stderr
    assert stored(history)[key_id] == RENAMED and len(stored(history)) == len(original) + 1
    assert len(audited(history)) == 2
    # A real organization's audit log in the same store is no business of the demo's.
    real = AuditLog(Records(embedded_store(history), "0123456789ab-0123456789abcdef"))
    real.append(entry("create", "cli:ops", None, "failed", label="Real"))

    reset = run_cli("reset-demo", env=env)
    assert reset.returncode == 0, reset.stderr
    assert "key audit entries dropped: 2" in reset.stdout
    assert stored(history) == original
    assert audited(history) == []
    assert listed(env) == original
    shown = run_cli("keys", "audit", "--format", "csv", "--demo", env=env)
    assert shown.stdout.splitlines()[1:] == []
    assert [e.label for e in real.read()] == ["Real"]


def test_a_new_utc_day_makes_the_demo_afresh_and_drops_its_audit_log(env, history, original):
    rename_first(env, original)
    tomorrow = utc_now() + dt.timedelta(days=1)
    later = {**env, CLOCK_VARIABLE: tomorrow.isoformat()}
    result = run_cli("keys", "list", "--all", "--format", "json", "--demo", env=later)
    assert result.returncode == 0, result.stderr
    labels = {row["label"] for row in json.loads(result.stdout)}
    assert RENAMED not in labels and set(original.values()) <= labels
    assert "made again" in result.stderr and "audit log (1 entries) is removed" in result.stderr
    assert audited(history) == []


def test_two_commands_starting_on_an_empty_folder_share_one_organization(env, history, original):
    command = [sys.executable, "-m", "analytics", "keys", "list", "--all", "--format", "json"]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
    started = [
        subprocess.Popen(
            [*command, "--demo"],
            cwd=ROOT,
            env={**clean, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [process.communicate(timeout=300) for process in started]
    assert [process.returncode for process in started] == [0, 0], outputs
    assert outputs[0] == outputs[1] and outputs[0][1] == ""
    files = connection_of(history).demo_files
    assert files is not None
    assert sorted(history.iterdir()) == [files.lock, files.store, history / "state.sqlite"]
    assert stored(history) == original


def test_a_damaged_store_is_moved_aside_and_the_demo_made_afresh(env, history, original):
    rename_first(env, original)
    files = connection_of(history).demo_files
    assert files is not None
    damaged = files.store.read_bytes()[: files.store.stat().st_size // 3]
    files.store.write_bytes(damaged)

    result = run_cli("keys", "list", "--all", "--format", "json", "--demo", env=env)
    assert result.returncode == 0, result.stderr
    [kept] = history.glob(f"{files.store.name}.damaged-*")
    assert kept.read_bytes() == damaged
    assert "is not a sound database" in result.stderr and str(kept) in result.stderr
    assert stored(history) == original and audited(history) == []


def test_a_store_of_an_older_layout_is_loaded_again(history, original):
    files = connection_of(history).demo_files
    assert files is not None
    history.mkdir()
    with sqlite3.connect(files.store) as old:  # a layout before language pairs had kinds
        old.execute("CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        old.execute("INSERT INTO meta VALUES ('org', 'v4:synthetic:42:8:30')")
        old.execute("CREATE TABLE key_pairs (key_id INTEGER, pair_id INTEGER)")
    old.close()
    app = demo_app(DEMO_SEED, DEMO_KEYS, DAYS, None, files)
    try:
        assert app.state.emulator.loaded
        assert stored(history) == original
    finally:
        app.state.emulator.store.close()
        demo_app.cache_clear()


def test_without_a_history_folder_the_demo_is_in_memory_and_nothing_is_reset(original, caplog):
    off = connection_of(None)
    assert off.demo_files is None and reset_demo(off) is None
    with demo_client(off) as client:
        assert {k.key_id: k.label for k in client.developer_keys()} == original
    assert "kept in memory" in caplog.text


def test_the_default_demo_has_room_for_a_new_key(history):
    """Out of the box (no demo setting, an empty history folder) a key can be created: the
    generated organization leaves places free under the 25-active-key rule."""
    created = run_cli(
        "keys",
        "create",
        "--label",
        "Kiosk app",
        "--demo",
        env={"SERVICE_HISTORY_PATH": str(history)},
    )
    assert created.returncode == 0, created.stderr
    [secret] = created.stdout.splitlines()
    assert len(secret) >= 36 and "created Kiosk app (" in created.stderr
