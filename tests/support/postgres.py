"""Throw-away PostgreSQL servers for the tests, from Debian's packages: the store's PostgreSQL
backend is tested against a real server, never a mock, because what matters (advisory locks
across processes, transactional DDL, a refused password, a server gone between two commands)
is the server's behaviour, not the driver's.

One cluster serves a whole test run. It is started on first use, not eagerly: a run that
reaches no PostgreSQL test pays nothing. Under pytest-xdist the controller only names a shared
folder (`SHARED_VARIABLE`, inherited by the workers); the first worker to need a server starts
it under a file lock there and writes where it listens, the others read that, and the
controller stops it and removes everything when the run ends (`stop_shared`). Without xdist
the one process plays both parts. A test that stops the server takes a cluster of its own
(`Cluster.start`), so the shared one never goes away under another worker's test.

A cluster itself (`Cluster`: started, a database made, stopped, removed) is `bench.postgres`'s,
which the benchmark's state lines start too; the server is tuned for tests, not for keeping
data: nothing is flushed to disk, so a cluster starts in under a second and a database is
made in tens of milliseconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path

from filelock import FileLock

from bench.postgres import (
    ADMIN,
    MEMORY,
    MEMORY_ROOM,
    ROLE,
    SETTINGS,
    START_SECONDS,
    Address,
    Cluster,
    PostgresMissing,
    binaries,
)

__all__ = [
    "ADMIN",
    "MEMORY",
    "MEMORY_ROOM",
    "ROLE",
    "SETTINGS",
    "SHARED_VARIABLE",
    "START_SECONDS",
    "Address",
    "Cluster",
    "PostgresMissing",
    "binaries",
    "claim_shared",
    "shared_cluster",
    "stop_shared",
]

# The environment variable naming the run's shared folder: set by the process that owns the
# run (the xdist controller, or the only process), inherited by the workers. It is not a
# SERVICE_ setting, so the suite's `fresh_environment` leaves it alone.
SHARED_VARIABLE = "USAGE_DASHBOARD_TEST_POSTGRES"
_STATE = "cluster.json"


# --- the run's shared cluster ------------------------------------------------------------


def claim_shared() -> Path | None:
    """For the process that owns the run: name a shared folder for the workers (None when an
    outer process already did, e.g. a test running pytest inside the suite's run)."""
    if os.environ.get(SHARED_VARIABLE):
        return None
    shared = Path(tempfile.mkdtemp(prefix="pg-tests-shared-"))
    os.environ[SHARED_VARIABLE] = str(shared)
    return shared


def shared_cluster() -> Cluster:
    """The run's cluster, started by the first process to ask for it."""
    named = os.environ.get(SHARED_VARIABLE)
    if not named:
        raise RuntimeError(f"{SHARED_VARIABLE} is not set: tests/conftest.py sets it")
    shared = Path(named)
    with FileLock(shared / ".lock"):
        state = shared / _STATE
        if state.exists():
            return Cluster(**json.loads(state.read_text()))
        cluster = Cluster.start()
        # The password is in the file: it is readable only by this user, in a folder only
        # this user can enter, and both go when the run ends.
        descriptor = os.open(state, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            json.dump(asdict(cluster), handle)
        return cluster


def stop_shared(shared: Path) -> None:
    """For the owner, as the run ends: stop the shared cluster if one was started, and remove
    it and the shared folder."""
    with contextlib.suppress(FileNotFoundError, ValueError):
        Cluster(**json.loads((shared / _STATE).read_text())).remove()
    shutil.rmtree(shared, ignore_errors=True)
    os.environ.pop(SHARED_VARIABLE, None)
