"""Two hosts, one PostgreSQL state store: what one host records, the other knows.

A "host" is a set of real command processes with a history folder of its own
(``SERVICE_HISTORY_PATH``), pointed at one real emulator process (a real account, whose
records go to the configured store: the demo organization's would stay in each host's
embedded file) and at one shared database (``SERVICE_STATE_URL``). The oracles are the
database's rows read with psycopg (not the store's code), the emulator's own key list and
what the local SMTP and webhook receivers got. Faults are real too: a PostgreSQL server of the
test's own stopped between two commands or while messages go out, and a wrong password.

Every command costs about a processor-second, so one emulator serves the whole module (no
test leaves its keys changed, except for the label of `SPARE`, which only the test that renames
it reads) and the processes of a step are started together.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import pytest
from sqlalchemy.engine import make_url
from support.orgfiles import GUARDED_BUDGETS, admin_organization, org_key, org_usage
from support.postgres import Cluster
from support.receivers import (
    Mailbox,
    WebhookReceiver,
    mail_and_webhook_alerts,
    smtp_server,
    webhook_receiver,
)
from support.servers import EmulatorProcess, auth, emulator_server, start_cli

from analytics.alerts.events import REPEATED
from analytics.usage.calendar import CLOCK_VARIABLE

# Some thirty command processes, a minute and more on two busy cores: the file is handed to
# a worker first (tests/conftest.py), not last.
pytestmark = pytest.mark.slow

TODAY = dt.date(2025, 7, 10)
ADMIN = "share-admin-0001-aaaa:adm"
WEB, SHOP, BATCH = "web-key-0001-1111-webb", "shop-key-002-3333-shop", "batch-key-03-5555-bbbb"
FRESH_A, FRESH_B, FRESH_C = "newa-key-0001-7777-aaaa", "newb-key-0002-8888-bbbb", "newc-key-03-cccc"
SLEEPER, SPARE = "dorm-key-0004-4444-dddd", "spare-key-005-6666-eeee"
CREATED = 'created = "2025-05-01T00:00:00Z"'
JUNE_1 = dt.date(2025, 6, 1)
# Steady keys (Web, Shop, capped at 500 by hand), four keys first used in the last 30 days
# (new-key anomalies; Fresh C capped at 30,000 by hand), a key silent for 77 days and used
# again (a drop and a dormant key) and a key never used, to be renamed.
ORG = admin_organization(
    org_key(WEB, "Web", CREATED),
    org_key(SHOP, "Shop", CREATED, "character_limit = 500"),
    org_key(BATCH, "Batch", CREATED),
    org_key(FRESH_A, "Fresh A", CREATED),
    org_key(FRESH_B, "Fresh B", CREATED),
    org_key(FRESH_C, "Fresh C", CREATED, "character_limit = 30000"),
    org_key(SLEEPER, "Sleeper", 'created = "2025-03-01T00:00:00Z"'),
    org_key(SPARE, "Spare", CREATED),
    *(org_usage(WEB, str(JUNE_1 + dt.timedelta(days=n)), text=100) for n in range(39)),
    *(org_usage(SHOP, str(JUNE_1 + dt.timedelta(days=n)), text=20) for n in range(39)),
    org_usage(BATCH, "2025-07-03", document=1_000),
    org_usage(FRESH_A, "2025-07-02", text=1_500),
    org_usage(FRESH_B, "2025-07-05", text=2_500),
    org_usage(FRESH_C, "2025-07-08", text=3_500),
    *(org_usage(SLEEPER, f"2025-04-{day:02}", text=300) for day in range(1, 20)),
    org_usage(SLEEPER, "2025-07-06", text=800),
    admin=ADMIN,
)
# What `check-anomalies --days 30` finds in ORG: each anomaly's id, and its name in words, as
# its alert names it.
FOUND = {
    "new:newc****cccc:total_characters:2025-07-08": (
        "New key · Fresh C (newc****cccc) · characters · on Tue 2025-07-08"
    ),
    "dormant:dorm****dddd:total_characters:2025-07-06": (
        "Dormant key used · Sleeper (dorm****dddd) · characters · on Sun 2025-07-06"
    ),
    "drop:dorm****dddd:total_characters:2025-04-20": (
        "Drop · Sleeper (dorm****dddd) · characters · from Sun 2025-04-20 to Sat 2025-07-05"
    ),
    "new:newb****bbbb:total_characters:2025-07-05": (
        "New key · Fresh B (newb****bbbb) · characters · on Sat 2025-07-05"
    ),
    "new:batc****bbbb:total_characters:2025-07-03": (
        "New key · Batch (batc****bbbb) · characters · on Thu 2025-07-03"
    ),
    "new:newa****aaaa:total_characters:2025-07-02": (
        "New key · Fresh A (newa****aaaa) · characters · on Wed 2025-07-02"
    ),
}
SUBJECTS = {i: f"Usage anomaly (high): {name}" for i, name in FOUND.items()}
TEAMS = '[[team]]\nname = "Web"\nlabels = ["Web", "Shop"]\n'
# The keys' limits as the organization file sets them (by hand), which restore gives back.
HAND_SET = {"Shop": 500, "Fresh C": 30_000}
# The keys the guardrails change: every key without a limit, and Fresh C's 30,000 lowered to
# its share; Shop's 500 is below its share and kept.
GUARDED = ["Batch", "Fresh A", "Fresh B", "Fresh C", "Sleeper", "Spare", "Web"]
# `mark-anomaly` processes per host, all started before any is waited for: each spends over a
# processor-second importing before its first statement, and on two cores the twelve share the
# processors evenly, so they reach the empty database together, ten more than can run at once,
# and race for the migration lock, the schema and the rows as the 32 this once started did.
MARKERS = 6
RECORDS = ("anomaly_marks", "alert_deliveries", "key_audit", "guardrail_state")


@dataclass(frozen=True)
class Finished:
    """A command's end: its exit code and what it wrote."""

    code: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Host:
    """One host of a deployment: its own history folder; the service and the store shared."""

    history: Path
    service: str
    state_url: str
    hook: str = ""  # the webhook's address, for the alerts file's `url_env`

    def start(self, *args: str) -> subprocess.Popen[str]:
        """The command as a timer on this host runs it: only this host's SERVICE_ settings,
        the clock on the emulator's day."""
        clean = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
        env = {
            **clean,
            "SERVICE_BASE_URL": self.service,
            "SERVICE_AUTH_KEY": ADMIN,
            "SERVICE_HISTORY_PATH": str(self.history),
            "SERVICE_STATE_URL": self.state_url,
            "TEST_HOOK_URL": self.hook,
            CLOCK_VARIABLE: f"{TODAY}T12:00:00Z",
        }
        return start_cli(*args, env=env)

    def run(self, *args: str) -> Finished:
        return finish(self.start(*args))


def finish(process: subprocess.Popen[str]) -> Finished:
    """The process's end; one that hangs is killed (it ends with -9), so that no test leaves
    a command running behind it."""
    try:
        stdout, stderr = process.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
    return Finished(process.returncode, stdout, stderr)


def finish_all(processes: Sequence[subprocess.Popen[str]]) -> list[Finished]:
    """Every process's end, once all were started (they run at once)."""
    return [finish(process) for process in processes]


def two_hosts(folder: Path, service: str, state_url: str, hook: str = "") -> tuple[Host, Host]:
    """Hosts A and B: two history folders, one service, one store."""
    return (
        Host(folder / "host-a", service, state_url, hook),
        Host(folder / "host-b", service, state_url, hook),
    )


def rows(url: str, query: str) -> list[tuple]:
    """What `query` finds in the database, read with psycopg past the store's code."""
    with psycopg.connect(url) as connection:
        return connection.execute(query).fetchall()


def records(url: str) -> dict[str, list[tuple]]:
    """Every record of every kind, in a stable order: a snapshot to compare."""
    return {table: sorted(rows(url, f"SELECT * FROM {table}"), key=repr) for table in RECORDS}


def listed(service: str) -> dict[str, tuple[str, int | None]]:
    """The emulator's own key list (the admin key's GET): each key id's label and character
    limit."""
    answer = httpx.get(f"{service}/v2/admin/developer-keys", headers=auth(ADMIN), timeout=30)
    answer.raise_for_status()
    return {k["key_id"]: (k["label"], k["usage_limits"]["characters"]) for k in answer.json()}


def limits(service: str) -> dict[str, int | None]:
    """Each key's character limit, by label."""
    return dict(listed(service).values())


def assert_budgets_hold(by_label: dict[str, int | None]) -> None:
    """The guardrails' invariant for GUARDED_BUDGETS: every key capped, the Web team's keys within
    5,000 together and all within 50,000 (the file's usage is all closed days, so nothing the
    limits count is hidden from the plan)."""
    assert all(limit is not None for limit in by_label.values()), by_label
    assert by_label["Web"] + by_label["Shop"] <= 5_000
    assert sum(by_label.values()) <= 50_000


def one_error_line(finished: Finished, place: str, password: str) -> str:
    """The command's only stderr line, which names the store's place and shows no
    password."""
    [line] = finished.stderr.splitlines()
    assert line.startswith("error: ") and place in line, line
    assert password not in finished.stderr + finished.stdout
    return line


def place_of(url: str) -> str:
    """host:port/database, as the one line names the store."""
    parsed = make_url(url)
    return f"{parsed.host}:{parsed.port}/{parsed.database}"


def audit_key(entry: dict) -> tuple:
    """What tells audit entries apart when the clock is pinned (all have one time)."""
    return entry["action"], entry["key_id"], entry["outcome"], entry["trace_id"]


def anomaly(index: int) -> str:
    """A planned anomaly's id, of a key that need not exist (a mark may come first)."""
    return f"spike:k{index:03}****z001:total_characters:2025-03-05"


def check_command(alerts: Path) -> list[str]:
    """The notifier's timer: the last 30 days' new anomalies to the alerts file's
    destinations."""
    return ["check-anomalies", "--days", "30", "--notify", "--alerts", str(alerts)]


def sent(mailbox: Mailbox, hooks: WebhookReceiver) -> tuple[list[str], list[str]]:
    """The subjects each destination received, in order. A subject too long for one header
    line may be folded before its first word, which Python's parser then keeps as a leading
    space (a mail reader does not show it)."""
    return [s.strip() for s in mailbox.subjects], [body["subject"] for body in hooks.at("/hook")]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorProcess]:
    """The module's organization served by one emulator process on loopback."""
    path = tmp_path_factory.mktemp("org") / "org.toml"
    path.write_text(ORG)
    with emulator_server("--org", str(path), today=TODAY) as server:
        yield server


@pytest.fixture
def receivers(tmp_path: Path) -> Iterator[tuple[Mailbox, WebhookReceiver, Path]]:
    """A local SMTP server and webhook receiver, and an alerts file sending to both."""
    with smtp_server() as mailbox, webhook_receiver() as hooks:
        yield mailbox, hooks, mail_and_webhook_alerts(tmp_path, mailbox, "TEST_HOOK_URL")


def budget_options(folder: Path) -> list[str]:
    """GUARDED_BUDGETS and TEAMS written to `folder`, as the guardrails commands' options."""
    (folder / "budgets.toml").write_text(GUARDED_BUDGETS)
    (folder / "teams.toml").write_text(TEAMS)
    return ["--budgets", str(folder / "budgets.toml"), "--teams", str(folder / "teams.toml")]


# --- both hosts working at once --------------------------------------------------------------


def test_marks_made_at_once_on_two_hosts_are_all_kept(tmp_path, service, postgres_url):
    # The database is empty: the processes also race to create the schema.
    a, b = two_hosts(tmp_path, service.base_url, postgres_url)
    ids = [anomaly(index) for index in range(2 * MARKERS)]
    hosts = [a] * MARKERS + [b] * MARKERS
    started = [
        host.start("mark-anomaly", i, "expected") for host, i in zip(hosts, ids, strict=True)
    ]
    finished = finish_all(started)
    place = place_of(postgres_url)
    for anomaly_id, done in zip(ids, finished, strict=True):
        assert done.code == 0, done.stderr
        assert done.stdout == f"{anomaly_id}: marked expected in PostgreSQL at {place}\n"
    kept = rows(postgres_url, "SELECT account, anomaly, mark FROM anomaly_marks")
    assert sorted((anomaly_id, mark) for _, anomaly_id, mark in kept) == [
        (anomaly_id, "expected") for anomaly_id in sorted(ids)
    ]
    assert len({account for account, _, _ in kept}) == 1  # one account, whichever host
    assert not (a.history / "state.sqlite").exists() and not (b.history / "state.sqlite").exists()


def test_a_mark_made_on_one_host_silences_the_alert_on_the_other(
    tmp_path, service, postgres_url, receivers
):
    mailbox, hooks, alerts = receivers
    a, b = two_hosts(tmp_path, service.base_url, postgres_url, hooks.url("/hook"))
    silenced = "new:newc****cccc:total_characters:2025-07-08"
    marked = a.run("mark-anomaly", silenced, "expected")
    assert marked.code == 0, marked.stderr
    checked = b.run(*check_command(alerts))
    assert checked.code == 12, checked.stderr  # the other five are still new
    assert silenced not in checked.stdout
    others = sorted(subject for i, subject in SUBJECTS.items() if i != silenced)
    mails, posts = sent(mailbox, hooks)
    assert sorted(mails) == sorted(posts) == others


def test_two_notifiers_at_once_on_two_hosts_deliver_each_message_once(
    tmp_path, service, postgres_url, receivers
):
    mailbox, hooks, alerts = receivers
    a, b = two_hosts(tmp_path, service.base_url, postgres_url, hooks.url("/hook"))
    finished = finish_all([host.start(*check_command(alerts)) for host in (a, b)])
    for done in finished:
        assert done.code == 12, done.stderr
        assert done.stderr == ""
    mails, posts = sent(mailbox, hooks)
    assert sorted(mails) == sorted(posts) == sorted(SUBJECTS.values())
    said = [line for done in finished for line in done.stdout.splitlines()]
    notified = [line for line in said if line.startswith("notified ")]
    assert len(notified) == 2 * len(SUBJECTS)  # each said by the run that sent it, only
    stages = rows(postgres_url, "SELECT destination, event, stage FROM alert_deliveries")
    assert len(stages) == 2 * len(SUBJECTS)
    assert {stage for _, _, stage in stages} == {"delivered"}


def test_guardrails_on_two_hosts_share_one_memory_and_one_audit_log(
    tmp_path, service, postgres_url
):
    options = budget_options(tmp_path)
    a, b = two_hosts(tmp_path, service.base_url, postgres_url)
    before = listed(service.base_url)
    applied = finish_all([host.start("guardrails", "apply", "--yes", *options) for host in (a, b)])
    for done in applied:
        assert done.code == 0, done.stderr
    # One run sent every change; the other, holding the lock after it, found nothing to do.
    calls = [int(re.findall(r"(\d+) calls? sent", done.stderr)[-1]) for done in applied]
    assert sorted(calls) == [0, len(GUARDED)]
    guarded = limits(service.base_url)
    assert_budgets_hold(guarded)
    assert guarded["Shop"] == 500 and guarded["Fresh C"] < 30_000
    entries = rows(postgres_url, "SELECT entry::json FROM key_audit ORDER BY id")
    done = [e for (e,) in entries if e["action"] == "limit" and e["outcome"] == "done"]
    assert sorted(e["label"] for e in done) == GUARDED  # each change sent once
    assert {e["label"]: e["after"]["characters"] for e in done} == {
        label: guarded[label] for label in GUARDED
    }

    # The host whose apply sent nothing gives back what the other's apply remembered, while
    # the first host renames a key.
    idle = (a, b)[calls.index(0)]
    restored, renamed = finish_all(
        [
            idle.start("guardrails", "restore", "--yes", *options),
            a.start("keys", "rename", "Spare", "Spare (renamed)"),
        ]
    )
    assert restored.code == 0, restored.stderr
    assert renamed.code == 0, renamed.stderr
    assert {label: limit for label, limit in before.values() if limit is not None} == HAND_SET
    after = listed(service.base_url)
    assert {kid: limit for kid, (_, limit) in after.items()} == {
        kid: limit for kid, (_, limit) in before.items()
    }

    audited = b.run("keys", "audit", "--format", "json")
    assert audited.code == 0, audited.stderr
    listed_by_b = json.loads(audited.stdout)
    everything = [e for (e,) in rows(postgres_url, "SELECT entry::json FROM key_audit ORDER BY id")]
    assert [audit_key(e) for e in listed_by_b] == [audit_key(e) for e in everything]
    [rename] = [e for e in listed_by_b if e["action"] == "rename"]
    assert (rename["outcome"], rename["before"]["label"], rename["after"]["label"]) == (
        "done",
        "Spare",
        "Spare (renamed)",
    )
    assert len(listed_by_b) == 2 * len(GUARDED) + 1  # applied, restored, renamed


# --- faults ----------------------------------------------------------------------------------


def test_a_store_stopped_between_two_commands_changes_nothing_anywhere(
    tmp_path, service, own_postgres: Cluster, receivers
):
    mailbox, hooks, alerts = receivers
    url = own_postgres.url(own_postgres.create_database())
    a, b = two_hosts(tmp_path, service.base_url, url, hooks.url("/hook"))
    first = a.run("mark-anomaly", anomaly(1), "expected")
    assert first.code == 0, first.stderr
    kept = records(url)
    keys = listed(service.base_url)
    own_postgres.stop_server()
    commands = [
        ["mark-anomaly", anomaly(2), "expected"],
        ["keys", "rename", "Batch", "Batch (renamed)"],
        ["guardrails", "apply", "--yes", *budget_options(tmp_path)],
        check_command(alerts),
    ]
    finished = finish_all([b.start(*command) for command in commands])
    for command, done in zip(commands, finished, strict=True):
        assert done.code == 5, (command, done.stderr)
        one_error_line(done, place_of(url), own_postgres.password)
    assert sent(mailbox, hooks) == ([], [])  # no message without its record
    assert listed(service.base_url) == keys  # no key change without its audit entry
    own_postgres.start_server()
    assert records(url) == kept


def test_a_store_stopped_while_messages_go_out_loses_none_and_repeats_one(
    tmp_path, service, own_postgres: Cluster, receivers
):
    mailbox, hooks, alerts = receivers
    url = own_postgres.url(own_postgres.create_database())
    a, b = two_hosts(tmp_path, service.base_url, url, hooks.url("/hook"))

    def stop() -> None:
        """The server goes once the first message arrived, before its sender heard so."""
        mailbox.on_message = None
        own_postgres.stop_server()

    mailbox.on_message = stop
    failed = a.run(*check_command(alerts))
    assert failed.code == 5, failed.stderr
    one_error_line(failed, place_of(url), own_postgres.password)
    mails, posts = sent(mailbox, hooks)
    assert len(mails) == 1 and posts == [], (mails, posts)  # it stopped at the first message
    first = mails[0]

    own_postgres.start_server()
    resumed = b.run(*check_command(alerts))
    assert resumed.code == 12, resumed.stderr
    mails, posts = sent(mailbox, hooks)
    # Every alert got through; only the one in flight came twice, marked the second time.
    assert mails[:2] == [first, f"{REPEATED} {first}"]
    assert mails[:1] + mails[2:] == posts
    assert sorted(posts) == sorted(SUBJECTS.values())
    stages = rows(url, "SELECT stage FROM alert_deliveries")
    assert [stage for (stage,) in stages] == ["delivered"] * 2 * len(SUBJECTS)


def test_a_wrong_password_is_one_line_without_it(tmp_path, service, postgres_url):
    wrong = make_url(postgres_url).set(password="not-the-password-4711")
    url = wrong.render_as_string(hide_password=False)
    a, _ = two_hosts(tmp_path, service.base_url, url)
    refused = a.run("mark-anomaly", anomaly(1), "expected")
    assert refused.code == 2, refused.stderr
    line = one_error_line(refused, place_of(url), "not-the-password-4711")
    assert "password authentication failed" in line
    tables = "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
    assert rows(postgres_url, tables) == [(0,)]  # nothing was made
