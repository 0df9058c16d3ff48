"""The names a settings document gives checked against the organization: a budget's key or
team, a key owner's key and a team's claimed labels and tags, each one that does not exist
refused with the nearest existing name ("did you mean 'Field apps'?").

A name the file's parser accepts can still be a typo: a budget for key "Prodution website"
would be measured as "unknown key" at 0 % for ever, an owner given to "Mobil app" shown
nowhere. So each name a document gives is looked up among what the organization has: its
keys (their labels and masked keys, as a budget names a key), its custom tags, and the teams
of the teams document that will be in force.

Two kinds of name are told apart. A budget's key or team and a key owner's key name one thing
that must exist, so any name not found is refused. A team's ``labels`` and ``tags`` claim
keys and tags, which may well be made after the team (the examples' teams claim keys the demo
has not made yet): only a name nearly equal to an existing one (`TYPO`, a letter or two off)
is refused there, as the typo it is.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import Final

import pandas as pd

from analytics.service import DeveloperKey
from analytics.usage import calendar, labels

NEAR: Final = 0.6  # difflib's own cutoff: the suggestion offered for a name that must exist
TYPO: Final = 0.85  # a claimed label or tag this close to an existing one is a typo
USED: Final = "last-90-days"  # the range whose usage names the masked keys and the tags


@dataclass(frozen=True)
class Organization:
    """What a settings document may name: the keys' labels and masked keys, the custom tags
    used, and the teams of the teams document in force (None: there is none)."""

    keys: frozenset[str]
    tags: frozenset[str]
    teams: frozenset[str] | None


def used_range(today: date) -> tuple[date, date]:
    """The days whose usage and tag reports give the masked keys and tags a document may name
    (`USED`): a key or tag unused that long is named by the key list, or is no more."""
    return calendar.resolve(USED, today)


def organization(
    listed: Iterable[DeveloperKey],
    key_day: pd.DataFrame,
    tag_day: pd.DataFrame,
    teams_text: str | None,
) -> Organization:
    """The organization's names: the key list's labels, the masked keys and labels of the
    usage of `used_range` (``key_day``), the tags of its tag report (``tag_day``), and the
    teams of ``teams_text``, the teams document in force (or about to be)."""
    used = labels(key_day)
    keys = [key.label for key in listed] + [*used, *used.values()]
    tags = map(str, tag_day["custom_tag"].unique())
    teams = team_names(teams_text)
    return Organization(
        frozenset(k for k in keys if k.strip()),
        frozenset(t for t in tags if t.strip()),
        None if teams is None else frozenset(teams),
    )


def team_names(teams_text: str | None) -> list[str] | None:
    """The ``[[team]]`` names of a teams document (parsed already, so it reads); None for none."""
    if teams_text is None:
        return None
    return [str(team.get("name", "")) for team in tomllib.loads(teams_text).get("team", [])]


def _entries(text: str, table: str) -> Iterator[tuple[int, dict[str, object]]]:
    entries = tomllib.loads(text).get(table, [])
    yield from (
        (index + 1, entry) for index, entry in enumerate(entries) if isinstance(entry, dict)
    )


def _unknown(name: str, known: frozenset[str], what: str, cutoff: float) -> str | None:
    """Why ``name`` is refused, or None: found, or (for a claim) not near any name."""
    if name in known:
        return None
    near = difflib.get_close_matches(name, sorted(known), n=1, cutoff=cutoff)
    if cutoff > NEAR and not near:
        return None
    hint = f"; did you mean {near[0]!r}?" if near else ""
    return f"{what} {name!r} does not exist{hint}"


Refusal = tuple[str, str]  # the name refused, and the line saying why


def _budget_names(text: str, org: Organization) -> Iterator[Refusal]:
    for number, entry in _entries(text, "budget"):
        key, team = entry.get("key"), entry.get("team")
        if isinstance(key, str) and (why := _unknown(key, org.keys, "key", NEAR)):
            yield key, f"[[budget]] #{number} (key): {why}"
        if isinstance(team, str):
            if org.teams is None:
                yield team, f"[[budget]] #{number} (team): no teams settings in force name {team!r}"
            elif why := _unknown(team, org.teams, "team", NEAR):
                yield team, f"[[budget]] #{number} (team): {why}"


def _team_names(text: str, org: Organization) -> Iterator[Refusal]:
    for number, entry in _entries(text, "key"):
        key = entry.get("key")
        if isinstance(key, str) and (why := _unknown(key, org.keys, "key", NEAR)):
            yield key, f"[[key]] #{number} (key): {why}"
    for number, entry in _entries(text, "team"):
        for field, known, what in (("labels", org.keys, "key"), ("tags", org.tags, "tag")):
            names = entry.get(field, [])
            for name in names if isinstance(names, list) else []:
                if isinstance(name, str) and (why := _unknown(name, known, what, TYPO)):
                    yield name, f"[[team]] #{number} ({field}): {why}"


def _refusals(part: str, text: str | None, org: Organization) -> list[Refusal]:
    if text is None:
        return []
    if part == "budgets":
        return list(_budget_names(text, org))
    if part == "teams":
        return list(_team_names(text, org))
    return []


def unknown_names(part: str, text: str, org: Organization, before: str | None = None) -> list[str]:
    """One line per name of ``text`` (a valid ``part``) the organization does not have, in the
    form of its file's own errors (``[[budget]] #4 (team): team 'Feld apps' does not exist;
    did you mean 'Field apps'?``). A name ``before`` (the version in force) gives already is
    not the change's doing (a key retired since, say, which its budget's status tells): it is
    left to that status, and the change is not refused for it."""
    kept = {name for name, _ in _refusals(part, before, org)}
    return [line for name, line in _refusals(part, text, org) if name not in kept]
