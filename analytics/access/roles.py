"""Who may do what: the roles a person holds, from e-mail lists and a claim of the sign-in
token, and the rights they add up to.

A **role** is a set of rights; a **grant** is a role, limited to one team where the role can
be. The rights of several grants are their union and never more: there is no role that takes
a right away, so adding a grant can only widen what a person may see or change, and nobody
without a grant gets in (fail closed).

The table, as the deployment guide states it:

| role | sees | changes keys | changes settings |
| --- | --- | --- | --- |
| organization viewer (``ADMIN_EMAILS``) | the organization | — | — |
| finance | the organization | — | — |
| team lead of T | team T | — | — |
| key administrator (``KEY_ADMIN_EMAILS``) | the organization | every key | — |
| key administrator of T | team T | team T's keys | — |
| settings administrator (``SETTINGS_ADMIN_EMAILS``) | the organization | — | every document |

Finance holds the organization viewer's rights: money is part of what the organization viewer
sees today, and the role exists so an identity provider's finance group maps to a role by its
own name. Settings are documents of the whole organization (one teams document, one budgets
document), so a settings administrator is never limited to a team.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from analytics.cost import UNASSIGNED


class Role(StrEnum):
    """A role, named as the settings and the pages write it."""

    VIEWER = "organization viewer"
    FINANCE = "finance"
    TEAM_LEAD = "team lead"
    KEY_ADMIN = "key administrator"
    SETTINGS_ADMIN = "settings administrator"


# The roles that may (key administrator) or must (team lead) name a team.
TEAM_ROLES: Final = frozenset({Role.TEAM_LEAD, Role.KEY_ADMIN})
# The e-mail lists of the deployments before roles, each one role of the whole organization.
EMAIL_LISTS: Final[Mapping[str, Role]] = {
    "ADMIN_EMAILS": Role.VIEWER,
    "KEY_ADMIN_EMAILS": Role.KEY_ADMIN,
    "SETTINGS_ADMIN_EMAILS": Role.SETTINGS_ADMIN,
}
_GRANT = re.compile(r"(?P<role>.+?)(?: of (?P<team>.+))?")


class AccessSettingsError(ValueError):
    """The roles' settings cannot be read: the message names the entry and says why."""


@dataclass(frozen=True, order=True)
class Grant:
    """A role, over one team or (``team`` None) the whole organization."""

    role: Role
    team: str | None = None

    def __str__(self) -> str:
        return str(self.role) if self.team is None else f"{self.role} of {self.team}"


def parse_grant(text: str) -> Grant:
    """``"finance"``, ``"team lead of Web shop"``: a grant as the settings write it."""
    found = _GRANT.fullmatch(text.strip())
    roles = ", ".join(f"'{role}'" for role in Role)
    if found is None or found["role"] not in set(Role):
        raise AccessSettingsError(
            f"{text!r} is no role: write one of {roles}, with ' of TEAM' for a team lead"
        )
    role, team = Role(found["role"]), found["team"]
    if team is not None and role not in TEAM_ROLES:
        raise AccessSettingsError(f"{text!r}: the {role} role is never limited to a team")
    if team is None and role is Role.TEAM_LEAD:
        raise AccessSettingsError(f"{text!r}: name the team, e.g. 'team lead of Web shop'")
    if team is not None and team.strip().casefold() == UNASSIGNED.casefold():
        # The keys no team claims are nobody's team: a grant over them would widen with
        # every key added and not yet given a team.
        raise AccessSettingsError(f"{text!r}: {UNASSIGNED} is no team, but the keys of none")
    return Grant(role, team.strip() if team is not None else None)


@dataclass(frozen=True)
class Reach:
    """How far one right reaches: the whole organization, or some teams (none: no right)."""

    whole: bool = False
    teams: frozenset[str] = frozenset()

    def __or__(self, other: Reach) -> Reach:
        if self.whole or other.whole:
            return WHOLE
        return Reach(teams=self.teams | other.teams)

    def __bool__(self) -> bool:
        return self.whole or bool(self.teams)

    def covers(self, team: str) -> bool:
        """Whether this right reaches ``team`` (every team, for the whole organization)."""
        return self.whole or team in self.teams


NOWHERE: Final = Reach()
WHOLE: Final = Reach(whole=True)


@dataclass(frozen=True)
class Rights:
    """What a person may see and change; the union of their grants' rights."""

    see: Reach = NOWHERE
    change_keys: Reach = NOWHERE
    change_settings: Reach = NOWHERE

    def __or__(self, other: Rights) -> Rights:
        return Rights(
            self.see | other.see,
            self.change_keys | other.change_keys,
            self.change_settings | other.change_settings,
        )


def _reach(grant: Grant) -> Reach:
    return WHOLE if grant.team is None else Reach(teams=frozenset({grant.team}))


def grant_rights(grant: Grant) -> Rights:
    """The rights of one grant: the table of the module's docstring."""
    reach = _reach(grant)
    if grant.role is Role.KEY_ADMIN:
        return Rights(see=reach, change_keys=reach)
    if grant.role is Role.SETTINGS_ADMIN:
        return Rights(see=reach, change_settings=reach)
    return Rights(see=reach)  # organization viewer, finance, team lead: read only


def rights(grants: Iterable[Grant]) -> Rights:
    """The union of the grants' rights (no grant: no right at all)."""
    held = Rights()
    for grant in grants:
        held |= grant_rights(grant)
    return held


def _grants(value: object, where: str) -> frozenset[Grant]:
    if not isinstance(value, list) or not all(isinstance(entry, str) for entry in value):
        raise AccessSettingsError(f'{where} must be a list of roles, e.g. ["finance"]')
    try:
        return frozenset(parse_grant(entry) for entry in value)
    except AccessSettingsError as exc:
        raise AccessSettingsError(f"{where}: {exc}") from None


def _emails(value: object, name: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(entry, str) for entry in value):
        raise AccessSettingsError(f'{name} must be a list of e-mail addresses, e.g. ["a@x.org"]')
    return frozenset(entry.strip().casefold() for entry in value if entry.strip())


@dataclass(frozen=True)
class RoleSettings:
    """Who holds which grants: the e-mail lists, ``[roles.emails]`` (an address → grants) and
    ``[roles.groups]`` (a value of the token's ``claim`` → grants)."""

    emails: Mapping[str, frozenset[Grant]]
    claim: str | None = None
    groups: Mapping[str, frozenset[Grant]] | None = None

    def grants(self, email: str | None, claims: Mapping[str, Any]) -> frozenset[Grant]:
        """Every grant of the person signed in as ``email`` with the token's ``claims``.

        E-mail addresses compare without case; a claim's values are the group names as the
        identity provider writes them, one text or a list of texts, compared exactly.
        """
        held: set[Grant] = set()
        if email:
            held |= self.emails.get(email.strip().casefold(), frozenset())
        if self.claim is not None and self.groups:
            values = claims.get(self.claim)
            named = [values] if isinstance(values, str) else values
            if isinstance(named, list):
                for value in named:
                    if isinstance(value, str):
                        held |= self.groups.get(value, frozenset())
        return frozenset(held)


def role_settings(given: Mapping[str, Any]) -> RoleSettings:
    """The roles from the dashboard's secrets: the e-mail lists and the ``[roles]`` table.

    ``[roles]`` holds ``claim`` (the token's claim that names the person's groups, for
    example ``groups``), ``[roles.groups]`` (a group → its roles) and ``[roles.emails]`` (an
    address → its roles). Anything misspelled is an ``AccessSettingsError``: a sign-in whose
    roles cannot be read must close the dashboard, not open it wider or narrower.
    """
    emails: dict[str, set[Grant]] = {}
    for name, role in EMAIL_LISTS.items():
        if name in given:
            for email in _emails(given[name], name):
                emails.setdefault(email, set()).add(Grant(role))
    table = given.get("roles", {})
    if not isinstance(table, Mapping):
        raise AccessSettingsError("[roles] must be a table")
    unknown = set(table) - {"claim", "groups", "emails"}
    if unknown:
        raise AccessSettingsError(
            f"[roles] has no {', '.join(sorted(unknown))}: it holds claim, groups and emails"
        )
    claim = table.get("claim")
    if claim is not None and (not isinstance(claim, str) or not claim.strip()):
        raise AccessSettingsError("[roles] claim must name a claim of the token, e.g. 'groups'")
    groups = _table(table.get("groups", {}), "[roles.groups]")
    if groups and claim is None:
        raise AccessSettingsError("[roles.groups] needs [roles] claim, the claim naming groups")
    for address, held in _table(table.get("emails", {}), "[roles.emails]").items():
        emails.setdefault(address.strip().casefold(), set()).update(held)
    return RoleSettings(
        {address: frozenset(held) for address, held in emails.items()}, claim, groups
    )


def _table(value: object, where: str) -> dict[str, frozenset[Grant]]:
    if not isinstance(value, Mapping):
        raise AccessSettingsError(f"{where} must be a table of names and their roles")
    return {str(name): _grants(held, f"{where} {name!r}") for name, held in value.items()}
