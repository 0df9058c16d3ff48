"""What an export asks for: a source, a grouping of it and whether to add cost, checked and
shaped by one set of rules (`vocabulary`, `tables.check_choices`), so the command line's
`export` and the dashboard's Export page write the same file for the same choices (and refuse
the same ones, for the same reasons)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import TypeVar

import pandas as pd

from analytics.access import Visible
from analytics.exports.shaping import (
    Costing,
    Share,
    check_choices,
    shape_export,
    shape_pair_export,
    shape_tag_export,
    unpriced_warning,
)
from analytics.exports.vocabulary import (
    GROUPINGS,
    PAIR_GROUPINGS,
    SOURCES,
    TAG_GROUPINGS,
    USAGE_GROUPINGS,
    ExportSource,
    PairGrouping,
    Report,
    TagGrouping,
    UsageGrouping,
    offered,
)
from analytics.usage import FetchedRange


@dataclass(frozen=True)
class ExportRows:
    """An export's rows, and whether the scope used the service in the range at all: a file
    of headers alone (or of a fee without usage) is still written, and said once."""

    table: pd.DataFrame
    used: bool


@dataclass(frozen=True)
class ExportRequest:
    """One export's choices; ``grouping`` None is the source's default."""

    source: ExportSource = "usage"
    grouping: str | None = None
    with_cost: bool = False
    team: str | None = None  # one team's file, as its lead sees it (`--team`)

    @property
    def group_by(self) -> str:
        """The grouping, the source's first when none was chosen."""
        return self.grouping or SOURCES[self.source].groupings[0]

    @property
    def report(self) -> Report:
        """The daily report the rows come from (`GroupingNotOffered` for a grouping of
        another source)."""
        return GROUPINGS[offered(self.source, self.group_by)].report

    @property
    def reads_settings(self) -> bool:
        """The choices need prices (cost) or teams (a team grouping): only then is the export
        given the settings in force, so a plain usage export reads no settings and opens no
        state store (a scheduled job leaves nothing but its file)."""
        needs_teams = GROUPINGS[offered(self.source, self.group_by)].needs_teams
        return self.with_cost or needs_teams

    def check(self, costing: Costing) -> None:
        """``ExportProblem`` for choices that go together badly or need a file not given."""
        check_choices(self.source, self.group_by, self.with_cost, costing)

    def shape(
        self,
        frame: pd.DataFrame,
        start: date,
        end: date,
        costing: Costing,
        share: Share | None = None,
    ) -> pd.DataFrame:
        """The file's rows from the frame of ``report`` over ``start``–``end``; with a
        ``share``, some teams' rows from their frame (``shaping.Share``)."""
        self.check(costing)
        if self.source == "tags":
            priced = costing if self.with_cost else None
            return shape_tag_export(frame, start, end, _as(self.group_by, TAG_GROUPINGS), priced)
        if self.source == "language-pairs":
            return shape_pair_export(frame, _as(self.group_by, PAIR_GROUPINGS))
        grouping: UsageGrouping = _as(self.group_by, USAGE_GROUPINGS)
        return shape_export(frame, start, end, grouping, costing, self.with_cost, share)

    def rows(
        self,
        read: Callable[[str], FetchedRange],
        visible: Visible,
        days: tuple[date, date],
        costing: Costing,
    ) -> ExportRows:
        """The rows of the export of ``days`` as ``visible`` sees them: the report read (the
        organization's, by ``read``), scoped, priced (a team's money its share of the
        organization's) and shaped. The one way `export`, `export-dataset` and the HTTP API's
        ``/usage`` make them, so a row reads the same from each."""
        self.check(costing)  # before anything is read
        first, last = days
        seen = visible.read(self.report, read)
        teams = visible.scope.teams
        share = None if teams is None else Share(teams, seen.organization.frame)
        table = self.shape(seen.shown.frame, first, last, costing, share)
        return ExportRows(table, used=not seen.shown.frame.empty)

    def warning(self, costing: Costing, start: date, end: date) -> str | None:
        """What to say once of the file's cost cells: the days without a price, if any."""
        if not self.with_cost or costing.pricing is None:
            return None
        grouping = offered(self.source, self.group_by)
        return unpriced_warning(costing.pricing, start, end, grouping)

    def file_name(self, start: date, end: date, fmt: str) -> str:
        """``<source>_<grouping>_<first day>_<last day>.<format>``, the grouping by its name in
        file names (``usage_total_…``, never the command line's ``none``): a file is read
        by people who never chose its grouping."""
        grouping = GROUPINGS[offered(self.source, self.group_by)].in_file_names
        return f"{self.source}_{grouping}_{start:%Y-%m-%d}_{end:%Y-%m-%d}.{fmt}"


G = TypeVar("G", UsageGrouping, TagGrouping, PairGrouping)


def _as(grouping: str, allowed: tuple[G, ...]) -> G:
    """The grouping as its source's type (``check`` has made sure it is one)."""
    return next(g for g in allowed if g == grouping)
