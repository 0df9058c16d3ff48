"""Every version of each settings document of an account, in the state store
(`analytics.storage.schema.settings_versions`).

A save names the version it was made from (its base). It is written as the next version only
while its base is still the latest, and the table's primary key refuses a second row of one
version: of two people who saved from the same version, on one host or several, the first
wins and the second is told, with both versions, and nothing is overwritten. Nothing is ever
deleted or rewritten: restoring an earlier version saves its text again as a new version.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, Row, insert, select
from sqlalchemy.exc import IntegrityError

from analytics.settings.parts import Part, check
from analytics.storage import settings_versions as table
from analytics.usage import Records

NONE_YET = 0  # the base version of a document's first save


@dataclass(frozen=True)
class Version:
    """One saved version of one document."""

    part: Part
    number: int
    text: str
    author: str
    saved_at: datetime
    file: str | None  # the file it was imported from, if it was
    change: str | None = None  # what made it, when not an edit: "rotation of Web shop"

    @property
    def origin(self) -> str:
        """Who saved it and how, in words: "ana@example.org", "ana@example.org (teams.toml)",
        "ana@example.org (rotation of Web shop)"."""
        how = self.file or self.change
        return self.author if how is None else f"{self.author} ({how})"


class SavedMeanwhile(Exception):
    """A save made from a version that is no longer the latest: someone saved meanwhile."""

    def __init__(self, mine: int, theirs: Version) -> None:
        self.mine, self.theirs = mine, theirs
        super().__init__(
            f"{theirs.part}: someone changed these settings meanwhile: you edited version "
            f"{mine}, and version {theirs.number} was saved by {theirs.origin} at "
            f"{theirs.saved_at:%Y-%m-%d %H:%M} UTC; nothing was saved. Read version "
            f"{theirs.number}, make your change to it and save again"
        )


def _version(row: Row[Part, int, str, str, datetime, str | None, str | None]) -> Version:
    return Version(*row)


_COLUMNS = (
    table.c.part,
    table.c.version,
    table.c.text,
    table.c.author,
    table.c.saved_at,
    table.c.file,
    table.c.change,
)


def _latest(connection: Connection, account: str, part: Part) -> Version | None:
    row = connection.execute(
        select(*_COLUMNS)
        .where(table.c.account == account, table.c.part == part)
        .order_by(table.c.version.desc())
        .limit(1)
    ).first()
    return None if row is None else _version(row)


def latest(records: Records, part: Part) -> Version | None:
    """The version of ``part`` in force; None when the store holds none."""
    return records.store.run(lambda connection: _latest(connection, records.account, part))


def history(records: Records, part: Part) -> list[Version]:
    """Every version of ``part``, the newest first."""

    def read(connection: Connection) -> list[Version]:
        rows = connection.execute(
            select(*_COLUMNS)
            .where(table.c.account == records.account, table.c.part == part)
            .order_by(table.c.version.desc())
        )
        return [_version(row) for row in rows]

    return records.store.run(read)


def version(records: Records, part: Part, number: int) -> Version | None:
    """Version ``number`` of ``part``; None when there is none."""
    return next((v for v in history(records, part) if v.number == number), None)


def _insert(connection: Connection, account: str, saved: Version) -> None:
    connection.execute(
        insert(table).values(
            account=account,
            part=saved.part,
            version=saved.number,
            text=saved.text,
            author=saved.author,
            saved_at=saved.saved_at,
            file=saved.file,
            change=saved.change,
        )
    )


def save(
    records: Records,
    part: Part,
    text: str,
    base: int,
    author: str,
    at: datetime,
    file: str | None = None,
    change: str | None = None,
) -> Version:
    """Save ``text`` as the version after ``base``, the version it was edited from
    (`NONE_YET` for the first), imported from ``file`` or made by ``change`` when either is
    given. Checked first (`parts.check`, a `SettingsProblem`); a base that is no longer the
    latest is `SavedMeanwhile`, and nothing is written."""
    check(part, text, file)
    saved = Version(part, base + 1, text, author, at, file, change)

    def write(connection: Connection) -> Version:
        found = _latest(connection, records.account, part)
        if (found.number if found else NONE_YET) != base:
            assert found is not None  # a base above every version is a caller's slip
            raise SavedMeanwhile(base, found)
        try:
            with connection.begin_nested():
                _insert(connection, records.account, saved)
        except IntegrityError:  # another host wrote this version since we read
            theirs = _latest(connection, records.account, part)
            assert theirs is not None
            raise SavedMeanwhile(base, theirs) from None
        return saved

    return records.store.run(write)


def held(records: Records) -> set[Part]:
    """The parts the store holds a version of, for this account."""

    def read(connection: Connection) -> set[Part]:
        found = select(table.c.part).where(table.c.account == records.account).distinct()
        return set(connection.execute(found).scalars())

    return records.store.run(read)


def import_once(records: Records, texts: dict[Part, tuple[str, str]], at: datetime) -> list[Part]:
    """The files found as before (``texts``: each part's text and file name) saved as version
    1 of each part the store holds no version of, recorded as imported from their files: once
    on any host (the primary key refuses a second version 1). A part the store holds is never
    read from a file again. The parts imported here."""

    def write(connection: Connection) -> list[Part]:
        imported: list[Part] = []
        for part, (text, file) in texts.items():
            if _latest(connection, records.account, part) is not None:
                continue
            try:
                with connection.begin_nested():
                    saved = Version(part, NONE_YET + 1, text, "first start", at, file)
                    _insert(connection, records.account, saved)
            except IntegrityError:  # another host imported it meanwhile
                continue
            imported.append(part)
        return imported

    return records.store.run(write) if texts else []
