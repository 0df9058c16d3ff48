"""`export`: usage, custom-tag characters or language-pair usage of a range of days, written
atomically to CSV, Parquet or Excel, as scheduled jobs feed finance."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Annotated

import pandas as pd
import typer

from analytics.cli import command_output, connecting, failures, fetching, ranges, settings_in_force
from analytics.cli.failures import UsageProblem
from analytics.cli.options import (
    DebugOption,
    DemoOption,
    EndOption,
    PeriodOption,
    PricingOption,
    StartOption,
    TeamOption,
    TeamsOption,
)
from analytics.cli.program import app
from analytics.exports import (
    COST_COLUMNS_TEXT,
    Costing,
    CostNotOffered,
    ExportProblem,
    ExportRequest,
    ExportSource,
    Field,
    FileNeeded,
    Format,
    FormatUnknown,
    Grouping,
    GroupingNotOffered,
    Piece,
    billing_account,
    export_pieces,
    focus_file_table,
    focus_table,
    format_for,
    unpriced_warning,
    write_export,
)
from analytics.usage import calendar

# The option of each choice of an export.
OPTIONS: dict[Field, str] = {
    "source": "--source",
    "grouping": "--group-by",
    "with_cost": "--with-cost",
    "format": "--format",
}

log = logging.getLogger(__name__)


def _format(output: Path, fmt: Format | None) -> Format:
    command_output.check_output(output)
    if output == command_output.STDOUT:
        if fmt not in (None, "csv"):
            raise UsageProblem(f"--output - (standard output) takes CSV only, not {fmt}")
        return "csv"
    try:
        return fmt or format_for(output)
    except ExportProblem as exc:
        raise UsageProblem(_worded(exc)) from None


def _worded(problem: ExportProblem) -> str:
    """The problem in the command line's words: each choice by its option, as given."""
    if isinstance(problem, GroupingNotOffered):
        return (
            f"{_given('grouping', problem.grouping)} does not go with "
            f"{_given('source', problem.source)}; choose one of {', '.join(problem.offered)}"
        )
    if isinstance(problem, FileNeeded):
        given = _given(problem.field, problem.grouping)
        return f"{given} needs a {problem.file} file: give --{problem.file} FILE"
    if isinstance(problem, CostNotOffered):
        sources = _given("source", " or ".join(problem.priced))
        return f"{_given(problem.field)} goes with {sources}, not {problem.source}"
    if isinstance(problem, FormatUnknown):
        name, extensions = problem.name, problem.extensions
        return f"cannot tell the format from {name!r}; use {extensions} or {_given(problem.field)}"
    return str(problem)


def _given(field: Field, value: str | None = None) -> str:
    """A choice as the command line takes it: its option, and its value if it has one."""
    return OPTIONS[field] if value is None else f"{OPTIONS[field]} {value}"


OutputOption = Annotated[Path, typer.Option("--output", "-o", help="File to write (atomically).")]
SourceOption = Annotated[
    ExportSource,
    typer.Option(
        help="usage: characters and minutes per key; tags: characters per tag; "
        "language-pairs: characters and minutes per language pair."
    ),
]
GroupByOption = Annotated[
    Grouping | None,
    typer.Option(
        help="usage: rows per key and day (default), per key, per team, per team and day, "
        "or one row; tags: rows per tag and day (default) or per tag; language-pairs: per "
        "pair (default), pair and day, pair and key, or pair, key and day (key - is usage "
        "attributed to no key)."
    ),
]
WithCostOption = Annotated[
    bool,
    typer.Option(
        "--with-cost",
        help=COST_COLUMNS_TEXT,
    ),
]
FormatOption = Annotated[
    Format | None,
    typer.Option("--format", help="Output format; by default from the file extension."),
]
NoHistoryOption = Annotated[
    bool, typer.Option("--no-history", help="Fetch every day; do not use the history store.")
]
FocusOption = Annotated[
    bool,
    typer.Option(
        "--focus",
        help="A FOCUS 1.2 cost and usage dataset (CSV or Parquet) for a FinOps tool: a row "
        "per key, day and charged service, the plan's base fee a Purchase row of its month; "
        "needs prices. --source, --group-by and --with-cost do not apply.",
    ),
]
RawOption = Annotated[
    bool, typer.Option("--raw", help="Write text cells as they are (no formula guard).")
]


@app.command()
def export(
    output: OutputOption,
    start: StartOption = None,
    end: EndOption = None,
    period: PeriodOption = None,
    source: SourceOption = "usage",
    group_by: GroupByOption = None,
    with_cost: WithCostOption = False,
    team: TeamOption = None,
    pricing: PricingOption = None,
    teams: TeamsOption = None,
    fmt: FormatOption = None,
    demo: DemoOption = False,
    no_history: NoHistoryOption = False,
    focus: FocusOption = False,
    raw: RawOption = False,
    debug: DebugOption = False,
) -> None:
    """Export usage, custom-tag characters or language-pair usage of a range of UTC days to
    CSV, Parquet or Excel, or their cost as FOCUS 1.2 (--focus); with --team, that team's rows
    and its share of the money only."""
    with failures.reported(debug):
        first, last = ranges.day_range(start, end, period, calendar.utc_today(), demo)
        file_format = _format(output, fmt)
        if focus:
            how = _FocusRead(demo, not no_history, raw)
            _export_focus(output, file_format, (first, last), (pricing, teams, team), how)
            return
        request = ExportRequest(source, group_by, with_cost, team)
        files = (pricing, teams, team)
        table, costing = shaped_export(request, files, (first, last), (demo, not no_history))
        _say_unpriced(request.warning(costing, first, last))
        if output == command_output.STDOUT:
            _to_stdout(export_pieces(table, file_format, raw))
            return
        write_export(table, output, file_format, raw=raw)
        if sys.stderr.isatty():
            typer.echo(f"Wrote {len(table)} rows to {output}", err=True)


def shaped_export(
    request: ExportRequest,
    files: tuple[Path | None, Path | None, str | None],
    days: tuple[date, date],
    how: tuple[bool, bool],
) -> tuple[pd.DataFrame, Costing]:
    """The export's rows of ``request`` over ``days`` and the prices and teams they were
    shaped with: ``files`` the pricing and teams files and the team, ``how`` the demo and the
    history store. `export` writes them to a file, `export-dataset` to its partitions."""
    pricing, teams, team = files
    demo, history = how
    try:
        # A file named here is read (and a bad one refused) whatever the choices.
        reads = request.reads_settings or files != (None, None, None)
        costing = (
            settings_in_force.costing(settings_in_force.command_settings(demo, pricing, teams))
            if reads
            else Costing()
        )
        request.check(costing)
    except ExportProblem as exc:
        raise UsageProblem(_worded(exc)) from None
    visible = settings_in_force.visible(team, costing)
    read = fetching.reader(connecting.service_connection(), demo, *days, history)
    rows = request.rows(read, visible, days, costing)
    if not rows.used:
        _say_nothing_used(*days)
    return rows.table, costing


@dataclass(frozen=True)
class _FocusRead:
    """How a FOCUS export reads and writes: the demo or the service, the history store, the
    formula guard."""

    demo: bool
    history: bool
    raw: bool


def _export_focus(
    output: Path,
    file_format: Format,
    days: tuple[date, date],
    files: tuple[Path | None, Path | None, str | None],
    how: _FocusRead,
) -> None:
    """`export --focus`: the FOCUS rows of the organization, or of ``--team``'s share."""
    if file_format == "xlsx":
        raise UsageProblem("--focus writes CSV or Parquet, not Excel")
    table = focus_rows(files, days, (how.demo, how.history))
    file_table = focus_file_table(table, file_format == "csv")
    if output == command_output.STDOUT:
        _to_stdout(export_pieces(file_table, file_format, how.raw))
        return
    write_export(file_table, output, file_format, raw=how.raw)
    if sys.stderr.isatty():
        typer.echo(f"Wrote {len(table)} FOCUS rows to {output}", err=True)


def focus_rows(
    files: tuple[Path | None, Path | None, str | None],
    days: tuple[date, date],
    how: tuple[bool, bool],
) -> pd.DataFrame:
    """The FOCUS rows of ``days``, of the organization or of the team's share, from the
    organization's usage priced by the money layer: ``files`` the pricing and teams files and
    the team, ``how`` the demo and the history store."""
    pricing, teams, team = files
    demo, history = how
    costing = settings_in_force.costing(settings_in_force.command_settings(demo, pricing, teams))
    if costing.pricing is None:
        raise UsageProblem("FOCUS rows need prices: give --pricing FILE")
    visible = settings_in_force.visible(team, costing)
    first, last = days
    given = connecting.service_connection()
    read = fetching.fetched("usage", given, demo, first, last, history, visible)
    account = billing_account(given, demo)
    table = focus_table(
        read.organization.frame,
        costing.pricing,
        costing.teams,
        first,
        last,
        account,
        visible.scope.teams,
    )
    _say_unpriced(unpriced_warning(costing.pricing, first, last, "key_and_day"))
    return table


def _to_stdout(pieces: Iterable[Piece]) -> None:
    """Every byte of every piece, as it is rendered: unbuffered standard output (`python -u`,
    PYTHONUNBUFFERED) is a raw file, whose write may take only part of a piece."""
    out = sys.stdout.buffer
    for piece in pieces:
        rest = memoryview(piece)
        while rest:
            rest = rest[out.write(rest) :]


def _say_unpriced(warning: str | None) -> None:
    """Days without a price leave their cost cells empty; the file is still written (a job
    gets its usage), and the days are named once, so nobody reads empty as free."""
    if warning is not None:
        typer.echo(f"warning: {warning}", err=True)


def _say_nothing_used(first: date, last: date) -> None:
    """A file of headers alone is still written (a job that always expects one gets it), and
    said once, since a range before any data is more often a mistake than a fact."""
    log.warning("no usage from %s to %s: the file holds the header only", first, last)
