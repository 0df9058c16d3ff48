"""`state check` and `state import`: a history folder's records brought into the configured
store once however often the import runs — its files from before the store, and its embedded
store when a deployment moves to PostgreSQL — and the store described without its password."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import psycopg
from support import kept
from support.builders import invoke

from analytics.anomalies.marks import Marks
from analytics.keys.audit import AuditLog, entry
from analytics.storage.state_store import embedded_store
from analytics.usage.records import Records

SPIKE = "spike:k001****z001:total_characters:2025-03-05"
DROP = "drop:k002****z002:total_characters:2025-03-06"
AT = datetime(2025, 3, 6, 8, 30, tzinfo=UTC)


def old_folder(folder) -> None:
    """A history folder as it was before the store: two accounts' marks, one's audit log,
    and the folder's delivery records."""
    folder.mkdir(parents=True)
    marked = {"mark": "expected", "marked_at": "2025-03-06T08:30:00Z"}
    (folder / "acct-anomaly-marks.json").write_text(json.dumps({"marks": {SPIKE: marked}}))
    (folder / "other-anomaly-marks.json").write_text(json.dumps({"marks": {DROP: marked}}))
    (folder / "acct-key-audit.jsonl").write_text(
        '{"time":"2025-03-06T08:30:00Z","who":"ana","action":"rename","key_id":"k1",'
        '"label":"Web","outcome":"done"}\n'
    )
    (folder / "alerts-delivered.json").write_text(
        json.dumps({"delivered": {"email": {"budget:b:2025-03-01": "warning"}}})
    )


def test_the_files_of_a_history_folder_are_taken_once(tmp_path):
    history = tmp_path / "history"
    old_folder(history)
    env = {"SERVICE_HISTORY_PATH": str(history)}
    first = invoke("state", "import", env=env)
    assert first.exit_code == 0, first.stderr
    assert first.stdout.splitlines() == [
        "anomaly marks: 2 taken from 2 files",
        "key audit entries: 1 taken from 1 file",
        "guardrail states: 0 taken from 0 files",
        "alert deliveries: 1 taken from 1 file",
        f"into {history / 'state.sqlite'}",
    ]
    again = invoke("state", "import", env=env)
    assert "anomaly marks: 0 taken from 2 files" in again.stdout
    assert sorted(kept.rows(history, "SELECT account, anomaly FROM anomaly_marks")) == [
        ("acct", SPIKE),
        ("other", DROP),
    ]
    assert [e["label"] for e in kept.audit_entries(history)] == ["Web"]
    checked = invoke("state", "check", env=env)
    assert checked.stdout.splitlines() == [
        f"State store: {history / 'state.sqlite'}",
        "Schema version: 0006",
        "anomaly marks: 2",
        "alert deliveries: 1",
        "key audit entries: 1",
        "guardrail states: 0",
        "settings versions: 0",
        "key rotations: 0",
        "API tokens: 0",
        f"Files from before the store in {history}: 4 (see: state import)",
    ]


def test_a_file_that_does_not_read_is_named_and_the_others_are_taken(tmp_path):
    history = tmp_path / "history"
    old_folder(history)
    (history / "acct-guardrails.json").write_text("{not json")
    result = invoke("state", "import", env={"SERVICE_HISTORY_PATH": str(history)})
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{history / 'acct-guardrails.json'}: not taken, it does not")
    assert len(kept.marks(history)) == 2


def test_an_embedded_store_moves_to_postgresql_once(tmp_path, postgres_url):
    history = tmp_path / "history"
    embedded = embedded_store(history)
    Marks(Records(embedded, "acct")).set(SPIKE, "acknowledged", AT)
    AuditLog(Records(embedded, "acct")).append(entry("create", "ana", None, "failed", label="X"))
    env = {"SERVICE_HISTORY_PATH": str(tmp_path / "elsewhere"), "SERVICE_STATE_URL": postgres_url}
    for _ in range(2):
        moved = invoke("state", "import", "--from", str(history), env=env)
        assert moved.exit_code == 0, moved.stderr
    assert "anomaly marks: 0 taken from 0 files and " in moved.stdout
    with psycopg.connect(postgres_url) as connection:
        marks = connection.execute("SELECT account, anomaly, mark FROM anomaly_marks").fetchall()
        audit = connection.execute("SELECT account, entry FROM key_audit").fetchall()
    assert marks == [("acct", SPIKE, "acknowledged")]
    assert [(account, json.loads(e)["label"]) for account, e in audit] == [("acct", "X")]
    password = postgres_url.split(":")[2].split("@")[0]
    checked = invoke("state", "check", env=env)
    assert checked.stdout.startswith("State store: PostgreSQL at 127.0.0.1:")
    assert password not in checked.stdout + moved.stdout
