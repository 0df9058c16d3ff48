"""The state store: one database for what the product knows and the service cannot give back
(anomaly marks, alert deliveries, the key audit log, the guardrails' memory).

Two places, one code path (SQLAlchemy Core over the tables of `schema`):

- **embedded**, the default: one SQLite file in the history folder. Every transaction begins
  with ``BEGIN IMMEDIATE``, so writers take turns (each waits up to `BUSY_SECONDS`) and a
  read-modify-write is never lost; the file is in WAL mode, so readers never wait.
- **PostgreSQL** (``SERVICE_STATE_URL``), for a deployment on several hosts: psycopg 3 under
  SQLAlchemy's connection pool, TLS through the URL's ``sslmode``.

The schema is Alembic's: a process that finds it behind migrates it inside one transaction
under the migration lock (PostgreSQL's transaction-level advisory lock; SQLite's write lock),
so processes starting at once migrate once; a schema newer than this program's is refused.
Every transaction is retried a bounded number of times on a transient failure (a dropped
connection, a busy file) with stamina; what still fails raises `StoreUnavailable`, whose one
line names the place (host and database, never the password) and what failed. Long-held locks
(`Store.lock`: one guardrails applier, one notifier) are PostgreSQL session advisory locks, or
a file lock beside the embedded file, which only one host reaches.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3 as sqlite_driver
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Final, TypeVar

import stamina
from filelock import FileLock
from sqlalchemy import (
    Connection,
    Engine,
    Table,
    create_engine,
    event,
    func,
    inspect,
    select,
    text,
    union,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, DBAPIError, OperationalError
from sqlalchemy.pool import ConnectionPoolEntry

from analytics.storage.files import move_aside
from analytics.storage.schema import HEAD, RECORDS

log = logging.getLogger(__name__)

T = TypeVar("T")

EMBEDDED_FILE: Final = "state.sqlite"
BUSY_SECONDS: Final = 30.0  # how long an embedded writer waits for another's turn
CONNECT_SECONDS: Final = 5  # PostgreSQL's connect timeout, unless the URL gives one
ATTEMPTS: Final = 3  # tries of one transaction before it is reported as not done
_MIGRATIONS = Path(__file__).with_name("migrations")
_VERSIONS = "alembic_version"  # the table where Alembic records the schema's revision
# SQLSTATE classes of failures that trying again cannot mend: the credentials (28), the
# database's name (3D), the privileges (42501).
_PERMANENT = ("28", "3D", "42501")
# The same refusals when the server gives them as a connection is made: libpq passes on the
# server's message but not its SQLSTATE (psycopg's error has none), so they are known by it.
_REFUSED = (
    "password authentication failed",
    "does not exist",
    "no pg_hba.conf entry",
    "permission denied",
)


class StoreError(Exception):
    """The store cannot be used as configured (a wrong password, an unknown database, a
    schema newer than this program's); the text is one line and holds no secret."""


class StoreUnavailable(StoreError):
    """The store could not be reached, or failed, after the bounded retries: whatever was
    being written was not written."""


def _place(url: URL) -> str:
    """Where a PostgreSQL store is, for people: host, port and database, never the password."""
    return f"PostgreSQL at {url.host or 'localhost'}:{url.port or 5432}/{url.database or ''}"


def _reason(exc: BaseException, secret: str | None) -> str:
    """The driver's reason in one line (its first), with the password taken out however the
    driver quoted it."""
    original = getattr(exc, "orig", None) or exc
    lines = [line.strip() for line in str(original).splitlines() if line.strip()]
    reason = lines[0] if lines else type(original).__name__
    return reason.replace(secret, "***") if secret else reason


def _transient(exc: BaseException) -> bool:
    """Worth another try: a dropped or refused connection, a busy embedded file; never bad
    credentials or an unknown database."""
    if not isinstance(exc, OperationalError):
        return False
    state = getattr(exc.orig, "sqlstate", None) or ""
    if state:
        return not state.startswith(_PERMANENT)
    message = str(exc.orig)
    return not ("FATAL:" in message and any(refused in message for refused in _REFUSED))


@dataclass(eq=False)
class Store:
    """One state store: an engine, its place for people, and its long-held locks."""

    engine: Engine
    where: str
    path: Path | None = None  # the embedded file; None for PostgreSQL
    _secret: str | None = field(default=None, repr=False)

    @property
    def embedded(self) -> bool:
        return self.path is not None

    def run(self, work: Callable[[Connection], T]) -> T:
        """`work` in one transaction, committed when it returns; tried again on a transient
        failure, up to `ATTEMPTS` times. A failure left is `StoreUnavailable` (or `StoreError`
        when trying again cannot help), and nothing of the transaction is kept."""
        try:
            for attempt in stamina.retry_context(
                on=_transient, attempts=ATTEMPTS, wait_initial=0.2, wait_max=2.0, timeout=None
            ):
                with attempt, self.engine.begin() as connection:
                    return work(connection)
        except DBAPIError as exc:
            raise self._error(exc) from None
        raise AssertionError("unreachable: stamina either returned or raised")  # pragma: no cover

    def _error(self, exc: DBAPIError) -> StoreError:
        kind = StoreUnavailable if _transient(exc) else StoreError
        return kind(f"The state store ({self.where}) failed: {_reason(exc, self._secret)}")

    @contextmanager
    def lock(self, name: str) -> Iterator[None]:
        """Hold the store-wide lock `name` (one holder on any host) until the block ends; it
        is released, too, when the holder's process or connection dies."""
        if self.path is not None:
            held = self.path.with_name(f".{self.path.name}.{name}.lock")
            with FileLock(held, thread_local=False):
                yield
            return
        number = _lock_number(name)
        try:
            connection = self.engine.connect()
            connection.execute(select(func.pg_advisory_lock(number)))
            connection.commit()
        except DBAPIError as exc:
            raise self._error(exc) from None
        try:
            yield
        finally:
            with suppress(DBAPIError):
                connection.execute(select(func.pg_advisory_unlock(number)))
                connection.commit()
            connection.close()

    def ping(self) -> None:
        """Ask the store for nothing: `StoreUnavailable` when it cannot be reached, so that an
        action whose record must be kept is not taken."""
        self.run(lambda connection: connection.execute(select(1)))

    def version(self) -> str | None:
        """The schema's revision as stored (None: an empty database)."""
        return self.run(_revision)

    def accounts(self) -> list[str]:
        """Every account the store holds records of."""

        def found(connection: Connection) -> list[str]:
            tables = [t for t in RECORDS.values() if "account" in t.c]
            names = union(*(select(t.c.account) for t in tables))
            return sorted(connection.execute(names).scalars())

        return self.run(found)

    def counts(self) -> dict[str, int]:
        """How many records of each kind the store holds."""

        def count(connection: Connection) -> dict[str, int]:
            return {
                name: connection.execute(select(func.count()).select_from(table)).scalar_one()
                for name, table in RECORDS.items()
            }

        return self.run(count)


def upsert(connection: Connection, table: Table, values: Mapping[str, object], keys: int) -> None:
    """Insert a row, or replace the one with the same first `keys` values (the table's primary
    key, in order): one statement the database makes atomic on either dialect, so two writers
    of the same row never collide."""
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    given = dialect.insert(table).values(**values)
    names = list(values)
    connection.execute(
        given.on_conflict_do_update(
            index_elements=names[:keys],
            set_={name: given.excluded[name] for name in names[keys:]},
        )
    )


def _lock_number(name: str) -> int:
    """A lock's name as the signed 64-bit number PostgreSQL's advisory locks take."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), signed=True)


_MIGRATION_LOCK: Final = _lock_number("schema migration")


def _revision(connection: Connection) -> str | None:
    """The revision Alembic recorded, read without loading Alembic (a command's start-up pays
    for it only when it migrates)."""
    if not inspect(connection).has_table(_VERSIONS):
        return None
    found = connection.execute(text(f"SELECT version_num FROM {_VERSIONS}")).scalar()  # noqa: S608
    return None if found is None else str(found)


def _migrate(connection: Connection, where: str) -> str | None:
    """Bring the schema to `HEAD` inside the caller's transaction, under the migration lock;
    the revision it was at when it had to move (None when it was current). `where` names the
    store in the refusal of a newer schema, whose one line is all a person sees."""
    if connection.dialect.name == "postgresql":
        connection.execute(select(func.pg_advisory_xact_lock(_MIGRATION_LOCK)))
    found = _revision(connection)
    if found == HEAD:
        return None
    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    known = {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}
    if found is not None and found not in known:
        raise StoreError(
            f"The state store ({where}) has schema version {found}, newer than this "
            f"program's {HEAD}: upgrade the program on this host before it uses the store"
        )
    config.attributes["connection"] = connection
    command.upgrade(config, HEAD)
    return found or "empty"


def _embedded_engine(path: Path) -> Engine:
    engine = create_engine(f"sqlite+pysqlite:///{path}", connect_args={"timeout": BUSY_SECONDS})

    @event.listens_for(engine, "connect")
    def _connected(dbapi: sqlite_driver.Connection, _record: ConnectionPoolEntry) -> None:
        dbapi.isolation_level = None  # transactions are begun below, not by the driver
        dbapi.execute("PRAGMA journal_mode=WAL")

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def _opened(store: Store) -> Store:
    migrated = store.run(lambda connection: _migrate(connection, store.where))
    if migrated is not None:
        log.info("the state store (%s) was migrated from %s to %s", store.where, migrated, HEAD)
    return store


@lru_cache(maxsize=16)
def embedded_store(folder: Path) -> Store:
    """The embedded store in `folder`, migrated; a file that is not a database is moved aside
    with one warning and the store made afresh (what it held is kept in the moved file)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / EMBEDDED_FILE
    store = Store(_embedded_engine(path), str(path), path)
    try:
        return _opened(store)
    except StoreError as exc:
        if not isinstance(exc.__context__, DatabaseError) or isinstance(
            exc.__context__, OperationalError
        ):
            raise
    store.engine.dispose()
    kept = move_aside(path)
    log.warning("The state store %s was not a database; kept as %s, starting afresh", path, kept)
    return _opened(Store(_embedded_engine(path), str(path), path))


@lru_cache(maxsize=4)
def postgresql_store(address: str) -> Store:
    """The PostgreSQL store at `address` (``postgresql://user:password@host:port/db``),
    migrated. Engines are kept per address, so a process opens one pool per database."""
    try:
        url = make_url(address)
    except ArgumentError:
        raise StoreError("SERVICE_STATE_URL is not a database URL") from None
    if url.get_backend_name() not in ("postgresql", "postgres"):
        raise StoreError(
            f"SERVICE_STATE_URL must start with postgresql://, not {url.get_backend_name()}://"
        )
    query = dict(url.query)
    query.setdefault("connect_timeout", str(CONNECT_SECONDS))
    url = url.set(drivername="postgresql+psycopg", query=query)
    engine = create_engine(url, pool_pre_ping=True, pool_size=2, max_overflow=6)
    return _opened(Store(engine, _place(url), None, url.password))


def open_store(folder: Path | None, address: str | None) -> Store | None:
    """The configured store: PostgreSQL at `address` when given, else the embedded one in
    `folder`; None when neither is set (nothing can be kept)."""
    if address:
        return postgresql_store(address)
    return None if folder is None else embedded_store(folder)


def check_text(store: Store) -> str:
    """Where the store is, its schema version and its records, as `state check` prints."""
    lines = [f"State store: {store.where}", f"Schema version: {store.version()}"]
    lines += [f"{name}: {count:,}" for name, count in store.counts().items()]
    return "\n".join(lines)
