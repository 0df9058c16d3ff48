"""Rotation reminders through `check-rotations --notify`: an old key still used two weeks
after its rotation began and a key older than the maximum age (the alert routes' settings)
reach a real webhook receiver and a real SMTP server on loopback, once per level; a later
reminder day in the settings sends none for the old key, unless `--after` overrides it. The
organization file (what each key used, when each was created) is the oracle."""

from __future__ import annotations

import datetime as dt

import pandas as pd
from support.builders import invoke, serve_to_cli
from support.orgfiles import ORG_ADMIN, admin_organization, org_key, org_usage
from support.receivers import HOOK, alert_receivers
from support.servers import file_app

from analytics.alerts.rotation_events import rotation_events
from analytics.keys.join import masked
from analytics.keys.rotation import Rotation, RotationLog, watch
from analytics.service.service_connection import ServiceConnection
from analytics.usage.records import records_of

BEGUN = dt.date(2025, 3, 1)
TODAY = BEGUN + dt.timedelta(days=20)
MAX_AGE = "max_age_days = 365"  # the alert routes' maximum key age
OLD, NEW = "old0key-0001-1111-2222-oldd", "new0key-0002-3333-4444-neww"
ORG = admin_organization(
    org_key(OLD, "Web shop", 'created = "2024-01-01T00:00:00Z"'),
    org_key(NEW, "Web shop (2025-03)", 'created = "2025-03-01T09:00:00Z"'),
    org_usage(OLD, "2025-03-01", text=30_000),
    org_usage(OLD, "2025-03-16", text=12_400),  # 15 days after the rotation began
    *(org_usage(NEW, str(BEGUN + dt.timedelta(days=n)), text=1_000) for n in range(20)),
)


def test_reminders_are_delivered_once(monkeypatch, tmp_path, instant_retries):
    app = file_app(tmp_path, ORG, today=TODAY)
    serve_to_cli(monkeypatch, app, ORG_ADMIN, TODAY, tmp_path / "history")
    monkeypatch.chdir(tmp_path)
    records = records_of(ServiceConnection(), demo=False)
    assert records is not None
    keys = {k.label: k.published_id for k in app.state.emulator.store.developer_keys()}
    RotationLog(records).claim(
        Rotation(
            old_key_id=keys["Web shop"],
            old_label="Web shop",
            old_api_key=masked(OLD),
            new_key_id=keys["Web shop (2025-03)"],
            new_label="Web shop (2025-03)",
            new_api_key=masked(NEW),
            who="ops@example.org",
            started=dt.datetime(2025, 3, 1, 9, tzinfo=dt.UTC),
        )
    )
    with alert_receivers(monkeypatch, tmp_path) as (mailbox, hooks, routes):
        with routes.open("a", encoding="utf-8") as file:  # the maximum age is a setting
            file.write(f"\n[rotations]\n{MAX_AGE}\n")
        first = invoke("check-rotations", "--notify")
        assert first.exit_code == 0, first.output
        subjects = [
            "Key rotation 1: Web shop still in use 14 days after it began",
            "Key Web shop is older than 365 days",
        ]
        assert mailbox.subjects == subjects
        posted = {body["subject"]: body for body in hooks.at(HOOK)}
        assert list(posted) == subjects
        assert posted[subjects[0]]["level"] == "warning"
        assert (
            "The old key was used on 2025-03-16: 12,400 characters" in posted[subjects[0]]["text"]
        )
        assert posted[subjects[1]]["level"] == "info"
        # The key named by label and masked key id, which `keys rotate` takes; never its id.
        web_shop = f"{keys['Web shop'][:4]}****{keys['Web shop'][-4:]}"
        aged = posted[subjects[1]]["text"]
        assert aged.startswith(f"Web shop ({web_shop}) was created on ")
        assert aged.endswith(f"with keys rotate {web_shop}.") and keys["Web shop"] not in aged
        again = invoke("check-rotations", "--notify")
        assert again.exit_code == 0, again.output
        assert len(mailbox.messages) == 2 and len(hooks.at(HOOK)) == 2
    # Reminded 16 days on, the old key's use 15 days on is no reminder; --after overrides it.
    later = tmp_path / "edits" / "alerts.toml"
    later.parent.mkdir()
    # The setting named whole: the receivers' ports are in the file too, and one may read 365.
    later.write_text(routes.read_text().replace(MAX_AGE, f"{MAX_AGE}\nremind_after_days = 16"))
    imported = invoke("settings", "import", str(later), "--yes")
    assert imported.exit_code == 0, imported.output
    assert invoke("check-rotations").stdout == f"info: {subjects[1]}\n"
    overridden = invoke("check-rotations", "--after", "15")
    assert (
        overridden.stdout
        == "warning: Key rotation 1: Web shop still in use 15 days after it began\n"
        + f"info: {subjects[1]}\n"
    )


def test_an_old_key_last_used_before_the_reminder_day_is_no_reminder():
    rotation = Rotation(
        old_key_id="old",
        old_label="Web shop",
        old_api_key="old0****oldd",
        new_label="Web shop (2025-03)",
        who="ops",
        started=dt.datetime(2025, 3, 1, 9, tzinfo=dt.UTC),
    )
    days = pd.to_datetime(["2025-03-01", "2025-03-14", "2025-03-15"])
    frame = pd.DataFrame(
        {
            "usage_date": days,
            "api_key": ["old0****oldd"] * 3,
            "total_characters": [5, 5, 0],
            "speech_to_text_minutes": [0.0, 0.0, 0.0],
        }
    )
    seen = watch(rotation, frame, dt.date(2025, 3, 20))
    assert seen.last_used == dt.date(2025, 3, 14)  # 13 days after it began
    assert rotation_events([seen], after_days=14) == []
    assert len(rotation_events([seen], after_days=13)) == 1
