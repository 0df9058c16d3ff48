"""The state store's contract, one suite over both places it can be: the embedded SQLite file
and a real PostgreSQL server (`support.postgres`), never a mock. What both must do alike: bring
any older schema to `HEAD` once however many processes start at once, refuse a newer one, keep
a transaction whole, let one process at a time hold a lock; and what each must do when its
place fails: a PostgreSQL store names where it is and never the password, an embedded file
that is not a database is kept aside and the store made afresh.
"""

from __future__ import annotations

import logging
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

import pytest
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, insert, inspect, select, text
from sqlalchemy.engine import make_url
from support.postgres import Cluster

from analytics.storage import state_store as store_module
from analytics.storage.schema import HEAD, audit, marks, metadata
from analytics.storage.state_store import (
    EMBEDDED_FILE,
    Store,
    StoreError,
    StoreUnavailable,
    embedded_store,
    open_store,
    postgresql_store,
)

ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS = Path(store_module.__file__).with_name("migrations")
MIGRATED = "was migrated from"
# How long a child process may take to import the store and open it on a loaded machine; the
# waits that show exclusion are short, and only a failure waits this long.
CHILD_SECONDS = 60

# A child process on the store named by STORE_FOLDER / STORE_ADDRESS, logging at INFO as the
# programs may: it says `ready` once imported, then does `ACTION`.
CHILD = """
import logging, os, sys
from datetime import UTC, datetime
from pathlib import Path
logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s %(message)s")
import alembic.command  # imported before the start line, so the processes race on the store
from sqlalchemy import insert
from analytics.storage.schema import marks
from analytics.storage.state_store import open_store
def opened():
    return open_store(Path(os.environ["STORE_FOLDER"]), os.environ.get("STORE_ADDRESS"))
print("ready", flush=True)
ACTION
"""
# Wait for the start line, open the store (migrating it if it is behind) and write a record.
MIGRATE = """
sys.stdin.readline()
store = opened()
row = dict(account=sys.argv[1], anomaly="a", mark="expected", marked_at=datetime.now(UTC))
store.run(lambda connection: connection.execute(insert(marks).values(**row)))
print("wrote", flush=True)
"""
# Open the store, then take the lock `applier` and say so.
LOCK = """
store = opened()
print("waiting", flush=True)
with store.lock("applier"):
    print("holding", flush=True)
"""


@dataclass(frozen=True)
class Place:
    """Where a store is, before anything opened it: a folder for the embedded file, and the
    address of a PostgreSQL database when the store is there."""

    kind: str
    folder: Path
    address: str | None

    def open(self) -> Store:
        """The store, as the programs open it (`open_store`): migrated, or an error."""
        store = open_store(self.folder, self.address)
        assert store is not None
        return store

    def engine(self) -> Engine:
        """A plain engine on the same database, for making a schema the store did not make."""
        if self.address is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            return create_engine(f"sqlite+pysqlite:///{self.folder / EMBEDDED_FILE}")
        return create_engine(make_url(self.address).set(drivername="postgresql+psycopg"))

    @property
    def named(self) -> str:
        """How the store's messages name it: the embedded file, or PostgreSQL's host, port
        and database (never the password)."""
        if self.address is None:
            return str(self.folder / EMBEDDED_FILE)
        url = make_url(self.address)
        return f"{url.host}:{url.port}/{url.database}"

    def child(self, action: str, *arguments: str) -> subprocess.Popen[str]:
        """A Python process doing `action` (see CHILD) on this store."""
        environment = {**os.environ, "PYTHONPATH": str(ROOT), "STORE_FOLDER": str(self.folder)}
        if self.address is not None:
            environment["STORE_ADDRESS"] = self.address
        return subprocess.Popen(
            [sys.executable, "-c", CHILD.replace("ACTION", action), *arguments],
            cwd=ROOT,
            env=environment,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )


@pytest.fixture(params=["embedded", "postgresql"])
def place(request: pytest.FixtureRequest, tmp_path: Path) -> Place:
    """Each test on both places: a fresh folder, and for PostgreSQL a fresh database on the
    run's shared server (so the store module's per-place cache never hands back another
    test's store)."""
    folder = tmp_path / "state"
    if request.param == "embedded":
        return Place("embedded", folder, None)
    return Place("postgresql", folder, request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(place: Place) -> Store:
    """The store at `place`, opened (and so migrated) as the programs open it."""
    return place.open()


def mark(account: str, anomaly: str = "2025-05-01 key-1") -> dict[str, object]:
    """One anomaly mark's row."""
    return {"account": account, "anomaly": anomaly, "mark": "expected", "marked_at": now()}


def now() -> datetime:
    return datetime.now(UTC)


def upgraded_to(connection: Connection, revision: str) -> None:
    """Run the migrations up to `revision` on `connection`, as an older program did."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


def lines_of(stream: IO[str]) -> queue.Queue[str | None]:
    """The lines of a child's output as they come, read on a thread of their own, so a test
    can wait for one with a bound instead of blocking on the pipe; None once the output ends
    (the thread is done with the pipe, which may then be read or closed)."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line.strip())
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


@contextmanager
def killed_on_failure(*children: subprocess.Popen[str]) -> Iterator[None]:
    """Children still running when the block fails (an assertion, a timeout) are killed, so a
    failing test leaves no process behind; on success they are left to run on."""
    try:
        yield
    except BaseException:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
        raise


def one_line(message: str) -> bool:
    return "\n" not in message and "\r" not in message


def test_migrations_bring_an_empty_database_to_head(
    place: Place, caplog: pytest.LogCaptureFixture
) -> None:
    """Opening an empty database makes every table of the schema and stamps it `HEAD`, which
    is the migrations' own newest revision (a migration added without moving `HEAD`, or the
    other way round, fails here); it says so once at INFO."""
    caplog.set_level(logging.INFO, logger=store_module.__name__)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(config).get_current_head() == HEAD

    opened = place.open()

    assert opened.version() == HEAD
    assert set(opened.counts().values()) == {0}
    engine = place.engine()
    assert set(metadata.tables) <= set(inspect(engine).get_table_names())
    engine.dispose()
    migrated = [record.getMessage() for record in caplog.records if MIGRATED in record.getMessage()]
    assert len(migrated) == 1
    assert f"from empty to {HEAD}" in migrated[0]


def test_a_transaction_is_kept_whole_or_not_at_all(store: Store) -> None:
    """`run` commits what the work did when it returns, and nothing of it when it raises:
    neither the work's own exception nor the database's refusal (a second row with the same
    key) leaves the rows written before it."""

    class Abandoned(Exception):
        pass

    def abandoned(connection: Connection) -> None:
        connection.execute(insert(marks).values(**mark("acme")))
        connection.execute(insert(audit).values(account="acme", time=now(), entry="{}"))
        raise Abandoned

    def refused(connection: Connection) -> None:
        connection.execute(insert(marks).values(**mark("acme", "first")))
        connection.execute(insert(marks).values(**mark("acme", "second")))
        connection.execute(insert(marks).values(**mark("acme", "second")))

    with pytest.raises(Abandoned):
        store.run(abandoned)
    with pytest.raises(StoreError) as raised:
        store.run(refused)
    assert not isinstance(raised.value, StoreUnavailable)  # trying again cannot mend it
    assert one_line(str(raised.value))
    assert set(store.counts().values()) == {0}

    def kept(connection: Connection) -> None:
        connection.execute(insert(marks).values(**mark("acme")))
        connection.execute(insert(audit).values(account="acme", time=now(), entry="{}"))

    store.run(kept)
    counts = store.counts()
    assert (counts["anomaly marks"], counts["key audit entries"]) == (1, 1)


def test_a_lock_has_one_holder_across_processes(place: Place, store: Store) -> None:
    """While this process holds a lock, another process asking for it waits, and takes it
    as soon as it is released: the guardrails' applier and the notifier run once however many
    processes start them."""
    with store.lock("applier"):
        child = place.child(LOCK)
        with killed_on_failure(child):
            assert child.stdout is not None
            lines = lines_of(child.stdout)
            assert lines.get(timeout=CHILD_SECONDS) == "ready"
            assert lines.get(timeout=CHILD_SECONDS) == "waiting"
            with pytest.raises(queue.Empty):
                lines.get(timeout=0.5)  # it waits while the lock is held here...
    with killed_on_failure(child):
        assert lines.get(timeout=10) == "holding"  # ...and takes it once released
        assert lines.get(timeout=CHILD_SECONDS) is None
        _, errors = child.communicate(timeout=CHILD_SECONDS)
        assert child.returncode == 0, errors[-2000:]


def test_processes_starting_at_once_migrate_once(place: Place) -> None:
    """Three processes opening an empty database at the same moment: exactly one migrates it
    (says so at INFO), the others find it current, and all three write afterwards."""
    children = [place.child(MIGRATE, f"account-{number}") for number in range(3)]
    with killed_on_failure(*children):
        for child in children:  # all imported, so they race on the store and not on imports
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "ready"
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        finished = [child.communicate(timeout=CHILD_SECONDS) for child in children]

    for child, (output, errors) in zip(children, finished, strict=True):
        assert child.returncode == 0, errors[-2000:]
        assert output.strip() == "wrote"
    migrating = [errors for _, errors in finished if MIGRATED in errors]
    assert len(migrating) == 1, [errors[-500:] for _, errors in finished]
    assert migrating[0].count(MIGRATED) == 1
    opened = place.open()
    assert opened.version() == HEAD
    assert opened.counts()["anomaly marks"] == 3


def test_an_older_schema_is_migrated_with_its_records(
    place: Place, caplog: pytest.LogCaptureFixture
) -> None:
    """A database an older program made (revision 0001, with a mark in it) is brought to
    `HEAD` when this program opens it, and the mark is still there."""
    engine = place.engine()
    with engine.begin() as connection:
        upgraded_to(connection, "0001")
        connection.execute(insert(marks).values(**mark("acme")))
    engine.dispose()
    caplog.set_level(logging.INFO, logger=store_module.__name__)

    opened = place.open()

    assert opened.version() == HEAD
    assert opened.counts()["anomaly marks"] == 1
    kept = opened.run(lambda connection: connection.execute(select(marks)).one())
    assert (kept.account, kept.mark) == ("acme", "expected")
    assert any(f"from 0001 to {HEAD}" in record.getMessage() for record in caplog.records)


def test_a_newer_schema_is_refused(place: Place) -> None:
    """A database a newer program migrated (a revision this one does not know) is refused with
    one line naming the store and both versions, and left as it was: an older program must
    not write to a schema it does not know."""
    engine = place.engine()
    with engine.begin() as connection:
        upgraded_to(connection, HEAD)
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))

    with pytest.raises(StoreError) as raised:
        place.open()

    message = str(raised.value)
    assert not isinstance(raised.value, StoreUnavailable)
    assert one_line(message)
    assert "9999" in message
    assert HEAD in message
    assert place.named in message
    with engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).all() == [
            ("9999",)
        ]
    engine.dispose()


def test_a_wrong_password_is_one_line_without_it(postgres_url: str) -> None:
    """A wrong password is a mistake in the settings, not an outage: a `StoreError` (not
    `StoreUnavailable`, trying again cannot mend it), one line, naming where the store is
    and holding neither the password given nor the right one."""
    right = make_url(postgres_url)
    wrong = right.set(password="not-the-password-4711")
    started = time.monotonic()

    with pytest.raises(StoreError) as raised:
        postgresql_store(wrong.render_as_string(hide_password=False))

    message = str(raised.value)
    assert type(raised.value) is StoreError, message
    assert time.monotonic() - started < 5  # not tried again and again
    assert one_line(message)
    assert f"{right.host}:{right.port}/{right.database}" in message  # where it is
    leaked = "not-the-password-4711" in message or str(right.password) in message
    assert not leaked, "a password shows in the message"  # so that a failure prints none


def test_a_stopped_server_is_unavailable_and_named(own_postgres: Cluster) -> None:
    """The server stopped between two commands: the second raises `StoreUnavailable` within
    seconds (a few quick retries, no hang), naming host, port and database and never the
    password; once the server is back, the same store works again."""
    database = own_postgres.create_database()
    opened = postgresql_store(own_postgres.url(database))
    opened.run(lambda connection: connection.execute(insert(marks).values(**mark("acme"))))

    own_postgres.stop_server()
    started = time.monotonic()
    with pytest.raises(StoreUnavailable) as raised:
        opened.counts()
    waited = time.monotonic() - started

    message = str(raised.value)
    assert waited < 10, waited
    assert one_line(message)
    assert f"127.0.0.1:{own_postgres.port}/{database}" in message
    leaked = own_postgres.password in message
    assert not leaked, "the password shows in the message"  # so that a failure prints none
    own_postgres.start_server()
    assert opened.counts()["anomaly marks"] == 1


def test_a_damaged_embedded_file_is_kept_aside(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An embedded file that is not a database (a disk's garbage, another program's file) is
    moved aside, with one warning naming both files, and a fresh store made in its place;
    the moved file is kept byte for byte, for a person to look at."""
    folder = tmp_path / "state"
    folder.mkdir()
    garbage = b"this is not an SQLite database\x00\xff" * 200
    (folder / EMBEDDED_FILE).write_bytes(garbage)
    caplog.set_level(logging.WARNING)

    opened = embedded_store(folder)

    warnings = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert len(warnings) == 1, [record.getMessage() for record in warnings]
    (kept,) = folder.glob(f"{EMBEDDED_FILE}.damaged-*")
    assert kept.read_bytes() == garbage
    assert str(kept) in warnings[0].getMessage()
    assert opened.version() == HEAD
    opened.run(lambda connection: connection.execute(insert(marks).values(**mark("acme"))))
    assert opened.counts()["anomaly marks"] == 1
