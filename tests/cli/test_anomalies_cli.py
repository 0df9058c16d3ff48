"""`check-anomalies` and `mark-anomaly`: the anomalies the emulator injected are reported, marks
silence them, and the exit codes are those of check-budgets (12 for new anomalies)."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
from urllib.parse import urlencode

import pytest
from support import kept
from support.builders import invoke, serve_to_cli
from support.receivers import HOOK, alert_receivers
from support.servers import ROOT, small_config

from analytics.anomalies.marks import check_id
from analytics.connection import demo_app
from analytics.usage.calendar import utc_now
from bench.processes import free_port
from emulator import create_app

RECOGNIZABLE_KEY = "sk-RECOGNIZABLE-KEY-0123456789-do-not-print"
JSON = ("--format", "json")
DEMO = {"SERVICE_DEMO_KEYS": "8", "SERVICE_DEMO_DAYS": "120", "SERVICE_DEMO_SEED": "42"}


pytestmark = pytest.mark.usefixtures("instant_retries")


def printed(result, columns: int = 3) -> dict[str, list[str]]:
    """Each printed line by the anomaly's name in words: its other columns (severity,
    [status,] sentence); columns are two spaces apart or more."""
    lines = {}
    for line in result.stdout.splitlines():
        if line.startswith("notified "):  # what --notify sent
            continue
        parts = re.split(r"\s{2,}", line, maxsplit=columns - 1)
        anomaly = parts.pop(columns - 2)
        lines[anomaly] = parts
    return lines


def listed(result) -> dict[str, dict]:
    """Each anomaly of a `--format json` run by its id."""
    return {record["id"]: record for record in json.loads(result.stdout)}


def injected_demo_events():
    """The demo organization's injected drop, new key and dormant key (its ground truth)."""
    truth = demo_app(42, 8, 120).state.emulator.injected
    return {i.kind: i for i in truth if i.kind != "spike"}


def test_the_injected_anomalies_are_reported_until_marked(tmp_path):
    result = invoke("check-anomalies", "--demo", "--days", "30", env=DEMO)
    assert result.exit_code == 12, result.stderr
    assert result.stderr == ""
    lines = printed(result)
    events = injected_demo_events()
    assert set(events) == {"drop", "new", "dormant"}
    new, dormant, drop = events["new"], events["dormant"], events["drop"]
    labels = {key.masked: key.label for key in demo_app(42, 8, 120).state.emulator.keys}
    # Each anomaly in words: kind, key, metric and days, never its id. A new key's days end on
    # its first week's peak, which may be its first day.
    new_prefix = f"New key · {labels[new.api_key]} ({new.api_key}) · characters · "
    [new_name] = [
        name
        for name in lines
        if name == f"{new_prefix}on {new.first:%a %Y-%m-%d}"
        or name.startswith(f"{new_prefix}from {new.first:%a %Y-%m-%d} to ")
    ]
    dormant_name = (
        f"Dormant key used · {labels[dormant.api_key]} ({dormant.api_key}) · characters · "
        f"on {dormant.first:%a %Y-%m-%d}"
    )
    assert dormant_name in lines
    assert any(
        name.startswith(f"Drop · {labels[drop.api_key]} ({drop.api_key}) · ") for name in lines
    )
    assert {severity for severity, _ in lines.values()} <= {"high", "medium", "low"}
    assert lines[new_name][1].startswith(
        f"{labels[new.api_key]} is a new key, first used on {new.first:%a %Y-%m-%d}: "
    )
    # The same anomalies for a script, each by its id, which the mark command takes.
    as_json = invoke("check-anomalies", "--demo", "--days", "30", *JSON, env=DEMO)
    assert as_json.exit_code == 12, as_json.stderr
    found = listed(as_json)
    assert {record["name"] for record in found.values()} == set(lines)
    assert found[f"new:{new.api_key}:total_characters:{new.first}"]["name"] == new_name
    assert found[f"dormant:{dormant.api_key}:total_characters:{dormant.first}"]["name"] == (
        dormant_name
    )
    assert not any(anomaly in result.stdout for anomaly in found)

    for anomaly in found:
        marked = invoke("mark-anomaly", anomaly, "acknowledged", "--demo", env=DEMO)
        assert marked.exit_code == 0, marked.stderr
    quiet = invoke("check-anomalies", "--demo", "--days", "30", env=DEMO)
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "", "")

    every = invoke("check-anomalies", "--demo", "--days", "30", "--all", env=DEMO)
    assert every.exit_code == 0
    statuses = [line.split()[1] for line in every.stdout.splitlines()]
    assert statuses == ["acknowledged"] * len(lines)

    again = f"new:{new.api_key}:total_characters:{new.first}"
    assert invoke("mark-anomaly", again, "new", "--demo", env=DEMO).exit_code == 0
    back = invoke("check-anomalies", "--demo", "--days", "30", env=DEMO)
    assert back.exit_code == 12
    assert list(printed(back)) == [new_name]


def test_marks_are_records_of_the_demo_in_the_history_folders_store(tmp_path):
    events = injected_demo_events()
    planned = f"spike:{events['new'].api_key}:total_characters:2030-01-01"
    marked = invoke("mark-anomaly", planned, "expected", "--demo", env=DEMO)
    assert marked.exit_code == 0
    store = tmp_path / "history" / "state.sqlite"
    assert marked.stdout == f"{planned}: marked expected in {store}\n"
    cleared = invoke("mark-anomaly", planned, "new", "--demo", env=DEMO)
    assert cleared.stdout == f"{planned}: mark cleared (new again) in {store}\n"
    assert kept.marks(tmp_path / "history") == {}
    assert invoke("mark-anomaly", planned, "expected", "--demo", env=DEMO).exit_code == 0
    [(account, mark, at)] = kept.rows(
        tmp_path / "history", "SELECT account, mark, marked_at FROM anomaly_marks"
    )
    assert (account, mark) == ("demo-42-8-120", "expected")
    # Kept in UTC, at the run's one clock (pinned for the whole run, see support.clock).
    assert dt.datetime.fromisoformat(at).replace(tzinfo=dt.UTC) == utc_now()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["mark-anomaly", "bogus", "expected"], "is not kind:key:metric:YYYY-MM-DD"),
        (
            ["mark-anomaly", "surge:k001****z001:total_characters:2025-03-05", "expected"],
            "unknown kind 'surge'",
        ),
        (
            ["mark-anomaly", "spike:k001****z001:characters:2025-03-05", "expected"],
            "unknown metric 'characters'",
        ),
        (
            ["mark-anomaly", "spike:Finance reporting:total_characters:2025-03-05", "expected"],
            "not a masked key",
        ),
        (
            ["mark-anomaly", "spike:organization:total_characters:2025-02-30", "expected"],
            "no valid day",
        ),
        (
            ["mark-anomaly", "spike:organization:total_characters:2025-03-05", "later"],
            "mark must be expected, acknowledged or new, not 'later'",
        ),
    ],
)
def test_bad_marks_exit_2(args, message):
    result = invoke(*args, "--demo", env=DEMO)
    assert result.exit_code == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_without_configuration_both_commands_exit_2():
    for args in (
        ["check-anomalies"],
        ["mark-anomaly", "spike:organization:total_characters:2025-03-05", "expected"],
    ):
        result = invoke(*args)
        assert result.exit_code == 2
        assert "pass --demo for demo data" in result.stderr
    assert invoke("check-anomalies", "--days", "0", "--demo", env=DEMO).exit_code == 2


def test_a_store_that_cannot_be_opened_exits_5_in_one_line(tmp_path):
    store = tmp_path / "history" / "state.sqlite"
    store.mkdir(parents=True)  # not a file a database can be opened in
    result = invoke("check-anomalies", "--demo", env=DEMO)
    assert (result.exit_code, result.stdout) == (5, "")
    assert result.stderr == (
        f"error: The state store ({store}) failed: unable to open database file\n"
    )


def test_a_configured_service_with_history(monkeypatch, tmp_path):
    today = dt.date(2025, 6, 1)
    served = create_app(small_config(keys=8, days=150))
    truth = {i.kind: i for i in served.state.emulator.injected if i.kind != "spike"}
    admin = served.state.emulator.admin_key
    serve_to_cli(monkeypatch, served, admin, today, tmp_path / "history")
    first = invoke("check-anomalies", "--days", "30", *JSON)
    assert first.exit_code == 12, first.stderr
    new = truth["new"]
    anomaly = f"new:{new.api_key}:total_characters:{new.first}"
    assert listed(first)[anomaly]["status"] == "new"
    assert invoke("mark-anomaly", anomaly, "expected").exit_code == 0
    files = sorted(p.name for p in (tmp_path / "history").iterdir())
    accounts = [name.removesuffix("-v2.duckdb") for name in files if name.endswith(".duckdb")]
    marked = kept.rows(tmp_path / "history", "SELECT account, anomaly FROM anomaly_marks")
    assert marked == [(accounts[0], anomaly)]  # named as the account's history store is
    assert not any(admin in name for name in [*files, *accounts])
    second = invoke("check-anomalies", "--days", "30", "--all", *JSON)
    assert listed(second)[anomaly]["status"] == "expected"
    [(_, status, _)] = [
        columns
        for name, columns in printed(invoke("check-anomalies", "--days", "30", "--all"), 4).items()
        if name.startswith("New key · ")
    ]
    assert status == "expected"
    assert admin not in first.stdout + second.stdout
    served.state.emulator.store.close()


def test_refused_key_exits_3_and_unreachable_service_4(emulator_process):
    refused = {"SERVICE_BASE_URL": emulator_process.base_url, "SERVICE_AUTH_KEY": RECOGNIZABLE_KEY}
    result = invoke("check-anomalies", env=refused)
    assert result.exit_code == 3
    assert result.stderr.startswith("error: 403 Forbidden: ")
    unreachable = {"SERVICE_BASE_URL": f"http://127.0.0.1:{free_port()}"}
    result = invoke("check-anomalies", env={**refused, **unreachable})
    assert result.exit_code == 4
    assert RECOGNIZABLE_KEY not in result.stdout + result.stderr


def test_exit_code_from_a_real_process(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **DEMO}
    done = subprocess.run(
        [sys.executable, "-m", "analytics", "check-anomalies", "--demo", "--days", "30", *JSON],
        cwd=ROOT,
        env={**env, "SERVICE_HISTORY_PATH": str(tmp_path / "history")},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 12, done.stderr
    assert done.stderr == ""
    ids = [record["id"] for record in json.loads(done.stdout)]
    assert len(ids) >= 3 and all(check_id(anomaly) == anomaly for anomaly in ids)


def test_notify_sends_each_new_anomaly_once_linked_to_its_chart(monkeypatch, tmp_path):
    today = dt.date(2025, 6, 1)
    served = create_app(small_config(keys=8, days=150))
    emulator = served.state.emulator
    admin = emulator.admin_key
    serve_to_cli(monkeypatch, served, admin, today, tmp_path / "history")
    with alert_receivers(monkeypatch, tmp_path) as (mailbox, hooks, alerts):
        args = ["check-anomalies", "--days", "30", "--notify", "--alerts", str(alerts)]
        # Run for a script, its standard output stays one JSON document: what was sent is
        # said on stderr.
        first = invoke(*args, *JSON)
        assert first.exit_code == 12, first.stderr
        found = {r["name"]: (r["severity"], r["sentence"]) for r in json.loads(first.stdout)}
        notified = first.stderr.splitlines()
        assert len(notified) == 2 * len(found)
        assert all(line.startswith("notified ") for line in notified)
        posted = hooks.at(HOOK)
        # One alert per new anomaly, at both destinations, named in words as the table names
        # it; its id only in the alert's id, its link and the mark command.
        assert sorted(body["subject"] for body in posted) == sorted(
            f"Usage anomaly ({severity}): {name}" for name, (severity, _) in found.items()
        )
        assert len(mailbox.messages) == len(found)
        truth = {i.kind: i for i in emulator.injected if i.kind != "spike"}
        new = truth["new"]
        anomaly = f"new:{new.api_key}:total_characters:{new.first}"
        alert = next(b for b in posted if b["id"] == f"anomaly:{anomaly}")
        name = alert["subject"].partition("): ")[2]
        levels = {"high": "exceeded", "medium": "warning", "low": "info"}
        assert alert["level"] == levels[found[name][0]]
        label = next(k.label for k in emulator.keys if k.masked == new.api_key)
        assert name.startswith(
            f"New key · {label} ({new.api_key}) · characters · from {new.first:%a %Y-%m-%d} to "
        )
        assert f"or with mark-anomaly '{anomaly}' acknowledged, once" in alert["text"]
        assert alert["link"] == (
            f"https://dash.example.org/usage/anomalies?{urlencode({'anomaly': anomaly})}"
        )
        # Neither the administrator key nor any key in full is in a message.
        secrets = [admin, *(k.key for k in emulator.keys)]
        for text in [*mailbox.raw, *(post.body for post in hooks.posts)]:
            assert not any(secret.encode() in text for secret in secrets)

        # Found again the next day: nothing is sent twice.
        again = invoke(*args)
        assert again.exit_code == 12, again.stderr
        assert "notified" not in again.stdout
        assert printed(again) == {name: list(line) for name, line in found.items()}
        assert len(hooks.posts) == len(found) and len(mailbox.messages) == len(found)
    emulator.store.close()
