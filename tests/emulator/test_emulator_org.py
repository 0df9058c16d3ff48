"""Organizations: the TOML file format and its errors, the synthetic generator, the database."""

from __future__ import annotations

import datetime as dt
import socket
import sqlite3
import subprocess
import sys

import httpx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.orgfiles import load_org, org_file_error, org_key, organization
from support.servers import ROOT, auth, small_config

from bench.processes import stop_process, wait_until_healthy
from emulator import EmulatorConfig, create_app
from emulator.ledger import USAGE_RECORD, UsageRows
from emulator.orgfile import OrgFileError, load
from emulator.synthetic import RELABELLED_TO, SIGNATURE_KEYS, generate

TODAY = dt.date(2025, 6, 1)
GOOD = """
[[keys]]
key = "k-admin-0000-0001:adm"
label = "Ops"
admin = true

[[keys]]
key = "k-plain-0000-0002"

[[usage]]
key = "k-plain-0000-0002"
date = "2025-01-02"
text_translation_characters = 5
"""


def write(tmp_path, text):
    path = tmp_path / "org.toml"
    path.write_text(text)
    return path


def test_org_file_loads_with_defaults(tmp_path):
    org = load(write(tmp_path, GOOD))
    assert [k.label for k in org.keys] == ["Ops", ""]
    assert org.keys[1].admin is False and org.keys[1].detect_beta is False
    assert org.admin_key == "k-admin-0000-0001:adm"
    assert org.usage == [("2025-01-02", 1, "", 5, 0, 0, 0.0, 0.0)]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (GOOD + '[[usage]]\nkey = "nobody"\ndate = "2025-01-02"\n', "not listed"),
        (GOOD + '[[usage]]\nkey = "k-admin-0000-0001:adm"\ndate = "2025-02-30"\n', "YYYY-MM-DD"),
        (GOOD + '[[usage]]\nkey = "k-admin-0000-0001:adm"\ndate = "yesterday"\n', "YYYY-MM-DD"),
        (
            GOOD + '[[usage]]\nkey = "k-admin-0000-0001:adm"\ndate = "2025-01-03"\n'
            "text_translation_characters = -1\n",
            "non-negative",
        ),
        (
            GOOD + '[[usage]]\nkey = "k-admin-0000-0001:adm"\ndate = "2025-01-03"\n'
            "speech_to_text_minutes = -0.5\n",
            "non-negative",
        ),
        (
            GOOD + '[[usage]]\nkey = "k-admin-0000-0001:adm"\ndate = "2025-01-03"\n'
            "speech_to_speech_minutes = -1\n",
            "non-negative number",
        ),
        (
            GOOD + '[[usage]]\nkey = "k-admin-0000-0001:adm"\ndate = "2025-01-03"\n'
            "document_translation_characters = 1.5\n",
            "integer",
        ),
        (
            GOOD + '[[usage]]\nkey = "k-admin-0000-0001:adm"\ndate = "2025-01-03"\ncolour = 1\n',
            "unknown field",
        ),
        (GOOD + '[[usage]]\nkey = "k-plain-0000-0002"\ndate = "2025-01-02"\n', "repeats"),
        (GOOD + '[[keys]]\nkey = "k-plain-0000-0002"\n', "twice"),
        (GOOD + '[[keys]]\nkey = ""\n', "non-empty"),
        (GOOD + '[[keys]]\nkey = "k-other"\nadmin = "yes"\n', "true or false"),
        (GOOD + "[settings]\nx = 1\n", "unknown table"),
        ("keys = 3\n", "array of tables"),
        ("[[usage]]\n", "at least one"),
        ("[[keys]\n", "not valid TOML"),
    ],
)
def test_org_file_errors_are_clear(tmp_path, text, fragment):
    with pytest.raises(OrgFileError) as caught:
        load(write(tmp_path, text))
    assert fragment in str(caught.value)
    assert "k-admin-0000-0001:adm" not in str(caught.value)


# A key's tags and pairs, each broken one way, and what the loader's message says of it.
TAG_RULES = [
    ('[{ tag = "a", share = 0 }]', "share must be a number above 0 and at most 1"),
    ('[{ tag = "a", share = 1.5 }]', "share must be a number above 0"),
    ('[{ tag = "a", share = "half" }]', "share must be a number"),
    ('[{ tag = "a", share = true }]', "share must be a number"),
    ('[{ tag = "", share = 0.1 }]', "tag must be a non-empty string"),
    ("[{ share = 0.1 }]", "tag must be a non-empty string"),
    ('[{ tag = "a", share = 0.1 }, { tag = "a", share = 0.2 }]', "listed twice"),
    ('[{ tag = "a", share = 0.6 }, { tag = "b", share = 0.5 }]', "add up to more than 1"),
    ('[{ tag = "a", share = 0.1, first = 2025-03-02, last = 2025-03-01 }]', "before first"),
    ('[{ tag = "a", share = 0.1, first = "March" }]', "first must be a day"),
    ('[{ tag = "a", share = 0.1, colour = "red" }]', "unknown field"),
    ('"a"', "tags must be an array of tables"),
]
PAIR_RULES = [
    ('[{ source = "en" }]', "target must be a language code"),
    ('[{ source = "-", target = "de" }]', "source must be a language code"),
    ('[{ source = "english", target = "de" }]', "source must be a language code"),
    ('[{ source = "en", target = "de", weight = 0 }]', "weight must be a positive integer"),
    ('[{ source = "en", target = "de", weight = 0.5 }]', "weight must be a positive integer"),
    ('[{ source = "en", target = "de", attributed = "no" }]', "attributed must be true or"),
    ('[{ source = "en", target = "de" }, { source = "en", target = "de" }]', "twice"),
    ('[{ source = "en", target = "de", share = 1 }]', "unknown field"),
    ("[1]", "pairs must be an array of tables"),
]


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [("tags", *rule) for rule in TAG_RULES] + [("pairs", *rule) for rule in PAIR_RULES],
)
def test_a_key_s_tags_and_pairs_follow_the_file_rules(tmp_path, field, value, fragment):
    key = "k-admin-0000-0001:adm"
    message = org_file_error(tmp_path, f'[[keys]]\nkey = "{key}"\n{field} = {value}\n')
    assert fragment in message and "keys[0]" in message and key not in message


@pytest.mark.parametrize(
    ("flags", "chosen"),
    [
        ({"a": "admin = true", "b": "admin = true\ndetect_beta = true"}, "keyb-0000-0002:adm"),
        ({"a": "admin = true", "b": "admin = true"}, "keya-0000-0001:adm"),
        ({"a": "detect_beta = true", "b": ""}, None),
    ],
)
def test_admin_key_prefers_an_admin_in_the_detection_beta(tmp_path, flags, chosen):
    text = "".join(
        f'[[keys]]\nkey = "key{name}-0000-000{i}{":adm" * ("admin" in flags[name])}"\n'
        f"{flags[name]}\n"
        for i, name in enumerate(("a", "b"), start=1)
    )
    assert load(write(tmp_path, text)).admin_key == chosen


@pytest.mark.parametrize(("plan", "most"), [("", 25), ("[plan]\npro = false\n", 2)])
def test_an_org_file_keeps_the_active_key_rule(tmp_path, plan, most):
    """At most 25 developer keys active at once (2 on the free plan), as the service allows:
    admin keys and deactivated keys do not count, and one active key more is refused with a
    message giving both figures."""

    def keys(active: int) -> str:
        return organization(
            plan,
            org_key("k-admin-0000-0001:adm", "Ops", admin=True),
            org_key("k-gone-0000-0002", "Gone", 'deactivated = "2025-01-01T00:00:00Z"'),
            *(org_key(f"k-{n:04d}-0000-{n:04d}", f"Key {n}") for n in range(active)),
        )

    assert len(load_org(tmp_path, keys(most)).keys) == most + 2
    message = org_file_error(tmp_path, keys(most + 1))
    assert f"{most + 1} developer keys are active" in message and f"at most {most}" in message


def test_missing_org_file(tmp_path):
    with pytest.raises(OrgFileError, match="cannot read"):
        load(tmp_path / "absent.toml")


async def test_org_file_serves_its_usage(tmp_path):
    app = create_app(EmulatorConfig(org_file=write(tmp_path, GOOD), today=TODAY))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://e", headers=auth("k-admin-0000-0001:adm")
    ) as client:
        body = (
            await client.get(
                "/v2/admin/analytics", params={"start_date": "2025-01-01", "end_date": "2025-02-01"}
            )
        ).json()
    assert body["usage_report"]["total_usage"]["text_translation_characters"] == 5


def test_cli_reports_a_bad_org_file(tmp_path):
    path = write(tmp_path, GOOD + '[[usage]]\nkey = "ghost"\ndate = "2025-01-02"\n')
    result = subprocess.run(
        [sys.executable, "-m", "emulator", "--port", "0", "--org", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "not listed" in result.stderr
    assert "Emulator listening" not in result.stdout


def test_cli_serves_a_file_org_on_a_pinned_day_without_printing_a_key(tmp_path):
    command = [sys.executable, "-m", "emulator", "--port", "0", "--org", str(write(tmp_path, GOOD))]
    process = subprocess.Popen(
        [*command, "--today", "2025-01-10"], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        base = process.stdout.readline().removeprefix("Emulator listening on ").strip()
        assert wait_until_healthy(f"{base}/healthz", process)
        headers = auth("k-admin-0000-0001:adm")
        translated = httpx.post(
            f"{base}/v2/translate", json={"text": ["hello"], "target_lang": "DE"}, headers=headers
        )
        assert translated.status_code == 200
        window = {"start_date": "2025-01-10", "end_date": "2025-01-11", "group_by": "key_and_day"}
        report = httpx.get(f"{base}/v2/admin/analytics", params=window, headers=headers).json()
    finally:
        stop_process(process)
    [row] = report["usage_report"]["key_and_day_usages"]
    assert row["usage"]["text_translation_characters"] == len("hello")
    rest = process.stdout.read()
    assert "Admin key" not in rest and "k-admin-0000-0001:adm" not in rest


def test_cli_reports_a_busy_port():
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "emulator", "--port", str(port), "--keys", "3", "--days", "5"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 2
    assert f"Cannot listen on 127.0.0.1:{port}" in result.stderr


# --- synthetic -------------------------------------------------------------------------


def test_same_seed_same_organization():
    first, second = generate(3, 10, 90, TODAY), generate(3, 10, 90, TODAY)
    assert [k.key for k in first.keys] == [k.key for k in second.keys]
    assert list(first.usage) == list(second.usage)
    other = generate(4, 10, 90, TODAY)
    assert [k.key for k in other.keys] != [k.key for k in first.keys]
    assert list(other.usage) != list(first.usage)


def daily_characters(org, keys: range) -> dict[str, int]:
    """Characters per day of the keys numbered in `keys`, from the organization's rows."""
    totals: dict[str, int] = {}
    for day, key, _, *counts in org.usage:
        if key in keys:
            totals[day] = totals.get(day, 0) + sum(counts[:3])
    return totals


def test_seasons_put_the_years_calendar_and_a_teams_onboarding_into_the_usage():
    """Against the same organization without seasons, day by day: the keys outside the
    onboarding team use the same days at a season's share (1.15 at its peak on 1 March, 0.86
    mid-August) and a holiday's (0.3 of it on Christmas Day); the team's four keys all start
    on one day, 240 days before the history's end: none is used before it, each in its first
    week."""
    today = dt.date(2026, 1, 10)
    plain = generate(5, 40, 1095, today, anomalies=False)
    seasoned = generate(5, 40, 1095, today, anomalies=False, seasons=True)
    others = range(36)
    before, after = daily_characters(plain, others), daily_characters(seasoned, others)
    assert before.keys() == after.keys()
    ratio = {day: after[day] / before[day] for day in before if before[day] > 10_000}
    assert ratio["2025-03-01"] == pytest.approx(1.15, abs=0.005)
    assert ratio["2025-08-15"] == pytest.approx(0.856, abs=0.005)
    assert ratio["2025-12-25"] == pytest.approx(0.3 * 1.065, abs=0.005)
    team = daily_characters(seasoned, range(36, 40))
    onboarded = (today - dt.timedelta(days=240)).isoformat()
    assert min(team) == onboarded
    first_days = [min(d for d, k, *_ in seasoned.usage if k == key) for key in range(36, 40)]
    latest = (today - dt.timedelta(days=240 - 7)).isoformat()  # each used within its first week
    assert all(onboarded <= first < latest for first in first_days), first_days


@settings(max_examples=12)
@given(seed=st.integers(0, 2**16), size=st.integers(3, 60))
def test_a_generated_organization_keeps_places_free_under_the_active_key_rule(seed, size):
    """At most 22 developer keys active, whatever the size: the keys beyond are further keys,
    deactivated at the start of today after the last day of their history (which they keep),
    and no more of them than needed; the signature keys and the key never used stay as they
    were, and so do the keys of injected anomalies while other further keys can go instead."""
    org = generate(seed, size, 120, TODAY)
    developer = [k for k in org.keys if not k.admin]
    active = [k for k in developer if k.deactivated is None]
    midnight = dt.datetime.combine(TODAY, dt.time(), dt.UTC)
    retired = {k.masked for k in developer if k.deactivated == midnight}
    assert len(active) <= 22
    assert not retired or len(active) == 22
    assert retired <= {k.masked for k in org.keys[len(SIGNATURE_KEYS) : size]}
    last_used: dict[int, str] = {}
    for day, index, *_ in org.usage:
        last_used[index] = day
    for index, key in enumerate(org.keys):
        if key.masked in retired:
            assert last_used[index] < TODAY.isoformat()
    assert "Mobile app (planned)" in {k.label for k in active}
    noted = {i.api_key for i in org.injected}
    if retired & noted:
        assert all(
            k.deactivated for k in org.keys[len(SIGNATURE_KEYS) : size] if k.masked not in noted
        )


def test_usage_rows_hand_out_python_rows_a_chunk_at_a_time(monkeypatch):
    """Records become the tuples the store loads, across chunk boundaries, by index and slice."""
    monkeypatch.setattr("emulator.ledger.CHUNK_ROWS", 2)
    records = np.zeros(3, USAGE_RECORD)
    records["day"], records["key"], records["label"] = [0, 0, 1], [0, 1, 1], [2, 1, 1]
    records["characters"] = [[5, 0, 1], [0, 7, 0], [300, 0, 0]]
    records["minutes"] = [[0.5, 0.0], [0.0, 0.0], [0.0, 2.25]]
    rows = UsageRows(["2025-01-01", "2025-01-02"], ["A", "B", "A before"], records)
    expected = [
        ("2025-01-01", 0, "A before", 5, 0, 1, 0.5, 0.0),
        ("2025-01-01", 1, "B", 0, 7, 0, 0.0, 0.0),
        ("2025-01-02", 1, "B", 300, 0, 0, 0.0, 2.25),
    ]
    assert list(rows) == expected
    assert [type(value) for value in next(iter(rows))] == [
        str,
        int,
        str,
        int,
        int,
        int,
        float,
        float,
    ]
    assert len(rows) == 3
    assert rows[-1] == expected[-1]
    assert rows[1:] == expected[1:]


def test_history_ends_yesterday_and_spans_the_days():
    org = generate(1, 8, 120, TODAY)
    days = sorted({row[0] for row in org.usage})
    assert days[-1] <= "2025-05-31"
    assert days[0] >= "2025-02-01"
    assert len(days) > 100


def test_roles_and_shapes():
    org = generate(5, 12, 400, TODAY)
    keys = org.keys
    admins = [k for k in keys if k.admin]
    assert [k.label for k in admins] == ["Organization admin", "Finance admin"]
    assert all(k.key.endswith(":adm") for k in admins) and org.admin_key == admins[0].key
    assert keys[0].detect_beta and any(not k.detect_beta for k in keys)
    assert all(k.key.count("-") == 4 for k in keys)
    by_key: dict[int, list] = {}
    for row in org.usage:
        by_key.setdefault(row[1], []).append(row)
    shape = {name: i for i, (_, _, name) in enumerate(SIGNATURE_KEYS)}
    dormant = by_key[shape["dormant"]]
    assert max(row[0] for row in dormant) < "2025-01-01"
    rephrase = by_key[shape["rephrase"]]
    assert all(row[3] == 0 and row[4] == 0 and row[5] > 0 for row in rephrase)
    assert all(row[6] > 0 for row in by_key[shape["speech"]])
    interpreted = [row for row in by_key[shape["speech"]] if row[7] > 0]
    assert "2024-10-04" <= interpreted[0][0] < "2025-02-15"  # taken up 40-70% into the history
    assert all(row[6] > 0 for row in org.usage if row[7] > 0)  # only speech keys interpret
    assert sum(row[4] for row in by_key[shape["documents"]]) > 0
    labels = [row[2] for row in by_key[shape["relabelled"]]]
    assert labels[0] == SIGNATURE_KEYS[shape["relabelled"]][0]
    assert labels[-1] == RELABELLED_TO == keys[shape["relabelled"]].label
    launch = by_key[shape["launch"]]
    assert min(row[0] for row in launch) >= "2024-11-01"
    weekday = [r[3] + r[4] + r[5] for r in org.usage if dt.date.fromisoformat(r[0]).weekday() < 5]
    weekend = [r[3] + r[4] + r[5] for r in org.usage if dt.date.fromisoformat(r[0]).weekday() >= 5]
    assert sum(weekday) / 5 > 2 * sum(weekend) / 2


def test_largest_size_is_sparse_and_complete():
    org = generate(42, 1000, 1826, TODAY)
    assert len(org.keys) == 1004  # and two admin keys, two developer keys never used
    assert len({k.masked for k in org.keys}) == 1004
    share = len(org.usage) / (1000 * 1826)
    assert 0.3 < share < 0.5
    sample = np.array([r[3] + r[4] + r[5] for r in org.usage[:1000]])
    assert (sample > 0).all()


def test_the_synthetic_keys_have_a_life_an_administrator_sees():
    """Keys never used, a deactivated key with history, limits, one key near its limit."""
    org = generate(42, 8, 120, dt.date(2026, 11, 24))
    used: dict[int, list[str]] = {}
    for row in org.usage:
        used.setdefault(row[1], []).append(row[0])
    unused = [k.label for i, k in enumerate(org.keys) if i not in used and not k.admin]
    assert unused == ["Mobile app (planned)", "Partner sandbox"]
    (index, gone), (_, gone_unused) = [(i, k) for i, k in enumerate(org.keys) if k.deactivated]
    assert gone_unused.label == "Partner sandbox"
    assert gone.label == "Legacy integration"
    assert gone.deactivated.date() == dt.date.fromisoformat(max(used[index])) + dt.timedelta(1)
    assert all(
        k.created.date() <= dt.date.fromisoformat(min(used[i]))
        for i, k in enumerate(org.keys)
        if i in used
    )
    period = org.plan.period(dt.date(2026, 11, 24))[0].isoformat()
    near = org.keys[0]
    characters = sum(r[3] + r[4] + r[5] for r in org.usage if r[1] == 0 and r[0] >= period)
    assert near.label == "Production website"
    assert 0.9 < characters / near.character_limit < 1
    assert org.keys[6].speech_to_text_milliseconds_limit > 0


@pytest.mark.parametrize(("keys", "days"), [(2, 10), (5, 0)])
def test_too_small_synthetic_org_is_refused(keys, days):
    with pytest.raises(ValueError, match="at least"):
        generate(1, keys, days, TODAY)


# --- database file ---------------------------------------------------------------------


async def test_db_file_keeps_recorded_usage_for_the_same_organization(tmp_path):
    config = EmulatorConfig(seed=9, keys=5, days=30, db=tmp_path / "ledger.sqlite", today=TODAY)
    first = create_app(config)
    emulator = first.state.emulator
    transport = httpx.ASGITransport(app=first)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://e", headers=auth(emulator.admin_key)
    ) as client:
        response = await client.post("/v2/translate", json={"text": ["abc"], "target_lang": "DE"})
        assert response.status_code == 200
    emulator.store.close()
    again = create_app(config).state.emulator
    assert [r.text_translation_characters for r in again.ledger(TODAY, TODAY)] == [3]
    again.store.close()
    other = create_app(EmulatorConfig(seed=10, keys=5, days=30, db=config.db, today=TODAY))
    assert other.state.emulator.ledger(TODAY, TODAY) == []


def test_db_file_of_an_older_layout_is_rebuilt(tmp_path):
    """A ledger file written before speech-to-speech minutes existed is reloaded, not reused."""
    path = tmp_path / "ledger.sqlite"
    with sqlite3.connect(path) as old:
        old.executescript(
            """
            CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE usage (usage_date TEXT, key_id INTEGER, label TEXT,
                text_translation_characters INTEGER, document_translation_characters INTEGER,
                text_improvement_characters INTEGER, speech_to_text_minutes REAL);
            INSERT INTO meta VALUES ('org', 'synthetic:9:8:30:2025-06-01');
            """
        )
    old.close()
    config = EmulatorConfig(seed=9, keys=8, days=30, db=path, today=TODAY)
    emulator = create_app(config).state.emulator
    rows = emulator.ledger(TODAY - dt.timedelta(days=30), TODAY)
    emulator.store.close()
    assert rows == create_app(small_config(seed=9, days=30)).state.emulator.ledger(
        TODAY - dt.timedelta(days=30), TODAY
    )
    assert any(row.speech_to_speech_minutes > 0 for row in rows)
