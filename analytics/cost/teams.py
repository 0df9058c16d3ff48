"""Teams from ``teams.toml``: who pays for which key and which custom tag.

A **team** is a cost centre. Keys map to teams by masked key, exact label or label pattern;
custom tags by tag or tag pattern. Patterns are globs (``fnmatch.fnmatchcase``: ``*``, ``?``,
``[abc]``, case-sensitive); masked keys are compared exactly, so their ``*`` is no wildcard.

Each key (and tag) belongs to at most one team: one that rules of two teams match is a
``TeamFileError`` naming both rules and the key, since either answer would be a guess (rules
of one team may overlap). Keys and tags no rule matches belong to ``Unassigned``: never
silently dropped from a chargeback.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Final, Literal

import msgspec
import numpy as np
import numpy.typing as npt
import pandas as pd

from analytics.cost.files import parse_toml, read_text

UNASSIGNED: Final = "Unassigned"
RuleField = Literal["keys", "labels", "label_patterns", "tags", "tag_patterns"]
KEY_FIELDS: Final[tuple[RuleField, ...]] = ("keys", "labels", "label_patterns")
TAG_FIELDS: Final[tuple[RuleField, ...]] = ("tags", "tag_patterns")


class TeamFileError(ValueError):
    """The teams file cannot be read, breaks a rule, or claims a key for two teams."""


class Team(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One ``[[team]]`` entry: its name and the keys and tags it claims."""

    name: str
    keys: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    label_patterns: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    tag_patterns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise ValueError("name must not be empty")
        if self.name.strip().casefold() == UNASSIGNED.casefold():
            raise ValueError(f"name {self.name!r} is kept for the keys and tags no team claims")
        if not any(self.values(field) for field in (*KEY_FIELDS, *TAG_FIELDS)):
            raise ValueError(
                f"team {self.name!r} claims nothing: give it keys, labels, label_patterns, "
                "tags or tag_patterns"
            )
        for field in (*KEY_FIELDS, *TAG_FIELDS):
            if any(not value.strip() for value in self.values(field)):
                raise ValueError(f"{field}: an empty text claims nothing")
        for key in self.keys:
            if "*" not in key:
                raise ValueError(
                    f"keys: {key!r} is not a masked key; name keys as the dashboard shows "
                    "them (abcd****wxyz), never by the secret key itself"
                )

    def values(self, field: RuleField) -> tuple[str, ...]:
        values: tuple[str, ...] = getattr(self, field)
        return values


class TeamFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The whole file: the ``[[team]]`` entries."""

    teams: tuple[Team, ...] = msgspec.field(default=(), name="team")

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


@dataclass(frozen=True)
class Rule:
    """One value of one team's field: what it claims and where it is written."""

    entry: int  # the team's index in the file
    team: str
    field: RuleField
    value: str

    def matches(self, text: str) -> bool:
        if self.field.endswith("_patterns"):
            return fnmatchcase(text, self.value)
        return text == self.value

    def __str__(self) -> str:
        return f"[[team]] #{self.entry + 1} {self.team!r} ({self.field} {self.value!r})"


@dataclass(frozen=True)
class Teams:
    """A parsed teams file."""

    teams: tuple[Team, ...]
    source: str

    @property
    def names(self) -> tuple[str, ...]:
        """Every team in file order, then ``Unassigned``: the rows of a chargeback."""
        return (*(team.name for team in self.teams), UNASSIGNED)

    def rules(self, fields: tuple[RuleField, ...]) -> list[Rule]:
        return [
            Rule(index, team.name, field, value)
            for index, team in enumerate(self.teams)
            for field in fields
            for value in team.values(field)
        ]


def _team_of(teams: Teams, rules: list[Rule], subject: str, texts: Mapping[str, str]) -> str:
    """The one team whose rules match (``texts`` by field), or ``Unassigned``."""
    hits: dict[str, Rule] = {}
    for rule in rules:
        if rule.matches(texts[rule.field]):
            hits.setdefault(rule.team, rule)
    if len(hits) > 1:
        first, second = list(hits.values())[:2]
        raise TeamFileError(
            f"{teams.source}: {subject} matches {first} and {second}; a key or tag belongs "
            "to at most one team"
        )
    return next(iter(hits), UNASSIGNED)


def _key_team(teams: Teams, rules: list[Rule], key: str, label: str) -> str:
    texts = {"keys": key, "labels": label, "label_patterns": label}
    return _team_of(teams, rules, f"key {key} (label {label!r})", texts)


def key_teams(teams: Teams, labels: Mapping[str, str]) -> dict[str, str]:
    """Each key's team, from masked key → label (``analytics.usage.frames.labels``)."""
    rules = teams.rules(KEY_FIELDS)
    return {key: _key_team(teams, rules, key, label) for key, label in labels.items()}


def tag_teams(teams: Teams, tags: Iterable[str]) -> dict[str, str]:
    """Each custom tag's team."""
    rules = teams.rules(TAG_FIELDS)
    return {
        tag: _team_of(teams, rules, f"tag {tag!r}", {"tags": tag, "tag_patterns": tag})
        for tag in tags
    }


def _codes(values: pd.Series) -> tuple[npt.NDArray[np.int64], pd.Index]:
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values.cat.codes.to_numpy().astype(np.int64), values.cat.categories
    codes, names = pd.factorize(values)
    return codes.astype(np.int64), pd.Index(names)


def assign_keys(teams: Teams, key_day: pd.DataFrame) -> pd.Series:
    """The team of every row of a key-day frame, as a categorical ``team`` series aligned with
    the rows, with every team and ``Unassigned`` as its categories.

    Each distinct key and label is matched once, not once per row.
    """
    key_codes, keys = _codes(key_day["api_key"])
    label_codes, labels = _codes(key_day["api_key_label"])
    pairs, distinct = pd.factorize(key_codes * len(labels) + label_codes)
    rules = teams.rules(KEY_FIELDS)
    key_of, label_of = divmod(np.asarray(distinct, dtype=np.int64), len(labels))
    team_names = [
        _key_team(teams, rules, str(keys[key]), str(labels[label]))
        for key, label in zip(key_of.tolist(), label_of.tolist(), strict=True)
    ]
    position = {name: index for index, name in enumerate(teams.names)}
    team_of_pair = np.array([position[name] for name in team_names], dtype=np.int64)
    team = pd.Categorical.from_codes(team_of_pair[pairs], categories=pd.Index(teams.names))
    return pd.Series(team, index=key_day.index, name="team")


def parse_teams(text: str, source: str = "teams.toml") -> Teams:
    """Parse TOML text; every problem becomes a ``TeamFileError`` naming ``source``."""
    return Teams(parse_toml(text, source, TeamFile, TeamFileError).teams, source)


def load_teams(path: Path | str) -> Teams:
    """Read and parse a teams file."""
    return parse_teams(read_text(path, TeamFileError), str(path))
