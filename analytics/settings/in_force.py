"""The settings in force: the one reader every page, command, timer run and report asks for
the organization's prices, teams, budgets and alert routes, so no two surfaces can read
different settings.

Where they come from is one setting, ``SETTINGS_SOURCE``:

- ``store`` (the default): the latest version in the state store of the account's records. A
  file found as before (``bundle.organization_file``: beside the program, else in demo mode the
  example) whose part the store holds no version of is imported once, recorded as imported
  from its file (on first start, all of them); after that the file is only an import and
  export format.
- ``files``: the files as found are the truth, and nothing writes settings.

A file named on a command line (``--pricing FILE``) is read as given, whatever the source: it
is what the person asked for. Without a store to read (no history folder and no
``SERVICE_STATE_URL``), the files are read as found.

What a page or a command reads is `SettingsInForce`, made by `settings_in_force` once per run
or command: the four documents with each one's version and text (the cache keys, and how a
message names it) and their values, each parsed and checked once, when first asked for, so a
command that reads no budgets is not stopped by them and every error is its file's own, in its
own words. No module outside this package parses a settings document
(``tests/product/test_settings_once.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal

from analytics.alerts import (
    AlertsConfig,
    AlertSettings,
    Rotations,
    parse_alert_settings,
    with_secrets,
)
from analytics.capacity import BudgetSettings, parse_budgets
from analytics.cost import NO_TEAMS, Pricing, Teams, parse_pricing, parse_teams
from analytics.settings.parts import (
    NAMES,
    PARTS,
    Part,
    SettingsProblem,
    check,
    checked_budgets,
    file_name,
)
from analytics.settings.versions import held, import_once, latest
from analytics.storage import organization_file, read_text
from analytics.usage import Records, utc_now

Source = Literal["store", "files"]
# How a parsed document names itself in its errors and messages: a command by where it is (the
# path given, or the store's version in words), a page by its name (the file's name), the
# dashboard's money views and guardrails by the file that holds its part (``pricing.toml``).
Naming = Literal["where", "name", "part"]


@dataclass(frozen=True)
class Document:
    """One settings document in force: its text, and where it is held, in words a page or an
    error names (``teams.toml``, or ``the teams, version 3, saved by ana@example.org on
    2026-03-01``)."""

    part: Part
    text: str
    where: str
    version: int | None = None  # the store's version; None when read from a file
    path: Path | None = None  # the file it was read from

    @property
    def name(self) -> str:
        """How a page names it: the file's name, or its version of the store."""
        return self.where if self.path is None else self.path.name


@dataclass(frozen=True)
class Place:
    """Where this run's settings are: the source, the account's records (None: none kept),
    the folder the files are found in, and whether this is the demo (whose examples count as
    found)."""

    source: Source
    records: Records | None
    folder: Path
    demo: bool

    @property
    def in_store(self) -> bool:
        return self.source == "store" and self.records is not None


def _from_file(part: Part, path: Path) -> Document:
    return Document(part, read_text(path, SettingsProblem), str(path), None, path)


def first_start(place: Place) -> list[Part]:
    """Import each file found whose part the store holds no version of, once (see
    `versions.import_once`); the parts this call imported."""
    if not place.in_store:
        return []
    assert place.records is not None
    kept = held(place.records)
    missing = [part for part in PARTS if part not in kept]
    found = {
        part: path
        for part in missing
        if (path := organization_file(part, None, place.folder, place.demo)) is not None
    }
    texts = {part: (read_text(path, SettingsProblem), path.name) for part, path in found.items()}
    for part, (text, _) in texts.items():
        check(part, text, str(found[part]))  # a bad file is named, and nothing is imported
    return import_once(place.records, texts, utc_now())


def document(part: Part, place: Place, given: Path | None = None) -> Document | None:
    """``part`` in force (``given``, a file named by the person, wins); None: there is none."""
    if given is not None:
        return _from_file(part, given)
    if not place.in_store:
        path = organization_file(part, None, place.folder, place.demo)
        return None if path is None else _from_file(part, path)
    assert place.records is not None
    first_start(place)
    held = latest(place.records, part)
    if held is None:
        return None
    how = f"imported from {held.file}" if held.file else f"saved by {held.origin}"
    where = f"{NAMES[part]}, version {held.number}, {how} on {held.saved_at:%Y-%m-%d}"
    return Document(part, held.text, where, held.number)


# Documents' texts, in the order asked (None: none): the cache key of an answer naming none.
Texts = tuple[str | None, ...]
# How a run reads one part's document (None: there is none); each part is read once.
Reader = Callable[[Part], "Document | None"]


@dataclass(frozen=True, eq=False)
class SettingsInForce:
    """The organization's settings in force, one immutable object per run or command: each
    part's `Document` (None: there is none) and its value, each read, parsed and checked once,
    when first asked for, so a command that reads no budgets is neither slowed nor stopped by
    them, and a bad document raises its own file's error, in its words, where it is used."""

    read: Reader
    naming: Naming | Mapping[Part, Naming] = "where"  # one for all parts, or each part's

    @cached_property
    def _documents(self) -> dict[Part, Document | None]:
        return {}

    def document(self, part: Part) -> Document | None:
        """``part``'s document in force, None without one."""
        if part not in self._documents:
            self._documents[part] = self.read(part)
        return self._documents[part]

    def name(self, part: Part) -> str:
        """How a page names ``part``: its file's name or the store's version; ``part``.toml
        when there is none (where to put one)."""
        found = self.document(part)
        return file_name(part) if found is None else found.name

    def source(self, part: Part) -> str:
        """How ``part``'s values name it (their errors, ``Teams.source``)."""
        found = self.document(part)
        assert found is not None
        how = self.naming if isinstance(self.naming, str) else self.naming[part]
        if how == "part":
            return file_name(part)
        return found.where if how == "where" else found.name

    def named(self, naming: Naming | Mapping[Part, Naming]) -> SettingsInForce:
        """The same documents, read once for both, whose values name them by ``naming``."""
        return SettingsInForce(self.document, naming)

    def with_text(self, part: Part, text: str | None, where: str | None = None) -> SettingsInForce:
        """These settings with ``text`` for ``part`` (None: none), a preview or an upload,
        named ``where`` (by default as this one names it); the other parts read through this
        one, once."""
        given = None if text is None else Document(part, text, where or self.name(part))
        return SettingsInForce(
            lambda read: given if read == part else self.document(read), self.naming
        )

    def texts(self, *parts: Part) -> Texts:
        """``parts``' texts (None: none): the cache key of an answer that names no document
        (the guardrails' plan, a money view), so a preview and the version saved from it, or
        an upload and the same text in force, share it."""
        return tuple(None if (doc := self.document(part)) is None else doc.text for part in parts)

    @cached_property
    def pricing(self) -> Pricing | None:
        """The prices in force (``PricingSettingsError`` for a bad document); None: none."""
        found = self.document("pricing")
        return None if found is None else parse_pricing(found.text, self.source("pricing"))

    @cached_property
    def given_teams(self) -> Teams | None:
        """The teams document parsed (``TeamSettingsError`` for a bad one); None: none, which a
        money view tells apart from a document without teams."""
        found = self.document("teams")
        return None if found is None else parse_teams(found.text, self.source("teams"))

    @property
    def teams(self) -> Teams:
        """The teams in force; ``NO_TEAMS`` when there is no teams document."""
        return self.given_teams or NO_TEAMS

    @cached_property
    def budgets(self) -> BudgetSettings | None:
        """The budgets in force, every rule and the enforce rule checked
        (``BudgetSettingsError``); None: none."""
        found = self.document("budgets")
        return None if found is None else checked_budgets(found.text, self.source("budgets"))

    @cached_property
    def budgets_as_written(self) -> BudgetSettings | None:
        """The budgets without the enforce rule's checks (``BudgetSettingsError``): what the
        Capacity page evaluates, enforcing nothing; None: none."""
        found = self.document("budgets")
        return None if found is None else parse_budgets(found.text, self.source("budgets"))

    @cached_property
    def alert_routes(self) -> AlertSettings | None:
        """The alert routes and the rotations' settings as written, no secret read
        (``AlertSettingsError``); None: no alerts document."""
        found = self.document("alerts")
        return None if found is None else parse_alert_settings(found.text, self.source("alerts"))

    @property
    def rotations(self) -> Rotations:
        """The rotations' quiet days, reminders and maximum key age; their defaults without
        alert routes."""
        routes = self.alert_routes
        return Rotations() if routes is None else routes.rotations

    def alerts(self, environ: Mapping[str, str]) -> AlertsConfig | None:
        """The alert routes with the secrets they name read from ``environ``; None without
        alert routes."""
        routes = self.alert_routes
        return None if routes is None else with_secrets(routes, self.source("alerts"), environ)


def settings_in_force(
    place: Place, given: Mapping[Part, Path] | None = None, naming: Naming = "where"
) -> SettingsInForce:
    """The settings in force at ``place``; a file named by the person in ``given`` wins for
    its part."""
    chosen = dict(given or {})
    return SettingsInForce(lambda part: document(part, place, chosen.get(part)), naming)
