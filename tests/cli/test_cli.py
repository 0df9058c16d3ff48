"""The `python -m analytics` commands: exit codes, outputs, the key never shown."""

from __future__ import annotations

import datetime as dt
import json
import os
import pty
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest
from support.builders import (
    PLAN_ADMIN,
    PLAN_TODAY,
    asgi_client,
    assert_matches_ledger,
    invoke,
    miscounting_app,
    plan_org,
    serve_to_cli,
)
from support.servers import ROOT, file_app, run_cli, small_config

from analytics.connection import demo_app
from analytics.service.client import ServiceClient
from analytics.service.service_connection import ServiceConnection
from analytics.usage.calendar import utc_today
from bench.processes import free_port
from emulator import EmulatorConfig, create_app

RECOGNIZABLE_KEY = "sk-RECOGNIZABLE-KEY-0123456789-do-not-print"
SMALL_DEMO = {"SERVICE_DEMO_KEYS": "4", "SERVICE_DEMO_DAYS": "90"}


pytestmark = pytest.mark.usefixtures("instant_retries")


def read_export(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(path, keep_default_na=False)
    frame["usage_date"] = pd.to_datetime(frame["usage_date"])
    return frame


# -- exit code 2: bad arguments or configuration ---------------------------------------------


def test_without_configuration_it_refuses_instead_of_exporting_demo_data(tmp_path):
    out = tmp_path / "usage.csv"
    result = invoke("export", "--start", "2025-01-01", "--end", "2025-01-31", "-o", str(out))
    assert result.exit_code == 2
    assert "SERVICE_AUTH_KEY and SERVICE_BASE_URL must be set" in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--start", "2025-02-30", "--end", "2025-03-01"], "--start: 2025-02-30 is not a day"),
        (["--start", "2025-03-02", "--end", "2025-03-01"], "before --start"),
        (["--start", "2025-03-01"], "give --start and --end"),
        (["--period", "last-month", "--start", "2025-03-01"], "not both"),
        (["--period", "fortnight"], "fortnight"),
        (["--start", "2025-03-01", "--end", "2025-03-02", "--group-by", "week"], "week"),
        (["--start", "2025-03-01", "--end", "2025-03-02", "--bogus"], "bogus"),
    ],
)
def test_bad_arguments_exit_2(tmp_path, args, message):
    result = invoke("export", *args, "-o", str(tmp_path / "u.csv"), "--demo", env=SMALL_DEMO)
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1


def test_a_bad_setting_is_one_error_line_naming_the_variable(tmp_path):
    out = tmp_path / "u.csv"
    env = {**SMALL_DEMO, "SERVICE_DEMO_KEYS": "many"}
    result = invoke("export", "--period", "last-7-days", "-o", str(out), "--demo", env=env)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: invalid setting: SERVICE_DEMO_KEYS: ")
    assert result.stderr.count("\n") == 1
    assert "many" not in result.stderr and not out.exists()


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("report.txt", "cannot tell the format"),
        ("missing/u.csv", "does not exist"),
        (".", "folder"),
    ],
)
def test_bad_output_paths_exit_2(tmp_path, output, message):
    target = tmp_path if output == "." else tmp_path / output
    result = invoke(
        "export", "--period", "last-7-days", "-o", str(target), "--demo", env=SMALL_DEMO
    )
    assert result.exit_code == 2 and message in result.stderr


# -- exit code 0 -------------------------------------------------------------------------------


def test_demo_export_of_every_grouping_and_format(tmp_path):
    connection = ServiceConnection(demo_keys=4, demo_days=90)
    emu = demo_app(connection.demo_seed, connection.demo_keys, connection.demo_days).state.emulator
    yesterday = emu.today() - dt.timedelta(days=1)
    start = yesterday - dt.timedelta(days=59)
    args = ["--start", start.isoformat(), "--end", yesterday.isoformat(), "--demo"]
    result = invoke("export", *args, "-o", str(tmp_path / "day.csv"), env=SMALL_DEMO)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "" and result.stderr == ""  # quiet for cron when all is well
    assert_matches_ledger(read_export(tmp_path / "day.csv"), emu.ledger(start, yesterday))

    invoke(
        "export", *args, "--group-by", "key", "-o", str(tmp_path / "key.parquet"), env=SMALL_DEMO
    )
    by_key = pd.read_parquet(tmp_path / "key.parquet")
    assert by_key["total_characters"].is_monotonic_decreasing
    assert by_key["total_characters"].sum() == sum(
        r.text_translation_characters
        + r.document_translation_characters
        + r.text_improvement_characters
        for r in emu.ledger(start, yesterday)
    )
    result = invoke(
        "export",
        *args,
        "--group-by",
        "none",
        "--format",
        "xlsx",
        "-o",
        str(tmp_path / "t.bin"),
        env=SMALL_DEMO,
    )
    assert result.exit_code == 0
    total = pd.read_excel(tmp_path / "t.bin")
    assert total.loc[0, "total_characters"] == by_key["total_characters"].sum()
    assert str(total.loc[0, "start_date"])[:10] == start.isoformat()


def test_period_preset_export(tmp_path):
    before = utc_today()  # the command resolves the preset on its own clock, in between
    result = invoke(
        "export",
        "--period",
        "last-30-days",
        "-o",
        str(tmp_path / "u.csv"),
        "--demo",
        env=SMALL_DEMO,
    )
    assert result.exit_code == 0
    days = read_export(tmp_path / "u.csv")["usage_date"]
    after = utc_today()
    assert days.max() <= pd.Timestamp(after - dt.timedelta(days=1))
    assert days.min() >= pd.Timestamp(before - dt.timedelta(days=30))


def test_languages_and_detect_commands():
    table = invoke("languages", "--resource", "translate_document", "--demo", env=SMALL_DEMO)
    assert table.exit_code == 0
    assert table.stdout.splitlines()[0].split() == ["lang", "name", "source", "target", "features"]
    as_csv = invoke(
        "languages", "--resource", "glossary", "--format", "csv", "--demo", env=SMALL_DEMO
    )
    assert as_csv.stdout.startswith("lang,name,source,target,features\n")
    detected = invoke(
        "detect",
        "Wir fahren morgen mit dem Zug nach Berlin und besuchen unsere Freunde.",
        "We are taking the train to Berlin tomorrow to visit our friends.",
        "--demo",
        env=SMALL_DEMO,
    )
    assert detected.exit_code == 0
    assert [line.split("\t")[:2] for line in detected.stdout.splitlines()] == [
        ["de", "success"],
        ["en", "success"],
    ]


def test_languages_lines_as_scripts_read_them():
    """Left-aligned columns two spaces apart, yes/no flags, features by name in a person's
    table, sorted and space-separated feature keys in a script's CSV (the emulator's document
    languages). Only stable languages unless --beta, and the lines keep their shape either
    way."""
    table = invoke("languages", "--resource", "translate_document", "--demo", env=SMALL_DEMO)
    lines = table.stdout.splitlines()
    assert lines[0] == "lang     name                      source  target  features"
    assert {
        "de       German                    yes     yes     Auto-detection, Formality, Glossary, "
        "Translation memory",
        "en       English                   yes     yes     Auto-detection, Glossary, "
        "Translation memory",
        "pt-BR    Portuguese (Brazilian)    no      yes     Formality, Glossary",
    } <= set(lines)
    assert not [line for line in lines if line.split()[0] in ("ca", "hr", "ms")]
    with_beta = invoke(
        "languages", "--resource", "translate_document", "--beta", "--demo", env=SMALL_DEMO
    ).stdout.splitlines()
    assert with_beta[0] == lines[0]
    assert "ca       Catalan                   yes     yes" in with_beta  # no trailing spaces
    assert "ms       Malay                     yes     yes" in with_beta
    as_csv = invoke(
        "languages",
        "--resource",
        "translate_document",
        "--format",
        "csv",
        "--beta",
        "--demo",
        env=SMALL_DEMO,
    )
    rows = as_csv.stdout.splitlines()
    assert rows[:2] == [
        "lang,name,source,target,features",
        "ar,Arabic,yes,yes,auto_detection glossary",
    ]
    assert "en-GB,English (British),no,yes,glossary translation_memory" in rows
    assert "es-419,Spanish (Latin American),no,yes,formality glossary translation_memory" in rows
    assert "ca,Catalan,yes,yes," in rows
    assert len(rows) == 1 + 43  # 36 languages and 7 regional target variants


def test_languages_beta_adds_beta_features():
    """Style rules are a beta feature of text translation: listed with --beta only."""
    german = {}
    for options in ((), ("--beta",)):
        out = invoke(
            "languages",
            "--resource",
            "translate_text",
            "--format",
            "csv",
            *options,
            "--demo",
            env=SMALL_DEMO,
        )
        german[options] = next(row for row in out.stdout.splitlines() if row.startswith("de,"))
    assert german[()] == (
        "de,German,yes,yes,auto_detection formality glossary tag_handling translation_memory"
    )
    assert german[("--beta",)] == (
        "de,German,yes,yes,auto_detection formality glossary style_rules tag_handling "
        "translation_memory"
    )


def test_languages_of_style_rule_lists_translation_memories_and_voice():
    """The resources and features of the published interface's later revision: a style rule
    list's eight languages are targets only; a memory's bases are both, its regional codes
    targets; voice names spoken terms and translated speech with --beta."""
    style = invoke("languages", "--resource", "style_rules", "--demo", env=SMALL_DEMO)
    assert style.exit_code == 0, style.stderr
    lines = style.stdout.splitlines()
    assert lines[0] == "lang  name      source  target  features"
    assert [line.split()[:4] for line in lines[1:3]] == [
        ["de", "German", "no", "yes"],
        ["en", "English", "no", "yes"],
    ]
    assert len(lines) == 1 + 8
    memory = invoke(
        "languages", "--resource", "translation_memory", "--format", "csv", "--demo", env=SMALL_DEMO
    )
    assert memory.exit_code == 0, memory.stderr
    rows = memory.stdout.splitlines()
    assert rows[:3] == [
        "lang,name,source,target,features",
        "de,German,yes,yes,",
        "en,English,yes,yes,",
    ]
    assert "zh-Hans,Chinese (simplified),no,yes," in rows
    assert len(rows) == 1 + 8 + 5
    voice = invoke(
        "languages", "--resource", "voice", "--beta", "--format", "csv", "--demo", env=SMALL_DEMO
    )
    assert "de,German,yes,yes,glossary spoken_terms transcription translated_speech" in (
        voice.stdout.splitlines()
    )
    named = invoke("languages", "--resource", "voice", "--beta", "--demo", env=SMALL_DEMO)
    french = next(line for line in named.stdout.splitlines() if line.startswith("fr "))
    assert french.endswith(
        "Glossary, Spoken terms (beta), Transcription, Translated speech (early access)"
    )


# -- exit codes 4 and 1 ------------------------------------------------------------------------


def test_unreachable_service_exits_4_after_retries(tmp_path):
    env = {
        "SERVICE_BASE_URL": f"http://127.0.0.1:{free_port()}",
        "SERVICE_AUTH_KEY": RECOGNIZABLE_KEY,
    }
    result = invoke("export", "--period", "last-7-days", "-o", str(tmp_path / "u.csv"), env=env)
    assert result.exit_code == 4
    assert result.stderr.startswith("error: Connection failed: GET /v2/admin/analytics")
    assert len(result.stderr.strip().splitlines()) == 1
    assert RECOGNIZABLE_KEY not in result.stderr + result.stdout


def disk_full(*args, **kwargs):
    raise OSError(28, "No space left on device")


def test_unexpected_failure_exits_1_and_keeps_the_earlier_export(tmp_path, monkeypatch):
    out = tmp_path / "u.csv"
    out.write_text("previous export")
    monkeypatch.setattr(os, "replace", disk_full)
    result = invoke("export", "--period", "last-7-days", "-o", str(out), "--demo", env=SMALL_DEMO)
    assert result.exit_code == 1
    assert result.stderr == f"error: {out}: No space left on device\n"  # the file asked for
    assert out.read_text() == "previous export"
    # No temporary file left beside it; history/ holds the demo organization's store.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history", "u.csv"]


def test_debug_shows_the_traceback(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(OSError, match="No space left"):
        invoke(
            "export",
            "--period",
            "last-7-days",
            "-o",
            str(tmp_path / "u.csv"),
            "--demo",
            "--debug",
            env=SMALL_DEMO,
        )


def test_reconciliation_mismatch_warns_and_still_exports(tmp_path, monkeypatch, caplog):
    emulator_app = create_app(small_config())
    key = emulator_app.state.emulator.admin_key
    miscounting, _ = asgi_client(miscounting_app(emulator_app), key)
    monkeypatch.setattr(ServiceClient, "from_connection", lambda connection: miscounting)
    env = {"SERVICE_BASE_URL": "http://service.test", "SERVICE_AUTH_KEY": key}
    out = tmp_path / "u.csv"
    args = ["--start", "2025-04-01", "--end", "2025-05-31", "-o", str(out), "--no-history"]
    result = invoke("export", *args, env=env)
    assert result.exit_code == 0
    (line,) = result.stderr.splitlines()
    assert line.startswith("WARNING: Usage totals do not reconcile: window 2025-04-01..2025-05-31")
    assert_matches_ledger(
        read_export(out),
        emulator_app.state.emulator.ledger(dt.date(2025, 4, 1), dt.date(2025, 5, 31)),
    )


# -- over loopback, in a child process ---------------------------------------------------------


@pytest.fixture(scope="module")
def default_ledger(emulator_process):
    """The emulator process's organization (the default one), rebuilt in-process to compare."""
    app = create_app(EmulatorConfig(today=emulator_process.today))
    yield app.state.emulator
    app.state.emulator.store.close()


def test_refused_key_exits_3_without_printing_it(emulator_process, tmp_path):
    env = {"SERVICE_BASE_URL": emulator_process.base_url, "SERVICE_AUTH_KEY": RECOGNIZABLE_KEY}
    result = run_cli("export", "--period", "last-7-days", "-o", str(tmp_path / "u.csv"), env=env)
    assert result.returncode == 3
    assert result.stderr.startswith("error: 403 Forbidden: ")
    assert "(trace id " in result.stderr
    assert RECOGNIZABLE_KEY not in result.stdout + result.stderr
    assert not (tmp_path / "u.csv").exists()


def test_three_years_over_loopback_equal_the_ledger(emulator_process, default_ledger, tmp_path):
    """Acceptance: every key-day of three years, exported by the real command, is the ledger's."""
    today = default_ledger.today()
    start, end = today - dt.timedelta(days=1095), today - dt.timedelta(days=1)
    out = tmp_path / "three-years.csv"
    history = tmp_path / "history"
    env = {
        "SERVICE_BASE_URL": emulator_process.base_url,
        "SERVICE_AUTH_KEY": emulator_process.admin_key,
        "SERVICE_HISTORY_PATH": str(history),
    }
    args = ["export", "--start", start.isoformat(), "--end", end.isoformat(), "-o", str(out)]
    result = run_cli(*args, "--debug", env=env)
    assert result.returncode == 0, result.stderr
    ledger = default_ledger.ledger(start, end)
    assert len(ledger) > 5000
    exported = read_export(out)
    assert_matches_ledger(exported, ledger)
    assert (
        exported["total_characters"]
        == exported[
            [
                "text_translation_characters",
                "document_translation_characters",
                "text_improvement_characters",
            ]
        ].sum(axis=1)
    ).all()
    # The key appears nowhere: not in output, debug logs, the export or the history file name.
    key = emulator_process.admin_key
    assert key not in result.stdout + result.stderr
    assert key not in out.read_text()
    # The history store alone: a usage export reads no settings, so opens no state store.
    (stored,) = history.iterdir()
    assert key not in stored.name and stored.suffix == ".duckdb"

    # A second run uses the history store and writes the very same bytes.
    first_bytes = out.read_bytes()
    again = run_cli(*args, env=env)
    assert again.returncode == 0 and again.stderr == ""
    assert out.read_bytes() == first_bytes


def test_demo_export_as_a_child_process(tmp_path):
    out = tmp_path / "demo.csv"
    before = utc_today()  # the child resolves the preset on its own clock, in between
    result = run_cli("export", "--period", "last-7-days", "-o", str(out), "--demo", env=SMALL_DEMO)
    assert result.returncode == 0, result.stderr
    days = read_export(out)["usage_date"]
    after = utc_today()
    assert days.min() >= pd.Timestamp(before - dt.timedelta(days=7))
    assert days.max() <= pd.Timestamp(after - dt.timedelta(days=1))
    missing = run_cli("export", "--period", "last-7-days", "-o", str(out), env={})
    assert missing.returncode == 2 and "--demo" in missing.stderr
    usage = run_cli("export", "--frobnicate", env={})
    assert usage.returncode == 2


# -- a terminal sees progress, cron sees nothing -----------------------------------------------


def test_a_terminal_sees_each_window_arrive_and_cron_sees_nothing(tmp_path):
    """1,095 days are three windows: on a terminal the bar counts them; without one, the
    same export writes nothing to stderr."""
    env = {**SMALL_DEMO, "SERVICE_DEMO_DAYS": "1100", "COLUMNS": "120"}
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
    args = ["export", "--start", "2023-01-01", "--end", "2025-12-30", "--demo"]
    primary, secondary = pty.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "analytics", *args, "-o", str(tmp_path / "tty.csv")],
        cwd=ROOT,
        env={**clean, **env},
        stdout=subprocess.DEVNULL,
        stderr=secondary,
    ) as child:
        os.close(secondary)
        seen = b""
        while chunk := _read(primary):
            seen += chunk
        assert child.wait(timeout=300) == 0
    os.close(primary)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen.decode(errors="replace"))
    assert "Fetching usage 2023-01-01..2025-12-30" in text
    assert "3/3 windows" in text
    assert "Wrote " in text
    quiet = run_cli(*args, "-o", str(tmp_path / "cron.csv"), env=env)
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert (tmp_path / "tty.csv").read_bytes() == (tmp_path / "cron.csv").read_bytes()


def _read(descriptor: int) -> bytes:
    """What the child wrote to its terminal; empty once it has closed it."""
    try:
        return os.read(descriptor, 65536)
    except OSError:  # EIO: the child's side is closed
        return b""


# -- the plan ------------------------------------------------------------------------------------


def plan_output(*args: str, env: dict[str, str] | None = None) -> str:
    """What `plan ARGS` prints; the command must succeed."""
    result = invoke("plan", *args, env=env)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def serve_plan_org(monkeypatch, tmp_path, org: str) -> None:
    """The CLI's service: the organization file `org` (see `builders.plan_org`) on PLAN_TODAY."""
    app = file_app(tmp_path, org, today=PLAN_TODAY)
    serve_to_cli(monkeypatch, app, PLAN_ADMIN, PLAN_TODAY, tmp_path / "history")


def test_plan_as_a_table_and_as_json(monkeypatch, tmp_path):
    serve_plan_org(monkeypatch, tmp_path, plan_org())
    # 700 characters on closed days and 50 today; 800 by tonight, then 100 a day. Minutes
    # in the whole minutes the service bills.
    assert plan_output().splitlines() == [
        "Billing period: 2025-03-13 – 2025-04-12 (UTC)",
        "metric                    used  limit  used %  limit reached",
        "Characters                750   2,000  37.5\u202f%  2025-04-01 (projected)",
        "Speech-to-text minutes    4     600    0.7\u202f%   not within this billing period",
        "Speech-to-speech minutes  1     600    0.2\u202f%   not within this billing period",
    ]
    answer = json.loads(plan_output("--format", "json"))
    assert (answer["as_of"], answer["billing_period"]) == (
        "2025-03-20",
        {"start": "2025-03-13", "end": "2025-04-12"},
    )
    assert answer["metrics"][0] == {
        "metric": "characters",
        "used": 750,
        "limit": 2000,
        "used_share": 0.375,
        "projected": 3100,
        "limit_reached": "2025-04-01",
        "outlook": "projected",
    }
    assert [(m["metric"], m["limit_reached"], m["outlook"]) for m in answer["metrics"][1:]] == [
        ("speech_to_text_minutes", None, "not within this billing period"),
        ("speech_to_speech_minutes", None, "not within this billing period"),
    ]


def test_plan_of_a_free_plan_says_there_is_no_billing_period(monkeypatch, tmp_path):
    serve_plan_org(
        monkeypatch, tmp_path, plan_org("pro = false\nbilling_day = 13\ncharacter_limit = 500")
    )
    assert plan_output().splitlines() == [
        "Billing period: not reported by the service (free plan): no projection",
        "metric      used  limit  used %   limit reached",
        "Characters  750   500    150.0\u202f%  reached",
    ]


def test_plan_of_the_demo_organization_and_a_refused_key(monkeypatch, tmp_path):
    lines = plan_output("--demo", env=SMALL_DEMO).splitlines()
    connection = ServiceConnection(demo_keys=4, demo_days=90)
    plan = demo_app(connection.demo_seed, 4, 90).state.emulator.plan
    start, stop = plan.period(utc_today())
    assert lines[0] == f"Billing period: {start} – {stop - dt.timedelta(days=1)} (UTC)"
    assert [line.split("  ")[0] for line in lines[2:]] == [
        "Characters",
        "Speech-to-text minutes",
        "Speech-to-speech minutes",
    ]
    assert f"{plan.character_limit:,}" in lines[2]
    serve_to_cli(
        monkeypatch, demo_app(connection.demo_seed, 4, 90), RECOGNIZABLE_KEY, utc_today(), tmp_path
    )
    refused = invoke("plan")
    assert refused.exit_code == 3
    assert refused.stderr.startswith("error: 403 Forbidden: ")
    assert RECOGNIZABLE_KEY not in refused.stdout + refused.stderr


# -- money: pricing and teams files --------------------------------------------------------------


def cost_column(path: Path, column: str = "total_cost_eur") -> list[Decimal]:
    return [Decimal(v) for v in pd.read_csv(path, dtype=str)[column]]


def test_demo_exports_money_and_the_teams_add_up_to_the_organization(tmp_path):
    args = ["--period", "last-30-days", "--demo", "--with-cost"]
    for group_by in ("team", "none", "team_and_day", "key_and_day"):
        out = str(tmp_path / f"{group_by}.csv")
        result = invoke("export", *args, "--group-by", group_by, "-o", out, env=SMALL_DEMO)
        assert result.exit_code == 0, result.stderr
    teams = pd.read_csv(tmp_path / "team.csv", dtype=str)
    assert teams["team"].tolist() == [
        "Web shop",
        "Customer support",
        "Marketing",
        "Documents",
        "Internal tools",
        "Unassigned",
    ]
    [organization] = cost_column(tmp_path / "none.csv")
    assert organization > 0 and sum(cost_column(tmp_path / "team.csv")) == organization
    # By day, each team's rows add up to its row, the base fee share included.
    days = pd.read_csv(tmp_path / "team_and_day.csv", dtype=str)
    by_day = days.groupby("team")["total_cost_eur"].agg(lambda c: sum(map(Decimal, c)))
    per_team = zip(teams["team"], map(Decimal, teams["total_cost_eur"]), strict=True)
    assert by_day.to_dict() == {team: cost for team, cost in per_team if cost}
    assert sum(cost_column(tmp_path / "key_and_day.csv")) == organization
    assert all(len(v.split(".")[1]) == 2 for v in teams["total_cost_eur"])  # cents, exactly


def test_an_export_over_days_without_a_price_leaves_their_cost_empty_and_says_so(tmp_path):
    connection = ServiceConnection(demo_keys=4, demo_days=90)
    emu = demo_app(connection.demo_seed, connection.demo_keys, connection.demo_days).state.emulator
    yesterday = emu.today() - dt.timedelta(days=1)
    start = yesterday - dt.timedelta(days=89)  # the demo's whole history
    first_price = yesterday - dt.timedelta(days=29)
    prices = tmp_path / "pricing.toml"
    prices.write_text(  # a cent a character, minutes free, no fee
        f'currency = "EUR"\n[[price]]\nfrom = "{first_price}"\nunit_prices = {{ '
        "text_translation_characters = 10_000, document_translation_characters = 10_000, "
        "text_improvement_characters = 10_000, speech_to_text_minutes = 0 }\n"
    )
    out = tmp_path / "all.csv"
    args = ["--start", str(start), "--end", str(yesterday), "--demo", "--with-cost"]
    result = invoke("export", *args, "--pricing", str(prices), "-o", str(out), env=SMALL_DEMO)
    assert result.exit_code == 0, result.stderr
    last_unpriced = first_price - dt.timedelta(days=1)
    assert result.stderr == (
        f"warning: no price in force on {start}..{last_unpriced}; their cost cells are empty\n"
    )
    cents: dict[tuple[str, str], int] = {}
    for row in emu.ledger(start, yesterday):
        used = (
            row.text_translation_characters
            + row.document_translation_characters
            + row.text_improvement_characters
        )
        cents[str(row.usage_date), row.api_key] = (
            cents.get((str(row.usage_date), row.api_key), 0) + used
        )
    exported = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert len(exported) == len(cents)
    for row in exported.itertuples():
        if row.usage_date < str(first_price):
            assert row.usage_cost_eur == "", row
        else:
            assert Decimal(row.usage_cost_eur) == Decimal(cents[row.usage_date, row.api_key]) / 100
    assert (exported["usage_date"] < str(first_price)).sum() > 0


def test_pricing_toml_in_the_working_folder_is_read_by_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pricing.toml").write_text(
        'currency = "CHF"\n[[price]]\nfrom = "2020-01-01"\nunit_prices = { '
        "text_translation_characters = 1, document_translation_characters = 1, "
        "text_improvement_characters = 1, speech_to_text_minutes = 0 }\n"
    )
    result = invoke(
        "export", "--period", "last-7-days", "--demo", "--with-cost", "--group-by", "none",
        "-o", "t.csv", env=SMALL_DEMO,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "usage_cost_chf" in (tmp_path / "t.csv").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pricing", "teams.example.toml"], "teams.example.toml: Object contains unknown field"),
        (["--teams", "pricing.example.toml"], "pricing.example.toml: Object contains unknown"),
        (["--pricing", "absent.toml"], "absent.toml: no such file"),
    ],
)
def test_a_bad_money_file_is_one_error_line(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "u.csv"
    result = invoke("export", "--period", "last-7-days", *args, "-o", str(out), "--demo")
    assert result.exit_code == 2 and not out.exists()
    assert result.stderr.startswith(f"error: {message}") and result.stderr.count("\n") == 1


def test_team_groupings_and_cost_columns_need_their_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no pricing.toml nor teams.toml here, and no demo
    env = {"SERVICE_AUTH_KEY": "k", "SERVICE_BASE_URL": "http://127.0.0.1:9"}
    team = invoke("export", "--period", "last-7-days", "--group-by", "team", "-o", "u.csv", env=env)
    assert team.exit_code == 2 and "--group-by team needs a teams file" in team.stderr
    cost = invoke("export", "--period", "last-7-days", "--with-cost", "-o", "u.csv", env=env)
    assert cost.exit_code == 2 and "--with-cost needs a pricing file" in cost.stderr
