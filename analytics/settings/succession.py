"""A rotated key's replacement in the teams document: the same team, owner and purpose as the
key it replaces, from its first day.

The chargeback and the guardrails find a key's team by its masked key or label, so a
replacement under a new label would fall to ``Unassigned`` wherever its old key was listed
by name (``keys`` or ``labels``), and the ``[[key]]`` entry naming the old key would not name
it. The rotation therefore saves a new version of the teams document (against the version it
read, by the person rotating, recorded as the change "rotation of <old label>") that lists the
replacement beside the old key, the old key's entries kept: its past days stay its team's. A
team that claims the old key by a label pattern the new label still matches needs nothing.

The document is edited through tomlkit, so its comments and layout stay: the replacement's
value is added to its team's array (or the array to the team) and a ``[[key]]`` entry
appended. The edited text is parsed again and must equal the document with just those
additions, and give the replacement the old key's team; otherwise nothing is saved and the
rotation says what to add by hand, as it does where settings are files
(``SETTINGS_SOURCE=files``). The rotation itself never fails on this.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import msgspec
import tomlkit
from tomlkit.items import AoT

from analytics.cost import (
    UNASSIGNED,
    KeyOwner,
    RuleField,
    Teams,
    TeamSettingsError,
    key_owners,
    key_teams,
    parse_teams,
)
from analytics.keys import Rotation
from analytics.settings.in_force import Place, document
from analytics.settings.parts import SettingsProblem, file_name
from analytics.settings.versions import SavedMeanwhile, save
from analytics.usage import utc_now


def _toml(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Succession:
    """What the teams document needs for a replacement: ``hand``, the additions in words
    (empty: none needed), and ``text``, the document with them (None: none needed, or the
    text could not be edited safely)."""

    hand: str
    text: str | None


@dataclass(frozen=True)
class _Added:
    team: int | None  # the index of the team the replacement joins (None: no change)
    field: RuleField
    value: str
    owner: KeyOwner | None  # the replacement's [[key]] entry (None: no change)


def _additions(teams: Teams, team: str, old: tuple[str, str], new: tuple[str, str]) -> _Added:
    """The team and the ``[[key]]`` entry the replacement (masked key, label) needs to stand
    where the old key (of ``team``) stands."""
    (old_key, old_label), (new_key, new_label) = old, new
    joins: int | None = None
    field: RuleField = "labels"
    value = new_label
    if team != UNASSIGNED and key_teams(teams, {new_key: new_label})[new_key] != team:
        joins = next(i for i, t in enumerate(teams.teams) if t.name == team)
        if old_key and new_key and old_key in teams.teams[joins].keys:
            field, value = "keys", new_key
    [entry] = key_owners(teams, [(old_key, old_label)])
    [already] = key_owners(teams, [(new_key, new_label)])
    owner = None
    if entry is not None and already is None:
        named = new_key if new_key and entry.key == old_key else new_label
        owner = KeyOwner(key=named, owner=entry.owner, purpose=entry.purpose)
    return _Added(joins, field, value, owner)


def _edited(text: str, added: _Added) -> str | None:
    """``text`` with the additions made through tomlkit, which keeps the document's comments
    and layout; None when the document is not the shape they go in (no table of teams, or a
    ``[[key]]`` that is not an array of tables)."""
    doc = tomlkit.parse(text)
    if added.team is not None:
        teams = doc.get("team")
        if not isinstance(teams, list) or added.team >= len(teams):
            return None
        team = teams[added.team]
        if added.field in team:
            team[added.field].append(added.value)
        else:
            team[added.field] = [added.value]
    if added.owner is not None:
        entry = tomlkit.table()
        entry["key"] = added.owner.key
        for name in ("owner", "purpose"):
            if value := getattr(added.owner, name):
                entry[name] = value
        entry.trivia.indent = "\n"  # a blank line before it, as the example file writes them
        entries = doc.setdefault("key", tomlkit.aot())
        if not isinstance(entries, AoT):
            return None
        entries.append(entry)
    return tomlkit.dumps(doc)


def _words(teams: Teams, added: _Added) -> str:
    said = []
    if added.team is not None:
        name = teams.teams[added.team].name
        said.append(f"{_toml(added.value)} to {added.field} of [[team]] {_toml(name)}")
    if added.owner is not None:
        entry = [f"key = {_toml(added.owner.key)}"]
        entry += [f"owner = {_toml(added.owner.owner)}"] if added.owner.owner else []
        entry += [f"purpose = {_toml(added.owner.purpose)}"] if added.owner.purpose else []
        said.append("[[key]] " + ", ".join(entry))
    return "; ".join(said)


def succeeded(text: str, source: str, old: tuple[str, str], new: tuple[str, str]) -> Succession:
    """The teams document ``text`` giving ``new`` (masked key, label; the key "" when not
    known) the team, owner and purpose ``old`` has. A document that cannot be read is a
    `TeamSettingsError`."""
    teams = parse_teams(text, source)
    team = key_teams(teams, {old[0]: old[1]})[old[0]]
    added = _additions(teams, team, old, new)
    hand = _words(teams, added)
    if not hand:
        return Succession("", None)
    edited = _edited(text, added)
    expected = list(teams.teams)
    if added.team is not None:
        joined = expected[added.team]
        grown = (*joined.values(added.field), added.value)
        expected[added.team] = msgspec.structs.replace(joined, **{added.field: grown})
    owners = teams.owners if added.owner is None else (*teams.owners, added.owner)
    try:
        after = None if edited is None else parse_teams(edited, source)
        held = after is not None and key_teams(after, {new[0]: new[1]})[new[0]] == team
    except TeamSettingsError:  # the edit broke the document, or another team claims the label
        held = False
    if not held or after is None or (after.teams, after.owners) != (tuple(expected), owners):
        return Succession(hand, None)
    return Succession(hand, edited)


def carry_over(place: Place, rotation: Rotation, who: str) -> str | None:
    """Give the rotation's replacement its old key's team, owner and purpose in the teams
    settings in force: a new version saved by ``who``, or, where settings cannot be written
    here, what to add by hand. One line saying which; None when nothing was needed."""
    found = document("teams", place)
    if found is None:
        return None
    old = (rotation.old_api_key or "", rotation.old_label)
    new = (rotation.new_api_key or "", rotation.new_label)
    by_hand = f"add to {file_name('teams')} by hand"
    try:
        succession = succeeded(found.text, found.where, old, new)
    except TeamSettingsError as exc:
        return f"the teams settings cannot be read ({exc}): {rotation.new_label} has no team yet"
    if not succession.hand:
        return None
    if succession.text is None:
        return f"the teams settings could not be edited safely: {by_hand}: {succession.hand}"
    if found.version is None or place.records is None or not place.in_store:
        return f"the settings are files here (SETTINGS_SOURCE=files): {by_hand}: {succession.hand}"
    try:
        saved = save(
            place.records,
            "teams",
            succession.text,
            found.version,
            who,
            utc_now(),
            change=f"rotation of {rotation.old_label}",
        )
    except (SavedMeanwhile, SettingsProblem) as exc:
        return f"the teams settings were not changed ({exc}): {by_hand}: {succession.hand}"
    return f"teams settings, version {saved.number}: added {succession.hand}"
