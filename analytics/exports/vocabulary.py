"""What an export can be asked for, in one table: each source with its label, its groupings
(its default first) and whether it can carry cost; each grouping with its label, the daily
report its rows come from, whether it has a row per day and whether it needs a teams file;
each daily report with the fetch that reads it. The command line's `export` and the Export
page offer exactly these choices.

A choice that cannot make a file is an `ExportProblem` naming the choice at fault (`field`)
in the words of this table, never in a front end's: the command line words it with its
options, and the page offers only the choices that can be made.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal, get_args

from analytics.usage import FetchedRange, fetch_pair_keys, fetch_pairs, fetch_tags, fetch_usage

# What an export reads: usage per key (the analytics report), characters per custom tag, or
# usage per language pair.
ExportSource = Literal["usage", "tags", "language-pairs"]
UsageGrouping = Literal["key_and_day", "key", "team", "team_and_day", "none"]
TagGrouping = Literal["tag_and_day", "tag"]
PairGrouping = Literal["pair", "pair_and_day", "pair_and_key", "pair_key_and_day"]
# Every grouping of every source (each source takes its own).
Grouping = Literal[UsageGrouping, TagGrouping, PairGrouping]
# The daily report an export reads, by the pipeline's name for it.
Report = Literal["usage", "tags", "pairs", "pair_keys"]
# The choices of an export a problem can name.
Field = Literal["source", "grouping", "with_cost", "format"]

USAGE_GROUPINGS: Final[tuple[UsageGrouping, ...]] = get_args(UsageGrouping)
TAG_GROUPINGS: Final[tuple[TagGrouping, ...]] = get_args(TagGrouping)
PAIR_GROUPINGS: Final[tuple[PairGrouping, ...]] = get_args(PairGrouping)


@dataclass(frozen=True)
class SourceChoice:
    """One source: its label, its groupings (its default first), whether it carries cost."""

    label: str
    groupings: tuple[Grouping, ...]
    priced: bool


@dataclass(frozen=True)
class GroupingChoice:
    """One grouping: its label ("one row per …"), its name in file names (the label's words,
    never the command line's ``none``), the report its rows come from, whether it has a row
    per day (whose cost cells stay empty on a day without a price) and whether it needs a
    teams file."""

    label: str
    in_file_names: str
    report: Report
    per_day: bool = False
    needs_teams: bool = False


@dataclass(frozen=True)
class ReportFetch:
    """How a daily report is fetched, and what it is called while it is."""

    fetch: Callable[..., FetchedRange]
    what: str


SOURCES: Final[dict[ExportSource, SourceChoice]] = {
    "usage": SourceChoice("Usage", USAGE_GROUPINGS, priced=True),
    "tags": SourceChoice("Custom tags", TAG_GROUPINGS, priced=True),
    "language-pairs": SourceChoice("Language pairs", PAIR_GROUPINGS, priced=False),
}
GROUPINGS: Final[dict[Grouping, GroupingChoice]] = {
    "key_and_day": GroupingChoice("Key and day", "key_and_day", "usage", per_day=True),
    "key": GroupingChoice("Key", "key", "usage"),
    "team": GroupingChoice("Team", "team", "usage", needs_teams=True),
    "team_and_day": GroupingChoice(
        "Team and day", "team_and_day", "usage", per_day=True, needs_teams=True
    ),
    "none": GroupingChoice("Range total", "total", "usage"),
    "tag_and_day": GroupingChoice("Tag and day", "tag_and_day", "tags", per_day=True),
    "tag": GroupingChoice("Tag", "tag", "tags"),
    "pair": GroupingChoice("Pair", "pair", "pairs"),
    "pair_and_day": GroupingChoice("Pair and day", "pair_and_day", "pairs", per_day=True),
    # Only pairs by key read the pair-key-day report, several times the pair-day report's rows.
    "pair_and_key": GroupingChoice("Pair and key", "pair_and_key", "pair_keys"),
    "pair_key_and_day": GroupingChoice(
        "Pair, key and day", "pair_key_and_day", "pair_keys", per_day=True
    ),
}
REPORTS: Final[dict[Report, ReportFetch]] = {
    "usage": ReportFetch(fetch_usage, "usage"),
    "tags": ReportFetch(fetch_tags, "custom tags"),
    "pairs": ReportFetch(fetch_pairs, "language pairs"),
    "pair_keys": ReportFetch(fetch_pair_keys, "language pairs"),
}


# What an export's cost columns hold, as the command line's --with-cost and the Export page's
# With cost say it (`shaping` makes them).
COST_COLUMNS_TEXT: Final = (
    "Add cost columns (needs a pricing file): usage cost, base fee share (the plan's base fee "
    "shared as Chargeback shares it, so a file by team or key adds up to Chargeback) and total "
    "cost; tags at list prices, with their team."
)


class ExportProblem(ValueError):
    """A choice that cannot make a file: ``field`` names it, the message says why in this
    table's words."""

    field: Field


class GroupingNotOffered(ExportProblem):
    """A grouping its source does not have."""

    field = "grouping"

    def __init__(self, grouping: str, source: ExportSource) -> None:
        self.grouping, self.source, self.offered = grouping, source, SOURCES[source].groupings
        super().__init__(
            f"grouping {grouping!r} does not go with source {source}; "
            f"choose one of {', '.join(self.offered)}"
        )


class FileNeeded(ExportProblem):
    """A grouping by team without a teams file, or cost without a pricing file."""

    def __init__(self, grouping: str | None = None) -> None:
        """The teams file ``grouping`` needs, or (None) the pricing file cost needs."""
        self.grouping = grouping
        self.field = "with_cost" if grouping is None else "grouping"
        self.file = "pricing" if grouping is None else "teams"
        super().__init__(
            "cost columns need a pricing file"
            if grouping is None
            else f"grouping {grouping} needs a teams file"
        )


class CostNotOffered(ExportProblem):
    """Cost asked of a source that carries none."""

    field = "with_cost"

    def __init__(self, source: ExportSource) -> None:
        self.source = source
        self.priced = tuple(name for name, choice in SOURCES.items() if choice.priced)
        super().__init__(f"cost columns go with source {' or '.join(self.priced)}, not {source}")


class FormatUnknown(ExportProblem):
    """A file name whose extension names no format."""

    field = "format"

    def __init__(self, name: str, extensions: str) -> None:
        self.name, self.extensions = name, extensions
        super().__init__(f"cannot tell the format from {name!r}; use {extensions}")


def offered(source: ExportSource, grouping: str) -> Grouping:
    """``grouping`` as one of ``source``'s groupings; `GroupingNotOffered` when it is none."""
    for name in SOURCES[source].groupings:
        if name == grouping:
            return name
    raise GroupingNotOffered(grouping, source)
