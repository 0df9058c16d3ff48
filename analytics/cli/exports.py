"""`export`: usage, custom-tag characters or language-pair usage of a range of days, written
atomically to CSV, Parquet or Excel, as scheduled jobs feed finance."""

from __future__ import annotations

import logging
import sys
from datetime import date
from pathlib import Path
from typing import Annotated, Literal, TypeVar

import typer

from analytics.cli import fetching, files, shared
from analytics.cli.shared import (
    DebugOption,
    DemoOption,
    EndOption,
    PeriodOption,
    PricingOption,
    StartOption,
    TeamsOption,
    UsageProblem,
    app,
)
from analytics.exports.files import Format, export_bytes, format_for, write_export
from analytics.exports.tables import (
    GROUPINGS,
    KEY_PAIR_GROUPINGS,
    PAIR_GROUPINGS,
    TAG_GROUPINGS,
    TEAM_GROUPINGS,
    shape_export,
    shape_pair_export,
    shape_tag_export,
    unpriced_warning,
)
from analytics.usage import calendar
from analytics.usage.pipeline import fetch_pair_keys, fetch_pairs, fetch_tags

# What an export reads: usage per key (the analytics report), characters per custom tag, or
# usage per language pair.
ExportSource = Literal["usage", "tags", "language-pairs"]
# Every grouping of every source, as one list for the option (each source takes its own).
ExportGrouping = Literal[
    "key_and_day",
    "key",
    "team",
    "team_and_day",
    "none",
    "tag_and_day",
    "tag",
    "pair",
    "pair_and_day",
    "pair_and_key",
    "pair_key_and_day",
]
G = TypeVar("G", bound=str)


log = logging.getLogger(__name__)


def _format(output: Path, fmt: Format | None) -> Format:
    shared.check_output(output)
    if output == shared.STDOUT:
        if fmt not in (None, "csv"):
            raise UsageProblem(f"--output - (standard output) takes CSV only, not {fmt}")
        return "csv"
    try:
        return fmt or format_for(output)
    except ValueError as exc:
        raise UsageProblem(str(exc)) from None


def _grouping(group_by: str | None, allowed: tuple[G, ...], source: ExportSource) -> G:
    """The grouping asked for, when it goes with the source (the source's first by default)."""
    if group_by is None:
        return allowed[0]
    for grouping in allowed:
        if grouping == group_by:
            return grouping
    raise UsageProblem(
        f"--group-by {group_by} does not go with --source {source}; "
        f"choose one of {', '.join(allowed)}"
    )


@app.command()
def export(
    output: Annotated[Path, typer.Option("--output", "-o", help="File to write (atomically).")],
    start: StartOption = None,
    end: EndOption = None,
    period: PeriodOption = None,
    source: Annotated[
        ExportSource,
        typer.Option(
            help="usage: characters and minutes per key; tags: characters per tag; "
            "language-pairs: characters and minutes per language pair."
        ),
    ] = "usage",
    group_by: Annotated[
        ExportGrouping | None,
        typer.Option(
            help="usage: rows per key and day (default), per key, per team, per team and day, "
            "or one row; tags: rows per tag and day (default) or per tag; language-pairs: per "
            "pair (default), pair and day, pair and key, or pair, key and day (key - is usage "
            "attributed to no key)."
        ),
    ] = None,
    with_cost: Annotated[
        bool,
        typer.Option(
            "--with-cost",
            help="Add cost columns (needs a pricing file); tags at list prices, with their team.",
        ),
    ] = False,
    pricing: PricingOption = None,
    teams: TeamsOption = None,
    fmt: Annotated[
        Format | None,
        typer.Option("--format", help="Output format; by default from the file extension."),
    ] = None,
    demo: DemoOption = False,
    no_history: Annotated[
        bool, typer.Option("--no-history", help="Fetch every day; do not use the history store.")
    ] = False,
    raw: Annotated[
        bool, typer.Option("--raw", help="Write text cells as they are (no formula guard).")
    ] = False,
    debug: DebugOption = False,
) -> None:
    """Export usage, custom-tag characters or language-pair usage of a range of UTC days to
    CSV, Parquet or Excel."""
    with shared.reported(debug):
        first, last = shared.day_range(start, end, period, calendar.utc_today(), demo)
        file_format = _format(output, fmt)
        costing = files.costing(pricing, teams, demo)
        if group_by in TEAM_GROUPINGS and costing.teams is None:
            raise UsageProblem(f"--group-by {group_by} needs a teams file: give --teams FILE")
        if with_cost and costing.pricing is None:
            raise UsageProblem("--with-cost needs a pricing file: give --pricing FILE")
        if with_cost and source == "language-pairs":
            raise UsageProblem(f"--with-cost goes with --source usage or tags, not {source}")
        settings = shared.settings()
        history = not no_history
        if source == "tags":
            tag_grouping = _grouping(group_by, TAG_GROUPINGS, source)
            tags = fetching.fetched(fetch_tags, "custom tags", settings, demo, first, last, history)
            priced = costing if with_cost else None
            table = shape_tag_export(tags.frame, first, last, tag_grouping, priced)
            fetched = tags.frame
            grouped: str = tag_grouping
        elif source == "language-pairs":
            pair_grouping = _grouping(group_by, PAIR_GROUPINGS, source)
            # Only the groupings by key need the pair-key-day report's many more rows.
            fetch = fetch_pair_keys if pair_grouping in KEY_PAIR_GROUPINGS else fetch_pairs
            pairs = fetching.fetched(fetch, "language pairs", settings, demo, first, last, history)
            table = shape_pair_export(pairs.frame, pair_grouping)
            fetched = pairs.frame
            grouped = pair_grouping
        else:
            grouping = _grouping(group_by, GROUPINGS, source)
            usage = fetching.usage(settings, demo, first, last, use_history=history)
            table = shape_export(usage.frame, first, last, grouping, costing, with_cost)
            fetched = usage.frame
            grouped = grouping
        if fetched.empty:
            _say_nothing_used(first, last)
        if with_cost and costing.pricing is not None:
            _say_unpriced(unpriced_warning(costing.pricing, first, last, grouped))
        if output == shared.STDOUT:
            sys.stdout.buffer.write(export_bytes(table, file_format, raw))
            return
        write_export(table, output, file_format, raw=raw)
        if sys.stderr.isatty():
            typer.echo(f"Wrote {len(table)} rows to {output}", err=True)


def _say_unpriced(warning: str | None) -> None:
    """Days without a price leave their cost cells empty; the file is still written (a job
    gets its usage), and the days are named once, so nobody reads empty as free."""
    if warning is not None:
        typer.echo(f"warning: {warning}", err=True)


def _say_nothing_used(first: date, last: date) -> None:
    """A file of headers alone is still written (a job that always expects one gets it), and
    said once, since a range before any data is more often a mistake than a fact."""
    log.warning("no usage from %s to %s: the file holds the header only", first, last)
