"""Where an account's own records are kept (anomaly marks, alert deliveries, the key audit
log, the guardrails' memory): which state store, and the account's name in it.

One rule for every kind of record: a real account's go to the configured store
(``SERVICE_STATE_URL``, else the embedded file in the history folder); the demo
organization's stay in the embedded store of its own host, as the demo itself does.
"""

from __future__ import annotations

from dataclasses import dataclass

from analytics.service import ServiceConnection
from analytics.storage import Store, embedded_store, open_store
from analytics.usage.history import account_name


@dataclass(frozen=True)
class Records:
    """One account's records: the store and the account's name in it."""

    store: Store
    account: str


def store_of(connection: ServiceConnection, demo: bool) -> Store | None:
    """The store this run keeps records in; None when nothing can be kept (no history folder
    and no ``SERVICE_STATE_URL``)."""
    if demo:
        return None if connection.history_path is None else embedded_store(connection.history_path)
    address = connection.state_url.get_secret_value() if connection.state_url else None
    return open_store(connection.history_path, address)


def records_of(connection: ServiceConnection, demo: bool) -> Records | None:
    """The account's records (the demo organization's own for the demo); None when no store
    is configured or there is no account."""
    if demo:
        name = connection.demo_name
    elif connection.is_configured and connection.auth_key and connection.base_url:
        name = account_name(connection.base_url, connection.auth_key)
    else:
        return None
    store = store_of(connection, demo)
    return None if store is None else Records(store, name)
