"""`keys` commands against an emulated organization: the list in three formats, each change
with its exit codes, keys named by id, mask or label, the audit log, the secret on stdout
alone and nowhere else, and the official client refused once the command line caps its key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import deepl
import pytest
from support import kept
from support.builders import serve_to_cli
from support.faultserver import FaultServer, Reply
from support.orgfiles import KEYS_ADMIN, KEYS_ORG, KEYS_SPEECH, KEYS_TODAY, KEYS_WEB
from support.servers import ROOT, emulator_server, file_app
from typer.testing import CliRunner

from analytics.cli import app
from analytics.cli import keys as keys_cli
from analytics.keys.join import masked

runner = CliRunner()


def serve_as(monkeypatch, tmp_path: Path, key: str) -> Path:
    """The keys organization served to the command line, used with `key`; its history
    folder."""
    history = tmp_path / "history"
    serve_to_cli(
        monkeypatch, file_app(tmp_path, KEYS_ORG, today=KEYS_TODAY), key, KEYS_TODAY, history
    )
    return history


@pytest.fixture
def served(monkeypatch, tmp_path, instant_retries):
    """The keys organization served to the command line, as its admin."""
    return serve_as(monkeypatch, tmp_path, KEYS_ADMIN)


def keys(*args: str, stdin: str | None = None):
    return runner.invoke(app, ["keys", *args], input=stdin)


def listed(*args: str) -> dict[str, dict]:
    result = keys("list", "--format", "json", *args)
    assert result.exit_code == 0, result.output
    return {row["label"]: row for row in json.loads(result.stdout)}


def test_the_list_shows_every_key_against_its_limits(served):
    rows = listed()
    assert list(rows) == ["Web shop", "Speech", "Planned"]
    web = rows["Web shop"]
    assert (web["api_key"], web["state"], web["last used"]) == (
        "ab12****ef56",
        "active",
        "2025-07-09",
    )
    assert (web["characters"], web["character limit"]) == (900, 1000)
    assert web["character limit reached"] == "2025-07-10 (projected)"
    assert (rows["Speech"]["speech minutes"], rows["Speech"]["speech minute limit"]) == (2.5, 10)
    assert rows["Planned"]["state"] == "never used"
    assert listed("--all")["Admin"]["state"] == "not in the key list"
    table = keys("list")
    assert table.exit_code == 0
    assert table.stdout.splitlines()[0].split()[:3] == ["label", "state", "characters"]
    assert "900" in table.stdout and "1,000" in table.stdout
    csv = keys("list", "--format", "csv")
    assert csv.stdout.splitlines()[0].startswith("label,state,characters,character limit,")
    assert len(csv.stdout.splitlines()) == 4


def test_create_prints_the_secret_alone_and_keeps_it_nowhere(served):
    result = keys("create", "--label", "Mobile app")
    assert result.exit_code == 0, result.output
    secret = result.stdout.strip()
    assert result.stdout == secret + "\n" and len(secret) > 8
    assert secret not in result.stderr and "Mobile app" in result.stderr
    assert "Mobile app" in listed()
    audit = keys("audit", "--format", "json")
    [entry] = json.loads(audit.stdout)
    assert (entry["action"], entry["outcome"], entry["masked_key"]) == (
        "create",
        "done",
        masked(secret),
    )
    for path in served.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    assert secret not in audit.stdout + keys("audit").stdout


def test_keys_are_named_by_id_mask_or_unique_label(served):
    web_id = listed()["Web shop"]["key_id"]
    assert keys("rename", "ab12****ef56", "Web store").exit_code == 0  # the analytics mask
    assert keys("rename", web_id, "Web shop").exit_code == 0  # the key id
    result = keys("limit", "Web shop", "--characters", "5000", "--speech-minutes", "3")
    assert result.exit_code == 0, result.output
    assert "Web shop: characters 1,000 → 5,000; speech-to-text minutes no limit → 3" in (
        result.stderr
    )
    assert listed()["Web shop"]["character limit"] == 5000
    assert keys("limit", "Web shop", "--characters", "none").exit_code == 0
    assert listed()["Web shop"]["character limit"] is None
    # `keys audit` writes each entry's before and after as the page's audit table does.
    audited = keys("audit").stdout
    assert "label: Web store; characters: 1,000; speech-to-text minutes: no limit" in audited
    assert "label: Web shop; characters: 5,000; speech-to-text minutes: 3" in audited
    assert "'Web shop'" not in audited


def test_a_key_joined_by_its_label_keeps_its_usage_through_renames_by_any_name(served):
    """Speech's key id does not start and end as its secret, so its usage (2.5 minutes,
    under the mask spee****cccc and the label Speech) is joined by label. Renamed by its label,
    then by its key id, then capped by its new label, it keeps that usage on its own row: no
    row of usage nobody owns appears under the old label."""
    speech = listed("--all")["Speech"]
    assert (speech["api_key"], speech["joined by"]) == ("spee****cccc", "label")
    assert keys("rename", "Speech", "Voice").exit_code == 0
    assert keys("rename", speech["key_id"], "Voice notes").exit_code == 0
    assert keys("limit", "Voice notes", "--speech-minutes", "20").exit_code == 0
    rows = listed("--all")
    assert "Speech" not in rows and "Voice" not in rows
    voice = rows["Voice notes"]
    assert (voice["key_id"], voice["api_key"], voice["joined by"]) == (
        speech["key_id"],
        "spee****cccc",
        "recorded",
    )
    assert (voice["speech minutes"], voice["speech minute limit"]) == (2.5, 20)


def test_an_unknown_or_ambiguous_key_exits_2_listing_the_candidates(served):
    unknown = keys("rename", "web shp", "x")
    assert unknown.exit_code == 2
    assert "no key is named 'web shp'; did you mean 'Web shop'?" in unknown.stderr
    assert listed()["Speech"]["key_id"] not in unknown.stderr  # a suggestion, not every key
    assert keys("create", "--label", "Twin").exit_code == 0
    twin = keys("create", "--label", "Twin")
    assert twin.exit_code == 2 and "already the label of another key, Twin (" in twin.stderr
    assert listed()["Twin"]["key_id"] not in twin.stderr  # named by label and masked key id
    assert keys("create", "--label", "Twin", "--allow-duplicate").exit_code == 0
    ambiguous = keys("limit", "Twin", "--characters", "1")
    assert ambiguous.exit_code == 2
    assert "'Twin' names 2 keys" in ambiguous.stderr
    assert [e["outcome"] for e in json.loads(keys("audit", "--format", "json").stdout)] == [
        "done",
        "done",
    ]  # nothing was attempted on an ambiguous name


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["limit", "Web shop"], "give --characters or --speech-minutes"),
        (["limit", "Web shop", "--characters", "lots"], "must be a whole number or none"),
        (["limit", "Web shop", "--speech-minutes", "-1"], "must be 0 or more"),
        (["rename", "Web shop", "  "], "the label is empty"),
        (["rename", "Web shop", "x" * 101], "at most 100 are allowed"),
        (["deactivate", "Web shop"], "give --yes to confirm in a script"),
    ],
)
def test_bad_arguments_exit_2(served, args, message):
    result = keys(*args)
    assert result.exit_code == 2 and message in result.stderr


def test_deactivation_asks_for_the_label_on_a_terminal(served, monkeypatch):
    monkeypatch.setattr(keys_cli, "at_terminal", lambda: True)
    wrong = keys("deactivate", "Web shop", stdin="Web\n")
    assert wrong.exit_code == 2 and "the label did not match" in wrong.stderr
    assert listed()["Web shop"]["state"] == "active"
    right = keys("deactivate", "Web shop", stdin="Web shop\n")
    assert right.exit_code == 0, right.output
    assert listed("--all")["Web shop"]["state"] == "deactivated"
    again = keys("deactivate", "Web shop", "--yes")
    assert again.exit_code == 0 and "already deactivated" in again.stderr
    outcomes = [
        (e["action"], e["outcome"]) for e in json.loads(keys("audit", "--format", "json").stdout)
    ]
    assert outcomes == [("deactivate", "done")]


def test_a_key_without_admin_rights_exits_3_and_the_refusal_is_audited(
    monkeypatch, tmp_path, instant_retries
):
    serve_as(monkeypatch, tmp_path, KEYS_WEB)
    assert keys("list").exit_code == 3
    refused = keys("create", "--label", "Mine")  # the key list it checks labels on is refused
    assert refused.exit_code == 3 and "403" in refused.stderr
    assert json.loads(keys("audit", "--format", "json").stdout) == []  # nothing was sent


def test_the_official_client_is_refused_once_the_command_line_caps_its_key(tmp_path):
    """A character limit of 0 set by `keys limit` stops the service's own client library with
    456; removing it lets the key translate again."""
    org = tmp_path / "org.toml"
    org.write_text(KEYS_ORG)
    options = ("--org", str(org), "--auth-scheme", "DeepL-Auth-Key")
    with emulator_server(*options, today=KEYS_TODAY) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")} | {
            "SERVICE_BASE_URL": server.base_url,
            "SERVICE_AUTH_KEY": KEYS_ADMIN,
            "SERVICE_AUTH_SCHEME": "DeepL-Auth-Key",
            "SERVICE_HISTORY_PATH": str(tmp_path / "history"),
        }

        def command(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, "-m", "analytics", "keys", *args],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )

        translator = deepl.Translator(KEYS_SPEECH, server_url=server.base_url)
        try:
            assert translator.translate_text("Hello", target_lang="DE").text
            capped = command("limit", "Speech", "--characters", "0")
            assert capped.returncode == 0, capped.stderr
            with pytest.raises(deepl.QuotaExceededException):
                translator.translate_text("Hello again", target_lang="DE")
            assert command("limit", "Speech", "--characters", "none").returncode == 0
            assert translator.translate_text("Hello at last", target_lang="DE").text
        finally:
            translator.close()
        assert KEYS_ADMIN not in capped.stdout + capped.stderr
    entries = kept.audit_entries(tmp_path / "history")
    assert [(e["action"], e["outcome"], e["after"]["characters"]) for e in entries] == [
        ("limit", "done", 0),
        ("limit", "done", None),
    ]


def check_budgets(*args: str):
    return runner.invoke(app, ["check-budgets", *args])


def test_check_budgets_checks_every_keys_own_limits(served, tmp_path, monkeypatch):
    """No budgets file: the keys' own limits alone, warning at 80 % used or projected and
    exceeded at the limit, with alerts like any budget's."""
    monkeypatch.chdir(tmp_path)
    warned = check_budgets()
    assert warned.exit_code == 10, warned.output
    lines = {line.split("  ")[0]: line for line in warned.stdout.splitlines()[1:]}
    web = lines["Web shop (ab12****ef56) · key limit · characters"]
    assert "900" in web and "1,000" in web and web.endswith("warning")
    speech = lines["Speech (spee****cccc) · key limit · speech-to-text minutes"]
    # 2.5 minutes on Wednesday 2 July, the first use, and none since: a Wednesday's rhythm,
    # 2.5 over the 8 days used so far, 0.3125 a day times 7 on each of the period's three
    # Wednesdays left, 6.5625; with the 2.5 used, 9.06 of 10.
    assert "2.50" in speech and "10.00" in speech and "9.06" in speech
    assert speech.endswith("warning")
    assert keys("limit", "Web shop", "--characters", "900").exit_code == 0
    exceeded = check_budgets()
    assert exceeded.exit_code == 11
    (tmp_path / "alerts.toml").write_text(
        'base_url = "https://dash.example.org/usage"\n'
        '[[webhook]]\nname = "ops"\nkind = "slack"\nurl_env = "KEYS_TEST_HOOK"\n'
    )
    monkeypatch.setenv("KEYS_TEST_HOOK", "https://hooks.example.org/T000/secret")
    shown = check_budgets("--notify", "--dry-run")
    assert shown.exit_code == 11
    message = shown.stdout.split("--- dry run")[1]
    assert "Web shop (ab12****ef56) · key limit · characters" in message
    assert "Keys: Web shop (ab12****ef56)" in message
    assert check_budgets("--no-key-limits").exit_code == 2  # and nothing else to check


def test_check_budgets_with_a_key_that_cannot_list_keys_needs_a_file(
    monkeypatch, tmp_path, instant_retries
):
    serve_as(monkeypatch, tmp_path, KEYS_WEB)
    monkeypatch.chdir(tmp_path)
    result = check_budgets()
    assert result.exit_code == 2
    assert "only an admin key can list keys" in result.stderr
    assert "nothing to check" in result.stderr


def test_the_meeting_report_lists_keys_against_their_limits(served, tmp_path):
    out = tmp_path / "report.html"
    args = ["report", "--start", "2025-07-01", "--end", "2025-07-09", "--output", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    section = out.read_text().split("<h2>Keys against their own limits</h2>")[1]
    assert "Web shop (ab12****ef56) · key limit · characters" in section
    assert "Speech (spee****cccc) · key limit · speech-to-text minutes" in section


def test_a_create_whose_answer_is_lost_exits_4_and_is_not_sent_again(
    monkeypatch, tmp_path, instant_retries
):
    app_ = file_app(tmp_path, KEYS_ORG, today=KEYS_TODAY)
    # The key list (for the label check) is answered; the create's answer is lost.
    with FaultServer(app_, [Reply(), Reply(action="reset"), Reply()]) as server:
        monkeypatch.setenv("SERVICE_BASE_URL", server.base_url)
        monkeypatch.setenv("SERVICE_AUTH_KEY", KEYS_ADMIN)
        lost = keys("create", "--label", "Lost")
        assert lost.exit_code == 4
        assert "may or may not have been created" in lost.stderr and lost.stdout == ""
        assert len(server.seen) == 2
        assert "Lost" in listed()  # made once; the list says so
    [entry] = json.loads(keys("audit", "--format", "json").stdout)
    assert (entry["action"], entry["outcome"]) == ("create", "unknown")


def test_the_secret_stays_off_the_debug_log(served):
    made = keys("create", "--label", "Debugged", "--debug")
    assert made.exit_code == 0
    secret = made.stdout.strip()
    assert "DEBUG" in made.stderr and secret not in made.stderr


def test_json_writes_whole_numbers_as_integers(served):
    """A count is `900`, never `900.0`, even in a column where another key has no limit. The
    only fractions are Speech's 2.5 minutes (the organization file's) and the plan's share of
    speech minutes, 3 of 600."""
    fractions: list[str] = []

    def parsed(*command: str) -> list[dict]:
        result = runner.invoke(app, list(command))
        assert result.exit_code == 0, result.output
        return json.loads(
            result.stdout, parse_float=lambda text: fractions.append(text) or float(text)
        )

    rows = parsed("keys", "list", "--format", "json", "--all")
    metrics = parsed("plan", "--format", "json")["metrics"]
    assert [(r["label"], r["characters"], r["character limit"]) for r in rows] == [
        ("Web shop", 900, 1000),
        ("Speech", 0, None),
        ("Planned", 0, None),
        ("Admin", 7, None),
    ]
    assert [(m["used"], m["limit"]) for m in metrics] == [(907, None), (3, 600), (0, 600)]
    assert fractions == ["2.5", "0.005"]


def test_a_rotation_from_the_command_line(served):
    """`keys rotate` prints the replacement's secret alone and keeps it nowhere; a second
    rotation of the key is refused; `keys rotation finish` refuses while the old key has not
    been quiet for three days (exit 10), and --force deactivates it, recorded as forced."""
    made = keys("rotate", "Web shop", "--yes")
    assert made.exit_code == 0, made.output
    secret = made.stdout.strip()
    assert made.stdout == secret + "\n" and len(secret) > 8 and secret not in made.stderr
    rows = listed()
    new_label = next(label for label in rows if label.startswith("Web shop ("))
    assert rows[new_label]["character limit"] == 1000  # the old key's limit
    again = keys("rotate", "Web shop", "--label", "Web shop (B)", "--yes")
    assert again.exit_code == 2 and "already being rotated" in again.stderr
    old_id = next(
        r["key_id"]
        for r in json.loads(keys("list", "--format", "json").stdout)
        if r["label"] == "Web shop"
    )
    # Named as people read a key: its label and masked key id, never the two-UUID key id.
    assert f"Web shop ({old_id[:4]}****{old_id[-4:]}) is already being rotated" in again.stderr
    assert old_id not in again.stderr
    [rotation] = json.loads(keys("rotation", "list", "--format", "json").stdout)
    assert rotation["rotation"]["state"] == "watching"
    assert rotation["rotation"]["new_api_key"] == masked(secret)
    early = keys("rotation", "finish", str(rotation["rotation"]["id"]), "--yes")
    assert early.exit_code == 10 and "it has 0" in early.stderr
    assert listed()["Web shop"]["state"] == "active"
    forced = keys("rotation", "finish", str(rotation["rotation"]["id"]), "--yes", "--force")
    assert forced.exit_code == 0, forced.output
    assert "finished (forced)" in forced.stderr
    assert listed("--all")["Web shop"]["state"] == "deactivated"
    table = keys("rotation", "list")
    assert table.stdout.splitlines()[0].split()[:2] == ["rotation", "state"]
    assert "finished" in table.stdout
    # Booleans in words, ids masked: no Python repr, no line of raw key ids.
    _header, row = table.stdout.splitlines()
    assert "True" not in row and "False" not in row and row.split()[-1] == "yes"
    assert old_id not in table.stdout and f"Web shop ({old_id[:4]}****{old_id[-4:]})" in row
    audit = keys("audit", "--format", "json").stdout
    actions = [(e["action"], e["outcome"]) for e in json.loads(audit)]
    assert actions == [("create", "done"), ("limit", "done"), ("deactivate", "done")]
    assert secret not in audit + table.stdout + keys("rotation", "list", "--format", "json").stdout
    for path in served.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


def test_keys_list_writes_limits_in_the_pages_words(served):
    """`keys list` says "no limit" where a key has none, as the Keys & limits page does: a
    "-" would read as unknown. JSON keeps null."""
    table = keys("list", "--all")
    assert table.exit_code == 0, table.output
    _header, *rows = table.stdout.splitlines()
    web = next(line for line in rows if line.startswith("Web shop"))
    speech = next(line for line in rows if line.startswith("Speech"))
    assert "1,000" in web and "no limit" in speech


def test_a_key_is_named_by_its_label_and_masked_key_id_where_people_read(served):
    """`keys list` and `keys audit` as a table or CSV name each key by its label and masked
    key id, never by the key id itself: that is JSON's, for programs."""
    ids = {label: row["key_id"] for label, row in listed("--all").items() if row["key_id"] != "-"}
    assert keys("rename", "Speech", "Speech desk").exit_code == 0
    for fmt in ("table", "csv"):
        for shown in (keys("list", "--all", "--format", fmt), keys("audit", "--format", fmt)):
            assert shown.exit_code == 0, shown.output
            assert not [key_id for key_id in ids.values() if key_id in shown.stdout]
    speech = ids["Speech"]
    named = f"Speech desk ({speech[:4]}****{speech[-4:]})"
    assert named in keys("list", "--format", "csv").stdout
    assert named in keys("audit").stdout
    assert speech in keys("audit", "--format", "json").stdout
