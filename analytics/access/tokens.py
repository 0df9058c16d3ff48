"""The HTTP API's bearer tokens: each gives a dashboard elsewhere (Grafana, a BI tool, a portal)
the scope one person of a role has on the dashboard, one team's or the whole organization's.

A token is shown once, when it is made, and never kept: the state store holds its SHA-256
digest (a token is 32 random bytes, so a digest needs no salt or slow hash to resist guessing),
which a request's token is looked up by. Each token has a public id, which logs and lists name
it by; revoking one keeps its row, so the list still tells who made it and when it stopped.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select, update

from analytics.access.scope import WHOLE_ORGANIZATION, Scope
from analytics.storage import api_tokens as table
from analytics.usage import Records

# A token starts with this, so a secret scanner (and a person) can tell it for what it is.
PREFIX = "uda_"


class TokenNotFound(LookupError):
    """No token of the account has the id given."""


@dataclass(frozen=True)
class ApiToken:
    """One token as the store keeps it: never the token itself."""

    id: str
    name: str
    team: str | None  # None: the whole organization
    made_by: str
    made_at: datetime
    revoked: datetime | None = None

    @property
    def scope(self) -> Scope:
        """What the token sees: its team's scope, or the whole organization."""
        return WHOLE_ORGANIZATION if self.team is None else Scope(frozenset({self.team}))


def digest(token: str) -> str:
    """The token's SHA-256, as hex: what the store keeps and looks a request's token up by."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Tokens:
    """The account's API tokens in its state store."""

    records: Records

    def create(self, team: str | None, made_by: str, now: datetime) -> tuple[ApiToken, str]:
        """A new token of ``team`` (None: the organization) and its secret, which is returned
        once and kept nowhere."""
        secret = PREFIX + secrets.token_urlsafe(32)
        made = ApiToken(
            id=secrets.token_hex(6),
            name=team or "organization",
            team=team,
            made_by=made_by,
            made_at=now,
        )
        row = {**_values(made), "account": self.records.account, "digest": digest(secret)}
        self.records.store.run(lambda connection: connection.execute(insert(table).values(row)))
        return made, secret

    def listed(self) -> list[ApiToken]:
        """Every token of the account, revoked ones included, oldest first."""
        query = (
            select(*_COLUMNS)
            .where(table.c.account == self.records.account)
            .order_by(table.c.made_at, table.c.id)
        )
        rows = self.records.store.run(lambda connection: connection.execute(query).all())
        return [ApiToken(*row) for row in rows]

    def revoke(self, token_id: str, now: datetime) -> ApiToken:
        """Stop the token ``token_id`` working from now on (`TokenNotFound`: no such id); a
        token revoked before keeps its first revocation."""
        mine = (table.c.account == self.records.account) & (table.c.id == token_id)
        query = update(table).where(mine & table.c.revoked.is_(None)).values(revoked=now)
        self.records.store.run(lambda connection: connection.execute(query))
        found = [token for token in self.listed() if token.id == token_id]
        if not found:
            raise TokenNotFound(f"no API token has the id {token_id!r}")
        return found[0]

    def bearer(self, token: str) -> ApiToken | None:
        """The live token a request presents, None for an unknown or revoked one."""
        query = select(*_COLUMNS).where(
            (table.c.account == self.records.account)
            & (table.c.digest == digest(token))
            & table.c.revoked.is_(None)
        )
        row = self.records.store.run(lambda connection: connection.execute(query).first())
        return None if row is None else ApiToken(*row)


_COLUMNS = (
    table.c.id,
    table.c.name,
    table.c.team,
    table.c.made_by,
    table.c.made_at,
    table.c.revoked,
)


def _values(token: ApiToken) -> dict[str, object]:
    return {column.name: getattr(token, column.name) for column in _COLUMNS}
