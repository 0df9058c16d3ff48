"""A rotation and the settings, from the command line against an emulated organization: the
alert routes' quiet days decide when `keys rotation finish` may deactivate the old key (the
organization file's ledger is the oracle of its last use), and a rotation saves the teams
document giving the replacement the old key's team, owner and purpose (the hand-made
document's text after it, and `export --group-by team` of the replacement's first days, are
the oracles); a team found by a label pattern the new label still matches is left as it is,
and with SETTINGS_SOURCE=files the rotation says what to add by hand."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest
from support.builders import invoke, serve_to_cli
from support.orgfiles import org_usage
from support.rotation_org import ADMIN, SPEECH, WEB, rotation_organization
from support.servers import file_app

from analytics.usage import calendar
from analytics.usage.calendar import CLOCK_VARIABLE

BEGUN = dt.date(2025, 7, 5)  # day 0 of the rotation
TODAY = BEGUN + dt.timedelta(days=5)  # analytics closed through day 4
ORG = rotation_organization(
    "2025-01-05T00:00:00Z",
    # The old key's last use is day 2 of the rotation: quiet for 2 whole days through day 4.
    *(org_usage(WEB, str(BEGUN + dt.timedelta(days=n)), text=700) for n in range(3)),
    org_usage(SPEECH, "2025-07-01", text=10),
    character_limit=90000,
    speech="Speech desk",
)
ROUTES = """base_url = "https://dash.example.org/usage"

[[webhook]]
kind = "json"
url_env = "HOOK_URL"
"""
TEAMS = """# Who pays for which key.
[[team]]
name = "Web"
owner = "web@example.org"
labels = ["Web shop"]  # the shop's key

[[team]]
name = "Support"
label_patterns = ["Speech*"]

[[key]]
key = "Web shop"
owner = "ana@example.org"
purpose = "Checkout"
"""
# TEAMS as the rotation leaves it: the new label beside the old one, and the new key's entry.
CARRIED = TEAMS.replace('["Web shop"]', '["Web shop", "Web shop (2025-07)"]') + (
    """
[[key]]
key = "Web shop (2025-07)"
owner = "ana@example.org"
purpose = "Checkout"
"""
)
ADDED = (
    '"Web shop (2025-07)" to labels of [[team]] "Web"; [[key]] key = "Web shop (2025-07)", '
    'owner = "ana@example.org", purpose = "Checkout"'
)


@pytest.fixture
def org(monkeypatch, tmp_path, instant_retries):
    """The organization served to the command line on TODAY, the working folder its settings
    are found in, and the clock at day 0 of the rotation while it begins."""
    monkeypatch.setenv(CLOCK_VARIABLE, f"{BEGUN}T09:30:00+00:00")
    app = file_app(tmp_path, ORG, today=TODAY)
    serve_to_cli(monkeypatch, app, ADMIN, TODAY, tmp_path / "history")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "edits").mkdir()
    yield app
    app.state.emulator.store.close()


def rotate(label: str, new_label: str):
    made = invoke("keys", "rotate", label, "--label", new_label, "--yes")
    assert made.exit_code == 0, made.output
    return made


def test_the_quiet_days_setting_decides_when_a_rotation_may_finish(org, tmp_path):
    (tmp_path / "alerts.toml").write_text(ROUTES + "\n[rotations]\nquiet_days = 3\n")
    rotate("Web shop", "Web shop (2025-07)")
    early = invoke("keys", "rotation", "finish", "1", "--yes")
    assert early.exit_code == 10
    assert "used on 2025-07-07: 700 characters" in early.stderr
    assert "It needs 3 quiet days, it has 2" in early.stderr
    shorter = tmp_path / "edits" / "alerts.toml"
    shorter.write_text(ROUTES + "\n[rotations]\nquiet_days = 1\n")
    assert invoke("settings", "import", str(shorter), "--yes").exit_code == 0
    done = invoke("keys", "rotation", "finish", "1", "--yes")
    assert done.exit_code == 0, done.output
    assert "rotation 1 finished: deactivated Web shop" in done.stderr
    keys = {k.label: k for k in org.state.emulator.store.developer_keys()}
    assert keys["Web shop"].deactivated is not None
    assert keys["Web shop (2025-07)"].deactivated is None


def exported(tmp_path, first: dt.date, last: dt.date) -> dict[str, int]:
    out = tmp_path / "teams.csv"
    result = invoke(
        "export", "-o", str(out), "--start", str(first), "--end", str(last), "--group-by", "team"
    )
    assert result.exit_code == 0, result.output
    rows = pd.read_csv(out)
    return dict(zip(rows["team"], rows["total_characters"], strict=True))


def test_the_replacement_keeps_its_old_keys_team_owner_and_purpose(org, tmp_path, monkeypatch):
    (tmp_path / "teams.toml").write_text(TEAMS)
    web = rotate("Web shop", "Web shop (2025-07)")
    assert f"teams settings, version 2: added {ADDED}\n" in web.stderr
    speech = rotate("Speech desk", "Speech desk (2025-07)")  # its pattern still matches
    assert "teams settings" not in speech.stderr
    saved = invoke("settings", "export", "--to", "now")
    assert saved.exit_code == 0, saved.output
    assert (tmp_path / "now" / "teams.toml").read_text() == CARRIED
    history = invoke("settings", "history", "teams").stdout
    assert "(rotation of Web shop)" in history and "(rotation of Speech" not in history
    # The replacements' first days: the chargeback holds them under their old keys' teams.
    store = org.state.emulator.store
    for day in (TODAY, TODAY + dt.timedelta(days=1)):
        store.record_usage(store.find_key(web.stdout.strip()), day, text=400)
        store.record_usage(store.find_key(speech.stdout.strip()), day, text=50)
    monkeypatch.setattr(calendar, "utc_today", lambda: TODAY + dt.timedelta(days=2))
    by_team = exported(tmp_path, TODAY, TODAY + dt.timedelta(days=1))
    assert {team: n for team, n in by_team.items() if n} == {"Web": 800, "Support": 100}


def test_with_settings_as_files_the_rotation_says_what_to_add_by_hand(org, tmp_path, monkeypatch):
    monkeypatch.setenv("SETTINGS_SOURCE", "files")
    (tmp_path / "teams.toml").write_text(TEAMS)
    made = rotate("Web shop", "Web shop (2025-07)")
    said = [line for line in made.stderr.splitlines() if "teams.toml" in line]
    assert said == [
        f"the settings are files here (SETTINGS_SOURCE=files): add to teams.toml by hand: {ADDED}"
    ]
    assert (tmp_path / "teams.toml").read_text() == TEAMS
