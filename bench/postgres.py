"""Throw-away PostgreSQL clusters from Debian's packages, shared by the benchmark (the state
store's lines, `bench/state.py`) and the test suite (`tests/support/postgres.py`, which shares
one cluster among a run's processes): what matters to both (advisory locks across processes,
transactional DDL, a refused password, a write's commit) is a real server's behaviour.

PostgreSQL refuses to run as root, and CI runs as root: then the server's programs run as the
unprivileged ``postgres`` user Debian's package makes, in a folder handed over to it. A
cluster for the tests is tuned for speed, not for keeping data (`SETTINGS`: nothing is flushed
to disk, the folder is in memory), so it starts in under a second and a database is made in
tens of milliseconds; one for the benchmark (`Cluster.start(durable=True)`, `DURABLE`) keeps
PostgreSQL's own durability (every commit flushed, as a deployment keeps it) on the disk,
beside the embedded store it is measured against.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from psycopg import sql
from sqlalchemy.engine import make_url

from bench.processes import free_port

# The login role the store connects as over TCP with a password, as a deployment does: not a
# superuser, owner of the databases made for it.
ROLE = "tests"
# The superuser initdb makes; reached only through the cluster's own socket folder.
ADMIN = "postgres"
# The tests' settings, for speed over durability (a crash loses a throw-away cluster, nothing
# else), and room for the suite's concurrent processes: each test process keeps a small pool
# per store.
SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "shared_buffers": "16MB",
    "max_connections": "200",
    "autovacuum": "off",
    "jit": "off",
    "huge_pages": "off",
    "max_wal_size": "1GB",
    "checkpoint_timeout": "1h",
    "password_encryption": "'scram-sha-256'",
}
# The benchmark's: PostgreSQL's defaults (fsync, synchronous_commit and full_page_writes on,
# 128 MB of shared buffers), so that a commit is flushed to the disk, as the embedded store's
# is; only where it listens and how it checks a password are set.
DURABLE = {
    "listen_addresses": "'127.0.0.1'",
    "password_encryption": "'scram-sha-256'",
}
# Where Debian's packages put each server version's initdb (found, not named: see `binaries`).
SERVERS = "/usr/lib/postgresql/*/bin/initdb"
MEMORY = "/dev/shm"  # a folder of its own is made inside, by mkdtemp
MEMORY_ROOM = 1 << 30  # free bytes the memory file system must have to take a cluster
START_SECONDS = 60  # how long pg_ctl waits for a start on a loaded two-core machine


class PostgresMissing(RuntimeError):
    """Debian's PostgreSQL server is not installed (`.ci/run` installs it), or cannot run here
    (root, without the `postgres` user)."""


def binaries() -> Path:
    """The newest installed server's programs (``/usr/lib/postgresql/<version>/bin``), found
    rather than named so that a Debian release with another version needs no change here."""
    found = sorted(
        (Path(path).parent for path in glob.glob(SERVERS)),
        key=lambda folder: int(folder.parent.name) if folder.parent.name.isdigit() else 0,
    )
    if not found:
        raise PostgresMissing(f"no {SERVERS}: apt-get install postgresql")
    return found[-1]


def _memory_folder() -> str | None:
    """Where a cluster's folder goes: the memory file system when it has room, since initdb
    writes some two thousand files and takes three times as long on the disk (about 1 s
    against 0.35 s here); None (the usual temporary folder) otherwise."""
    with contextlib.suppress(OSError):
        memory = os.statvfs(MEMORY)
        if memory.f_bavail * memory.f_frsize >= MEMORY_ROOM and os.access(MEMORY, os.W_OK):
            return MEMORY
    return None


def _server_user() -> pwd.struct_passwd | None:
    """The user the server runs as when this process is root (PostgreSQL will not run as
    root); None when it runs as this process's own user."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("postgres")
    except KeyError:
        raise PostgresMissing("running as root and no `postgres` user to run the server") from None


def _as_server(command: list[str]) -> list[str]:
    """`command` as the server's user: through runuser when this process is root."""
    user = _server_user()
    return command if user is None else ["runuser", "-u", user.pw_name, "--", *command]


class Address(str):
    """A database's address, password included, whose repr hides the password: pytest shows
    a failing test's arguments (and with ``-l`` its locals) by their repr, and no report may
    show a password. As a string it is the whole address."""

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(make_url(str(self)).render_as_string(hide_password=True))


@dataclass(frozen=True)
class Cluster:
    """One running cluster: its folder (data, socket, log), its port on 127.0.0.1 and its
    login role's password. It holds no connection of its own, so it can be written to and
    read from a file by every process of the run."""

    folder: str
    port: int
    password: str = field(repr=False)  # shown nowhere, as `Address` shows none

    @property
    def data(self) -> Path:
        return Path(self.folder) / "data"

    @property
    def log(self) -> Path:
        return Path(self.folder) / "server.log"

    def url(self, database: str) -> Address:
        """The address of `database` as the store takes it: the login role, over TCP."""
        return Address(f"postgresql://{ROLE}:{self.password}@127.0.0.1:{self.port}/{database}")

    @contextlib.contextmanager
    def admin(self) -> Iterator[psycopg.Connection]:
        """The superuser, through the socket in the cluster's own folder (trusted: only this
        user, or root, can enter that folder), outside any transaction (CREATE DATABASE
        cannot run in one)."""
        with psycopg.connect(
            host=self.folder, port=self.port, user=ADMIN, dbname="postgres", autocommit=True
        ) as connection:
            yield connection

    def create_database(self) -> str:
        """A fresh empty database owned by the login role; its name."""
        name = f"test_{uuid.uuid4().hex[:20]}"
        with self.admin() as connection:
            # A file copy of the small template takes some 30 ms; PostgreSQL 15's default (the
            # template written through the WAL) up to ten times that while the WAL grows.
            copy = " STRATEGY FILE_COPY" if connection.info.server_version >= 150000 else ""
            connection.execute(
                sql.SQL("CREATE DATABASE {} OWNER {}" + copy).format(
                    sql.Identifier(name), sql.Identifier(ROLE)
                )
            )
        return name

    def drop_database(self, name: str) -> None:
        """Drop `name`, closing what is still connected (a store's pool outlives its test in
        the store module's cache), so a long run does not fill the folder with databases."""
        with self.admin() as connection:
            connection.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )

    def _pg_ctl(self, *arguments: str) -> None:
        finished = subprocess.run(
            _as_server([str(binaries() / "pg_ctl"), "-D", str(self.data), *arguments]),
            cwd=self.folder,
            capture_output=True,
            text=True,
            check=False,
        )
        if finished.returncode != 0:
            raise RuntimeError(
                f"pg_ctl {arguments[-1]} failed ({finished.returncode}): "
                f"{finished.stderr.strip()} {self._log_tail()}"
            )

    def _log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return self.log.read_text(errors="replace")[-2000:]
        return ""

    def start_server(self) -> None:
        """Start the server on its data (again, after `stop_server`), waiting until it takes
        connections."""
        self._pg_ctl("-l", str(self.log), "-w", "-t", str(START_SECONDS), "start")

    def stop_server(self, mode: str = "fast") -> None:
        """Stop the server: ``fast`` cuts the connections and keeps every commit, as an
        administrator's stop does; ``immediate`` is a crash, which with the test settings
        (`synchronous_commit` off) may lose the last commits, so it is only for `remove`."""
        self._pg_ctl("-m", mode, "-w", "stop")

    def remove(self) -> None:
        """Stop the server if it runs and remove the folder: nothing of it is left."""
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(RuntimeError):
                self.stop_server("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)

    @classmethod
    def start(cls, *, durable: bool = False) -> Cluster:
        """Make a cluster in a new temporary folder and start it on a free loopback port,
        with the login role made; a port taken between choosing and binding is tried again.
        The tests' (`SETTINGS`) in memory when there is room; `durable`, the benchmark's
        (`DURABLE`), in the usual temporary folder, on the disk."""
        if durable:
            folder = Path(tempfile.mkdtemp(prefix="pg-bench-"))
        else:
            folder = Path(tempfile.mkdtemp(prefix="pg-tests-", dir=_memory_folder()))
        user = _server_user()
        if user is not None:
            os.chown(folder, user.pw_uid, user.pw_gid)
        try:
            return cls._initialized(folder, DURABLE if durable else SETTINGS)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise

    @classmethod
    def _initialized(cls, folder: Path, chosen: dict[str, str]) -> Cluster:
        cluster = cls(str(folder), free_port(), secrets.token_urlsafe(24))
        subprocess.run(
            _as_server(
                [
                    str(binaries() / "initdb"),
                    "--pgdata",
                    str(cluster.data),
                    "--username",
                    ADMIN,
                    "--encoding",
                    "UTF8",
                    "--locale",
                    "C",
                    "--no-sync",
                    "--auth-local",
                    "trust",
                    "--auth-host",
                    "scram-sha-256",
                ]
            ),
            cwd=folder,
            capture_output=True,
            check=True,
        )
        for attempt in range(3):
            settings = {**chosen, "port": str(cluster.port)}
            settings["unix_socket_directories"] = f"'{folder}'"
            lines = "".join(f"{name} = {value}\n" for name, value in settings.items())
            # Appended, so these win over initdb's defaults above them; kept in the file, so a
            # restart (`start_server`) listens where the first start did.
            with (cluster.data / "postgresql.conf").open("a") as conf:
                conf.write(f"\n# bench/postgres.py\n{lines}")
            try:
                cluster.start_server()
                break
            except RuntimeError:
                if attempt == 2 or "already in use" not in cluster._log_tail():
                    raise
                cluster = cls(cluster.folder, free_port(), cluster.password)
        with cluster.admin() as connection:
            connection.execute(
                sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
                    sql.Identifier(ROLE), sql.Literal(cluster.password)
                )
            )
        return cluster


def missing() -> str | None:
    """Why no cluster can be started here, in one line; None when one can."""
    try:
        binaries()
        _server_user()
    except PostgresMissing as exc:
        return str(exc)
    return None


@contextlib.contextmanager
def durable_cluster() -> Iterator[Cluster]:
    """A cluster of the benchmark's (`Cluster.start(durable=True)`) for the block; nothing of
    it is left after."""
    cluster = Cluster.start(durable=True)
    try:
        yield cluster
    finally:
        cluster.remove()
