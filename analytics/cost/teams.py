"""Teams from ``teams.toml``: who pays for which key and which custom tag.

A **team** is a cost centre, with an ``owner`` (an e-mail address) who answers for it. Keys map
to teams by masked key, exact label or label pattern; custom tags by tag or tag pattern.
Patterns are globs (``fnmatch.fnmatchcase``: ``*``, ``?``, ``[abc]``, case-sensitive); masked
keys are compared exactly, so their ``*`` is no wildcard.

Each key (and tag) belongs to at most one team: one that rules of two teams match is a
``TeamSettingsError`` naming both rules and the key, since either answer would be a guess (rules of
one team may overlap). Keys and tags no rule matches belong to ``Unassigned``: never silently
dropped from a chargeback.

``[[key]]`` entries give a key (by label or masked key) its **owner** and **purpose**: who to
ask about a key and what it is for belong with who pays for it, so they live in this file
rather than a fifth one: the four files stay the four documents of the settings.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Final, Literal

import msgspec
import numpy as np
import pandas as pd

from analytics.storage import parse_toml, read_text
from analytics.usage import METRICS, labels

UNASSIGNED: Final = "Unassigned"
RuleField = Literal["keys", "labels", "label_patterns", "tags", "tag_patterns"]
KEY_FIELDS: Final[tuple[RuleField, ...]] = ("keys", "labels", "label_patterns")
TAG_FIELDS: Final[tuple[RuleField, ...]] = ("tags", "tag_patterns")


class TeamSettingsError(ValueError):
    """The teams settings cannot be read, break a rule, or claim a key for two teams."""


_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def _check_owner(owner: str) -> None:
    if owner and not _EMAIL.fullmatch(owner):
        raise ValueError(f"owner must be an e-mail address such as web@example.org, not {owner!r}")


class Team(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One ``[[team]]`` entry: its name, its owner and the keys and tags it claims."""

    name: str
    owner: str = ""
    keys: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    label_patterns: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    tag_patterns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise ValueError("name must not be empty: give the team a name")
        _check_owner(self.owner)
        if self.name.strip().casefold() == UNASSIGNED.casefold():
            raise ValueError(
                f"name {self.name!r} is kept for the keys and tags no team claims: choose "
                "another name"
            )
        if not any(self.values(field) for field in (*KEY_FIELDS, *TAG_FIELDS)):
            raise ValueError(
                f"team {self.name!r} claims nothing: give it keys, labels, label_patterns, "
                "tags or tag_patterns"
            )
        for field in (*KEY_FIELDS, *TAG_FIELDS):
            if any(not value.strip() for value in self.values(field)):
                raise ValueError(f"{field}: an empty text claims nothing; remove it")
        for key in self.keys:
            if "*" not in key:
                raise ValueError(
                    f"keys: {key!r} is not a masked key; name keys as the dashboard shows "
                    "them (abcd****wxyz), never by the secret key itself"
                )

    def values(self, field: RuleField) -> tuple[str, ...]:
        values: tuple[str, ...] = getattr(self, field)
        return values


class KeyOwner(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One ``[[key]]`` entry: a key, by its label or masked key, its owner and its purpose."""

    key: str
    owner: str = ""
    purpose: str = ""

    def __post_init__(self) -> None:
        if not self.key.strip():
            raise ValueError("key must name a key label or a masked key")
        _check_owner(self.owner)
        if not (self.owner or self.purpose.strip()):
            raise ValueError(f"key {self.key!r} says nothing: give it an owner or a purpose")


class TeamSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The whole teams document (``teams.toml``, a file or the state store's copy): the
    ``[[team]]`` entries and the ``[[key]]`` owners."""

    teams: tuple[Team, ...] = msgspec.field(default=(), name="team")
    owners: tuple[KeyOwner, ...] = msgspec.field(default=(), name="key")

    def __post_init__(self) -> None:
        if not self.teams:
            raise ValueError("no [[team]] entries: a teams file must define at least one")
        first_with: dict[tuple[str, str], int] = {}
        for index, team in enumerate(self.teams):
            claims = [("name", team.name)]
            claims += [(f, v) for f in (*KEY_FIELDS, *TAG_FIELDS) for v in team.values(f)]
            for field, value in claims:
                other = first_with.setdefault((field, value), index)
                if other != index:
                    verb = "are both named" if field == "name" else f"({field}) both claim"
                    raise ValueError(f"[[team]] #{other + 1} and #{index + 1} {verb} {value!r}")
        first_key: dict[str, int] = {}
        for index, owned in enumerate(self.owners):
            other = first_key.setdefault(owned.key, index)
            if other != index:
                raise ValueError(f"[[key]] #{other + 1} and #{index + 1} both name {owned.key!r}")


@dataclass(frozen=True)
class Rule:
    """One value of one team's field: what it claims and where it is written."""

    entry: int  # the team's index in the file
    team: str
    field: RuleField
    value: str

    def __str__(self) -> str:
        return f"[[team]] #{self.entry + 1} {self.team!r} ({self.field} {self.value!r})"


@dataclass(frozen=True)
class Teams:
    """A parsed teams file."""

    teams: tuple[Team, ...]
    source: str
    owners: tuple[KeyOwner, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """Every team in file order, then ``Unassigned``: the rows of a chargeback."""
        return (*(team.name for team in self.teams), UNASSIGNED)


# Without a teams file, every key is Unassigned.
NO_TEAMS: Final = Teams((), "no teams file")


class _Claims:
    """The rules of some fields, ready for many texts: exact values are looked up, patterns
    compiled once (``fnmatch.translate``, what ``fnmatchcase`` matches with)."""

    def __init__(self, teams: Teams, fields: tuple[RuleField, ...]) -> None:
        self.source = teams.source
        self.exact: dict[tuple[str, str], Rule] = {}
        self.patterns: list[tuple[Rule, re.Pattern[str]]] = []
        for entry, team in enumerate(teams.teams):
            for field in fields:
                for value in team.values(field):
                    rule = Rule(entry, team.name, field, value)
                    if field.endswith("_patterns"):
                        self.patterns.append((rule, re.compile(fnmatch.translate(value))))
                    else:
                        self.exact[field, value] = rule

    def team_of(self, subject: str, texts: Mapping[str, str]) -> str:
        """The one team whose rules match ``texts`` (one per field), or ``Unassigned``."""
        hits = [rule for f, text in texts.items() if (rule := self.exact.get((f, text)))]
        hits += [rule for rule, pattern in self.patterns if pattern.match(texts[rule.field])]
        teams = {rule.team: rule for rule in sorted(hits, key=lambda rule: rule.entry)}
        if len(teams) > 1:
            first, second = list(teams.values())[:2]
            raise TeamSettingsError(
                f"{self.source}: {subject} matches {first} and {second}; a key or tag belongs "
                "to at most one team"
            )
        return next(iter(teams), UNASSIGNED)

    def key_team(self, key: str, label: str) -> str:
        texts = {"keys": key, "labels": label, "label_patterns": label}
        return self.team_of(f"key {key} (label {label!r})", texts)


@lru_cache(maxsize=16)
def _claims(teams: Teams, fields: tuple[RuleField, ...]) -> _Claims:
    """The rules of ``fields`` made ready once per teams settings, not once per question: a
    team's scope asks for its listed keys' teams one key at a time (``Visible.team_of_key``),
    and compiling every pattern again for each of 1,000 keys cost a team lead 0.3 s on every
    run of every page. A ``_Claims`` is only read once made, so sessions share it."""
    return _Claims(teams, fields)


def key_teams(teams: Teams, labels: Mapping[str, str]) -> dict[str, str]:
    """Each key's team, from masked key → label (``analytics.usage.frames.labels``)."""
    claims = _claims(teams, KEY_FIELDS)
    return {key: claims.key_team(key, label) for key, label in labels.items()}


def frame_key_teams(teams: Teams | None) -> Callable[[pd.DataFrame], dict[str, str]] | None:
    """What team budgets are evaluated with: each masked key of a key-day frame and its team,
    by `teams`; None without teams (a team budget is then not evaluated)."""
    if teams is None:
        return None
    return lambda frame: key_teams(teams, labels(frame))


def tag_teams(teams: Teams, tags: Iterable[str]) -> dict[str, str]:
    """Each custom tag's team."""
    claims = _claims(teams, TAG_FIELDS)
    return {tag: claims.team_of(f"tag {tag!r}", {"tags": tag, "tag_patterns": tag}) for tag in tags}


def assign_keys(teams: Teams, key_day: pd.DataFrame) -> pd.Series:
    """The team of every row of a key-day frame, as a categorical ``team`` series aligned with
    the rows, with every team and ``Unassigned`` as its categories.

    Each key is matched once, by the label the frame carries on all of its rows (the key's
    latest, per the frame contract), not once per row.
    """
    keys = key_day["api_key"].astype("category")
    labels = key_day["api_key_label"].astype("category")
    key_codes, label_codes = keys.cat.codes.to_numpy(), labels.cat.codes.to_numpy()
    label_of_key = np.full(len(keys.cat.categories), -1, dtype=np.int64)
    label_of_key[key_codes] = label_codes
    if (label_of_key[key_codes] != label_codes).any():
        raise ValueError("a key has two labels: a key-day frame carries each key's latest one")
    claims = _claims(teams, KEY_FIELDS)
    position = {name: index for index, name in enumerate(teams.names)}
    key_names, label_names = keys.cat.categories.tolist(), labels.cat.categories.tolist()
    team_of_key = np.zeros(len(key_names), dtype=np.int64)
    for key in np.flatnonzero(label_of_key >= 0).tolist():  # keys with rows
        team = claims.key_team(str(key_names[key]), str(label_names[label_of_key[key]]))
        team_of_key[key] = position[team]
    codes = team_of_key[key_codes]
    team_column = pd.Categorical.from_codes(codes, categories=pd.Index(teams.names))
    return pd.Series(team_column, index=key_day.index, name="team")


def team_day(key_day: pd.DataFrame, teams: Teams) -> pd.DataFrame:
    """The key-day frame by team: one row per team and day with usage, sorted by day, then team
    in file order (``Unassigned`` last). The team is the ``api_key`` column (every team and
    ``Unassigned`` are its categories) and the label is empty, so every per-key table and chart
    groups by team as it is; the keys no team claims stay, as ``Unassigned``."""
    team = assign_keys(teams, key_day).rename("api_key")
    summed = key_day[list(METRICS)].groupby([key_day["usage_date"], team], observed=True).sum()
    frame = summed.reset_index()
    frame.insert(2, "api_key_label", pd.Series(pd.Categorical([""] * len(frame))))
    return frame


def parse_teams(text: str, source: str = "teams.toml") -> Teams:
    """Parse TOML text; every problem becomes a ``TeamSettingsError`` naming ``source``."""
    parsed = parse_toml(text, source, TeamSettings, TeamSettingsError)
    return Teams(parsed.teams, source, parsed.owners)


def load_teams(path: Path | str) -> Teams:
    """Read and parse a teams file."""
    return parse_teams(read_text(path, TeamSettingsError), str(path))


def key_owners(teams: Teams | None, keys: Iterable[tuple[str, str]]) -> list[KeyOwner | None]:
    """The ``[[key]]`` entry of each (masked key, label), found by its masked key, else its
    label, as a budget names a key; None for a key no entry names."""
    named = {} if teams is None else {owned.key: owned for owned in teams.owners}
    return [named.get(key) or named.get(label) for key, label in keys]
