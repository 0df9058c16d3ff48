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
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from analytics.settings.parts import NAMES, PARTS, Part, SettingsProblem, check
from analytics.settings.versions import held, import_once, latest
from analytics.storage.bundle import organization_file
from analytics.storage.tomlfiles import read_text
from analytics.usage.calendar import utc_now
from analytics.usage.records import Records

Source = Literal["store", "files"]


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
