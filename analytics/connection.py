"""The service a front end talks to, chosen once for both: the configured service, or in demo
mode the emulator run inside this process, reached without a port.

The demo organization lives in one SQLite file in the history folder (`DemoFiles`), shared by
the dashboard and every `--demo` command: a key renamed on the dashboard is renamed for the
next command, and the other way round. The file is kept while it holds the same organization
(the same seed, keys, days and tags, generated for the same UTC day) and loaded again
otherwise: on a new UTC day, over a file of an older layout or a damaged one (which the
emulator moves aside), and by `reset_demo`. Whenever it is loaded, the demo's key audit log is
dropped under the same lock, so the log never lists a change the store no longer holds, and so
is its guardrail state, so the next guardrails run takes the limits loaded as the keys' own.
Without a history folder the organization lives in memory, in each process on its own.

This module is the one place the analytics package reaches into the emulator, imported lazily
so that a real organization never loads it; the service layer below knows only a client.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import TYPE_CHECKING, cast

import httpx
from pydantic import SecretStr

from analytics.guardrails import memory as guardrail_state
from analytics.keys import audit
from analytics.service import (
    DEMO_BASE_URL,
    DemoFiles,
    Policy,
    ServiceClient,
    ServiceConnection,
    demo_lock,
)
from analytics.storage import embedded_store
from analytics.usage import Records

if TYPE_CHECKING:
    from fastapi import FastAPI

log = logging.getLogger(__name__)


def service_client(
    connection: ServiceConnection, demo: bool, policy: Policy | None = None
) -> ServiceClient:
    """The client of the configured service, waiting as `policy` says (None: as a client does
    by default), or with `demo` of the demo organization, which answers in this process under
    the default policy."""
    if demo:
        return demo_client(connection)
    if policy is None:
        return ServiceClient.from_connection(connection)
    return ServiceClient.from_connection(connection, policy)


@lru_cache(maxsize=8)
def demo_app(
    seed: int, keys: int, days: int, tags: int | None = None, files: DemoFiles | None = None
) -> FastAPI:
    """One emulator app per organization shape and place (`files`; None: in memory), so a
    process builds the organization once; the store file is written only when it does not
    hold this organization yet."""
    app, dropped = _opened(seed, keys, days, tags, files, fresh=False)
    if dropped and files is not None:
        log.warning(
            "the demo organization was made again in %s (its file was of another UTC day, "
            "missing or unusable): changes made to its keys are undone, and its key audit log "
            "(%d entries) is removed",
            files.store,
            dropped,
        )
    return app


def _opened(
    seed: int, keys: int, days: int, tags: int | None, files: DemoFiles | None, *, fresh: bool
) -> tuple[FastAPI, int]:
    """The emulator app of the organization, on `files` when given, and the number of audit
    entries dropped: the organization is loaded into the store, and the audit log and the
    guardrail state dropped with what they held, when the store does not hold it yet, or when
    `fresh`."""
    from emulator import EmulatorConfig, create_app

    db = None if files is None else files.store
    config = EmulatorConfig(seed=seed, keys=keys, days=days, tags=tags, db=db, fresh=fresh)
    if files is None:
        return cast("FastAPI", create_app(config)), 0
    with demo_lock(files):
        app = cast("FastAPI", create_app(config))
        if not app.state.emulator.loaded:
            return app, 0
        # The demo's records end with its store (its appenders take the same lock): the
        # limits the guardrail state remembers as hand-set were the old store's.
        records = Records(embedded_store(files.store.parent), files.account)
        guardrail_state.forget(records)
        return app, audit.drop(records)


def reset_demo(connection: ServiceConnection) -> tuple[DemoFiles, int] | None:
    """Load the demo organization afresh into its store, in place, so that a dashboard or
    command using it sees the original organization at its next request, and drop its audit
    log: the files and the number of audit entries dropped. None without a history folder:
    the demo then lives in memory and ends with each process."""
    files = connection.demo_files
    if files is None:
        return None
    app, dropped = _opened(
        connection.demo_seed,
        connection.demo_keys,
        connection.demo_days,
        connection.demo_tags,
        files,
        fresh=True,
    )
    app.state.emulator.store.close()
    return files, dropped


def demo_client(connection: ServiceConnection) -> ServiceClient:
    """A client of the synthetic organization described by the connection's demo_* values."""
    files = connection.demo_files
    if files is None:
        log.warning(
            "no history folder: the demo organization is kept in memory, and changes to its "
            "keys end with this process"
        )
    app = demo_app(
        connection.demo_seed,
        connection.demo_keys,
        connection.demo_days,
        connection.demo_tags,
        files,
    )
    return in_process_client(app, auth_scheme=connection.auth_scheme)


def in_process_client(
    app: FastAPI, key: SecretStr | None = None, *, auth_scheme: str = "Service-Auth-Key"
) -> ServiceClient:
    """A client of an emulator app run in this process, reached without a port at the demo's
    address, with the organization's admin key or `key` (one of its developer keys): the demo's
    client, and the benchmark's of each organization it builds, so both are reached alike."""
    return ServiceClient(
        DEMO_BASE_URL,
        key or SecretStr(app.state.emulator.admin_key),
        auth_scheme=auth_scheme,
        transport=httpx.ASGITransport(app=app),
    )
