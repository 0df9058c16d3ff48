"""What an export asks for: a source, a grouping of it and whether to add cost, checked and
shaped by one set of rules, so the command line's `export` and the dashboard's Export page
write the same file for the same choices (and refuse the same ones, in the same words)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Final, Literal, TypeVar, get_args

import pandas as pd

from analytics.exports.tables import (
    GROUPINGS,
    KEY_PAIR_GROUPINGS,
    PAIR_GROUPINGS,
    TAG_GROUPINGS,
    TEAM_GROUPINGS,
    Costing,
    GroupBy,
    PairGroupBy,
    TagGroupBy,
    shape_export,
    shape_pair_export,
    shape_tag_export,
    unpriced_warning,
)

# What an export reads: usage per key (the analytics report), characters per custom tag, or
# usage per language pair.
ExportSource = Literal["usage", "tags", "language-pairs"]
SOURCES: Final[tuple[ExportSource, ...]] = get_args(ExportSource)
# Each source's groupings, its default first.
SOURCE_GROUPINGS: Final[dict[ExportSource, tuple[str, ...]]] = {
    "usage": GROUPINGS,
    "tags": TAG_GROUPINGS,
    "language-pairs": PAIR_GROUPINGS,
}
# The daily report each export reads, by the pipeline's name for it.
Report = Literal["usage", "tags", "pairs", "pair_keys"]


class ExportProblem(ValueError):
    """A choice of source, grouping and cost that cannot make a file; says which and why."""


@dataclass(frozen=True)
class ExportRequest:
    """One export's choices; ``grouping`` None is the source's default."""

    source: ExportSource = "usage"
    grouping: str | None = None
    with_cost: bool = False

    @property
    def group_by(self) -> str:
        """The grouping, the source's first when none was chosen."""
        return self.grouping or SOURCE_GROUPINGS[self.source][0]

    @property
    def report(self) -> Report:
        """The daily report the rows come from (only pairs by key read the pair-key-day
        report, several times the pair-day report's rows)."""
        if self.source == "usage":
            return "usage"
        if self.source == "tags":
            return "tags"
        return "pair_keys" if self.group_by in KEY_PAIR_GROUPINGS else "pairs"

    def check(self, costing: Costing) -> None:
        """``ExportProblem`` for choices that go together badly or need a file not given."""
        allowed = SOURCE_GROUPINGS[self.source]
        if self.group_by not in allowed:
            raise ExportProblem(
                f"--group-by {self.group_by} does not go with --source {self.source}; "
                f"choose one of {', '.join(allowed)}"
            )
        if self.group_by in TEAM_GROUPINGS and costing.teams is None:
            raise ExportProblem(f"--group-by {self.group_by} needs a teams file: give --teams FILE")
        if self.with_cost and costing.pricing is None:
            raise ExportProblem("--with-cost needs a pricing file: give --pricing FILE")
        if self.with_cost and self.source == "language-pairs":
            raise ExportProblem(f"--with-cost goes with --source usage or tags, not {self.source}")

    def shape(self, frame: pd.DataFrame, start: date, end: date, costing: Costing) -> pd.DataFrame:
        """The file's rows from the frame of ``report`` over ``start``–``end``."""
        self.check(costing)
        if self.source == "tags":
            priced = costing if self.with_cost else None
            return shape_tag_export(frame, start, end, _as(self.group_by, TAG_GROUPINGS), priced)
        if self.source == "language-pairs":
            return shape_pair_export(frame, _as(self.group_by, PAIR_GROUPINGS))
        grouping: GroupBy = _as(self.group_by, GROUPINGS)
        return shape_export(frame, start, end, grouping, costing, self.with_cost)

    def warning(self, costing: Costing, start: date, end: date) -> str | None:
        """What to say once of the file's cost cells: the days without a price, if any."""
        if not self.with_cost or costing.pricing is None:
            return None
        return unpriced_warning(costing.pricing, start, end, self.group_by)

    def file_name(self, start: date, end: date, fmt: str) -> str:
        """``<source>_<grouping>_<first day>_<last day>.<format>``."""
        return f"{self.source}_{self.group_by}_{start:%Y-%m-%d}_{end:%Y-%m-%d}.{fmt}"

    def options(self) -> str:
        """The command line's options for these choices (defaults left out)."""
        words = []
        if self.source != "usage":
            words.append(f"--source {self.source}")
        words.append(f"--group-by {self.group_by}")
        if self.with_cost:
            words.append("--with-cost")
        return " ".join(words)


G = TypeVar("G", GroupBy, TagGroupBy, PairGroupBy)


def _as(grouping: str, allowed: tuple[G, ...]) -> G:
    """The grouping as its source's type (``check`` has made sure it is one)."""
    return next(g for g in allowed if g == grouping)
