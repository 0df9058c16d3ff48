"""`python -m analytics`: scheduled exports and quick look-ups, made for cron and systemd timers.

Exit codes: 0 done; 2 bad arguments or configuration; 3 the service refused the key (403);
4 the service or the network failed after retries (or answered with an invalid body);
1 anything unexpected. `check-budgets` also exits 10 when a warning threshold is reached
(used or projected, or a budget names an unknown key) and 11 when a budget (or the plan's
character limit, for a plan budget) is exceeded; `check-anomalies` exits 12 when it finds
anomalies nobody has marked yet. A command that sends messages (`--notify`,
`report --mail-to`) exits 13 when one could not be delivered (it is sent again next run).
Errors go to stderr in one or two lines, without a traceback unless --debug is given.
"""

from __future__ import annotations

import logging
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Annotated, Literal, TypeVar

import msgspec
import typer
from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from analytics.alerts.anomalies import anomaly_events
from analytics.alerts.budgets import LINK as CAPACITY_LINK
from analytics.alerts.budgets import budget_events
from analytics.alerts.config import AlertsConfig, AlertsFileError, Email, load_alerts
from analytics.alerts.delivery import DeliveryError, deliver, send_mail
from analytics.alerts.events import Event
from analytics.alerts.messages import Attachment, mail, with_attachment
from analytics.alerts.state import DeliveryState, StateFileError, state_path
from analytics.anomalies.detect import LOOKBACK_DAYS, find_anomalies
from analytics.anomalies.marks import MARKS, Mark, Marks, MarksFileError, check_id, status
from analytics.anomalies.tables import new_anomalies
from analytics.capacity.budgets import (
    BudgetFile,
    BudgetFileError,
    Status,
    evaluate,
    evaluate_plan,
    evaluation_frame,
    in_file_order,
    load_budgets,
    worst,
)
from analytics.capacity.costs import Prices
from analytics.capacity.forecast import required_start
from analytics.capacity.plan import plan_snapshot, usage_range
from analytics.capacity.review import build_review, review_range
from analytics.cost.files import money_file
from analytics.cost.priced import PricesInForce
from analytics.cost.prices import Pricing, PricingFileError, UnpricedDayError, load_pricing
from analytics.cost.teams import TeamFileError, Teams, load_teams
from analytics.exports.files import Format, format_for, write_export
from analytics.exports.tables import (
    GROUPINGS,
    KEY_PAIR_GROUPINGS,
    PAIR_GROUPINGS,
    TAG_GROUPINGS,
    TEAM_GROUPINGS,
    Costing,
    shape_export,
    shape_pair_export,
    shape_tag_export,
)
from analytics.languages import language_table
from analytics.reports.meeting import render
from analytics.reports.pdf import MISSING as CHROMIUM_MISSING
from analytics.reports.pdf import find_chromium, html_to_pdf
from analytics.service.client import ServiceClient
from analytics.service.demo import demo_client
from analytics.service.errors import AuthorizationError, ServiceError
from analytics.service.models import PlanUsage
from analytics.service.settings import Settings, setting_problems
from analytics.usage.calendar import Preset, YearStart, range_text, resolve, utc_today
from analytics.usage.files import write_atomic
from analytics.usage.frames import labels
from analytics.usage.history import HistoryStore
from analytics.usage.pipeline import (
    Usage,
    fetch_pair_keys,
    fetch_pairs,
    fetch_tags,
    fetch_usage,
)

EXIT_UNEXPECTED = 1
EXIT_USAGE = 2
EXIT_FORBIDDEN = 3
EXIT_SERVICE = 4
EXIT_BUDGET_WARNING = 10
EXIT_BUDGET_EXCEEDED = 11
EXIT_NEW_ANOMALIES = 12
EXIT_DELIVERY = 13
BUDGET_EXIT_CODES: dict[Status, int] = {
    "ok": 0,
    "unknown key": EXIT_BUDGET_WARNING,
    "warning": EXIT_BUDGET_WARNING,
    "exceeded": EXIT_BUDGET_EXCEEDED,
}

app = typer.Typer(
    help="Usage exports and look-ups for the Language Service.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


ListFormat = Literal["table", "csv"]
ReportFormat = Literal["html", "pdf"]
PlanFormat = Literal["table", "json"]
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
T = TypeVar("T")

DemoOption = Annotated[
    bool, typer.Option("--demo", help="Use the embedded demo organization instead of a service.")
]
StartOption = Annotated[str | None, typer.Option(help="First UTC day, YYYY-MM-DD.")]
EndOption = Annotated[str | None, typer.Option(help="Last UTC day (inclusive), YYYY-MM-DD.")]
PeriodOption = Annotated[Preset | None, typer.Option(help="Named range ending yesterday (UTC).")]
DebugOption = Annotated[
    bool, typer.Option("--debug", help="Log every step and show tracebacks on errors.")
]
PricingOption = Annotated[
    Path | None,
    typer.Option(
        "--pricing",
        help="Prices TOML file (default: pricing.toml here when present; the example with --demo).",
    ),
]
TeamsOption = Annotated[
    Path | None,
    typer.Option(
        "--teams",
        help="Teams TOML file (default: teams.toml here when present; the example with --demo).",
    ),
]
AlertsOption = Annotated[
    Path | None,
    typer.Option("--alerts", help="Alerts TOML file (default: alerts.toml here when present)."),
]
NotifyOption = Annotated[
    bool,
    typer.Option(
        "--notify",
        help="Send each new or escalated alert to the alerts file's destinations, once per level.",
    ),
]
DryRunOption = Annotated[
    bool,
    typer.Option(
        "--dry-run", help="With --notify: print the messages instead; send and record nothing."
    ),
]


class UsageProblem(Exception):
    """Bad arguments or configuration: reported with exit code 2."""


def _fail(code: int, message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


@contextmanager
def _reported(debug: bool) -> Iterator[None]:
    """Turn failures into one readable stderr line and the documented exit code.

    Log lines go to stderr while the command runs; the handler is removed afterwards so a
    caller that runs several commands in one process (tests) never logs to a closed stream.
    """
    root = logging.getLogger()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    previous_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if debug else logging.WARNING)
    # Retries are routine; their log lines carry no detail worth a cron mail.
    logging.getLogger("stamina").setLevel(logging.DEBUG if debug else logging.ERROR)
    try:
        yield
    except typer.Exit:
        raise
    except (
        UsageProblem,
        PricingFileError,
        TeamFileError,
        UnpricedDayError,
        AlertsFileError,
        StateFileError,
        MarksFileError,
    ) as exc:
        _fail(EXIT_USAGE, str(exc))
    except AuthorizationError as exc:
        if debug:
            raise
        _fail(EXIT_FORBIDDEN, str(exc))
    except ServiceError as exc:
        if debug:
            raise
        _fail(EXIT_SERVICE, str(exc))
    except Exception as exc:
        if debug:
            raise
        _fail(EXIT_UNEXPECTED, f"unexpected {type(exc).__name__}: {exc} (rerun with --debug)")
    finally:
        root.removeHandler(handler)
        root.setLevel(previous_level)


def _settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        raise UsageProblem(f"invalid setting: {setting_problems(exc)}") from None


def _configured(settings: Settings, demo: bool) -> None:
    """A command without --demo needs a service: it never silently falls back to demo data."""
    if not demo and not settings.is_configured:
        raise UsageProblem(
            "SERVICE_AUTH_KEY and SERVICE_BASE_URL must be set (or pass --demo for demo data)"
        )


def _client(settings: Settings, demo: bool) -> ServiceClient:
    _configured(settings, demo)
    if demo:
        return demo_client(settings)
    return ServiceClient.from_settings(settings)


def _day(value: str | None, name: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UsageProblem(f"{name} must be a day as YYYY-MM-DD, not {value!r}") from None


def _range(
    start: str | None, end: str | None, period: Preset | None, today: date
) -> tuple[date, date]:
    """The inclusive days asked for; `today` is read once per command, so a run that crosses
    UTC midnight never mixes two days' views of "yesterday"."""
    if period is not None:
        if start or end:
            raise UsageProblem("give either --period or --start/--end, not both")
        return resolve(period, today)
    first, last = _day(start, "--start"), _day(end, "--end")
    if first is None or last is None:
        raise UsageProblem("give --start and --end (inclusive UTC days) or --period")
    if last < first:
        raise UsageProblem(f"--end {last} is before --start {first}")
    if last > today:
        raise UsageProblem(f"--end {last} is in the future; usage is known through {today} (UTC)")
    return first, last


def _costing(pricing: Path | None, teams: Path | None, demo: bool) -> Costing:
    """The money files in force: given, else found in the working folder, else (demo) the
    examples; none found means usage only. A bad file is one error line (exit 2)."""
    pricing_file = money_file("pricing", pricing, Path.cwd(), demo)
    teams_file = money_file("teams", teams, Path.cwd(), demo)
    prices: Pricing | None = load_pricing(pricing_file) if pricing_file else None
    cost_centres: Teams | None = load_teams(teams_file) if teams_file else None
    return Costing(prices, cost_centres)


def _daily_cost(costing: Costing, budgets: BudgetFile | None) -> Prices | None:
    """How budgets and the report price usage (and share spend between teams); cost budgets
    without a pricing file are a usage problem."""
    if costing.pricing is None:
        if budgets is not None and budgets.cost_budgets:
            raise UsageProblem("cost budgets need a pricing file: give --pricing FILE")
        return None
    return PricesInForce(costing.pricing, costing.teams)


def _check_output(output: Path) -> None:
    """Refuse a path that cannot be written before anything is fetched."""
    if output.is_dir():
        raise UsageProblem(f"--output {output} is a folder; give a file path")
    if not output.parent.is_dir():
        raise UsageProblem(
            f"the folder of --output {output} does not exist; give a file in an existing folder"
        )


def _format(output: Path, fmt: Format | None) -> Format:
    _check_output(output)
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
    with _reported(debug):
        first, last = _range(start, end, period, utc_today())
        file_format = _format(output, fmt)
        costing = _costing(pricing, teams, demo)
        if group_by in TEAM_GROUPINGS and costing.teams is None:
            raise UsageProblem(f"--group-by {group_by} needs a teams file: give --teams FILE")
        if with_cost and costing.pricing is None:
            raise UsageProblem("--with-cost needs a pricing file: give --pricing FILE")
        if with_cost and source == "language-pairs":
            raise UsageProblem(f"--with-cost goes with --source usage or tags, not {source}")
        settings = _settings()
        if source == "tags":
            tag_grouping = _grouping(group_by, TAG_GROUPINGS, source)
            tags = _fetched(fetch_tags, "custom tags", settings, demo, first, last, not no_history)
            priced = costing if with_cost else None
            table = shape_tag_export(tags.frame, first, last, tag_grouping, priced)
        elif source == "language-pairs":
            pair_grouping = _grouping(group_by, PAIR_GROUPINGS, source)
            # Only the groupings by key need the pair-key-day report's many more rows.
            fetch = fetch_pair_keys if pair_grouping in KEY_PAIR_GROUPINGS else fetch_pairs
            pairs = _fetched(fetch, "language pairs", settings, demo, first, last, not no_history)
            table = shape_pair_export(pairs.frame, pair_grouping)
        else:
            grouping = _grouping(group_by, GROUPINGS, source)
            usage = _fetch(settings, demo, first, last, use_history=not no_history)
            table = shape_export(usage.frame, first, last, grouping, costing, with_cost)
        write_export(table, output, file_format, raw=raw)
        if sys.stderr.isatty():
            typer.echo(f"Wrote {len(table)} rows to {output}", err=True)


def _fetch(settings: Settings, demo: bool, first: date, last: date, use_history: bool) -> Usage:
    """Usage of first..last (history store only for a configured service).

    A reconciliation mismatch is logged as one WARNING line on stderr; the run still succeeds.
    """
    return _fetched(fetch_usage, "usage", settings, demo, first, last, use_history)


def _fetched(
    fetch: Callable[..., T],
    what: str,
    settings: Settings,
    demo: bool,
    first: date,
    last: date,
    use_history: bool,
) -> T:
    """`fetch(client, first, last, history=..., progress=...)` (fetch_usage, fetch_tags,
    fetch_pairs) with the history store of a configured service, and a progress bar on a
    terminal."""
    with _client(settings, demo) as client:
        history = HistoryStore.from_settings(settings) if use_history and not demo else None
        if not sys.stderr.isatty():  # cron: quiet unless something needs saying
            return fetch(client, first, last, history=history)
        console = Console(stderr=True)
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("windows"),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task(f"Fetching {what} {first}..{last}", total=None)

            def arrived(done: int, planned: int) -> None:
                bar.update(task, completed=done, total=planned)

            return fetch(client, first, last, history=history, progress=arrived)


def _plan_usage(settings: Settings, demo: bool) -> PlanUsage:
    with _client(settings, demo) as client:
        return client.usage()


def _aligned(rows: list[list[str]]) -> list[str]:
    """Left-aligned columns two spaces apart and no trailing spaces: lines people and scripts
    read."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _budgets(path: Path) -> BudgetFile:
    try:
        return load_budgets(path)
    except BudgetFileError as exc:
        raise UsageProblem(str(exc)) from None


BudgetsOption = Annotated[Path, typer.Option("--budgets", help="The budgets TOML file.")]


def _alerts(given: Path | None, option: str) -> AlertsConfig:
    """The alerts file in force: given, else alerts.toml in the working folder; its secrets
    come from the environment."""
    path = money_file("alerts", given, Path.cwd(), demo=False)
    if path is None:
        raise UsageProblem(
            f"{option} needs an alerts file: alerts.toml in the working folder or --alerts FILE "
            "(see alerts.example.toml)"
        )
    return load_alerts(path, os.environ)


@dataclass(frozen=True)
class _Outbox:
    """Where a check's alerts go (`--notify`): the alerts file's destinations, what was
    delivered before, and whether to show the messages instead (`--dry-run`)."""

    config: AlertsConfig
    state: DeliveryState
    dry_run: bool


def _outbox(notify: bool, alerts: Path | None, dry_run: bool, settings: Settings) -> _Outbox | None:
    """The outbox of a check run with `--notify`, read before any usage is fetched so a bad
    alerts file stops the run at once; None without `--notify`."""
    if (dry_run or alerts) and not notify:
        raise UsageProblem("--alerts and --dry-run go with --notify")
    if not notify:
        return None
    return _Outbox(_alerts(alerts, "--notify"), DeliveryState(state_path(settings)), dry_run)


@dataclass
class _Check:
    """A check command's run: its settings, its outbox (None without `--notify`), and the exit
    code and alerts it ends with."""

    settings: Settings
    outbox: _Outbox | None
    code: int = 0
    events: Sequence[Event] = ()


@contextmanager
def _check(notify: bool, alerts: Path | None, dry_run: bool, debug: bool) -> Iterator[_Check]:
    """Run a check as every command runs, its outbox read first; at its end send its alerts
    (with `--notify`) and exit with its code, EXIT_DELIVERY when an alert did not get through."""
    with _reported(debug):
        settings = _settings()
        check = _Check(settings, _outbox(notify, alerts, dry_run, settings))
        yield check
        if check.outbox is not None and not _notify(check.events, check.outbox):
            check.code = EXIT_DELIVERY
    raise typer.Exit(check.code)


def _notify(events: Sequence[Event], outbox: _Outbox) -> bool:
    """Deliver new and escalated events; say what was sent (stdout), shown (dry run, stdout)
    or not delivered (stderr). False when a message did not get through."""
    config, state, dry_run = outbox.config, outbox.state, outbox.dry_run
    deliveries = deliver(events, config, state, dry_run)
    for delivery in deliveries:
        subject, destination = delivery.event.subject, delivery.destination
        if delivery.preview:
            typer.echo(f"--- dry run: {destination} ---\n{delivery.preview.rstrip()}")
        elif delivery.error:
            typer.echo(
                f"error: not delivered to {destination}: {subject}: {delivery.error} "
                "(sent again at the next run)",
                err=True,
            )
        else:
            typer.echo(f"notified {destination}: {subject}")
    if dry_run and not deliveries:
        typer.echo("--- dry run: nothing to send (every alert was delivered already) ---")
    return not any(delivery.error for delivery in deliveries)


@app.command()
def report(
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="File to write (atomically): HTML, or PDF with --format pdf."
        ),
    ] = None,
    start: StartOption = None,
    end: EndOption = None,
    period: PeriodOption = None,
    fmt: Annotated[
        ReportFormat | None,
        typer.Option(
            "--format",
            help="html, or pdf (printed by headless chromium); by default from the --output "
            "extension.",
        ),
    ] = None,
    mail_to: Annotated[
        list[str] | None,
        typer.Option(
            "--mail-to",
            help="Mail the report (PDF; HTML without chromium) to this address through the "
            "alerts file's [email] server; repeatable.",
        ),
    ] = None,
    alerts: AlertsOption = None,
    budgets: Annotated[
        Path | None, typer.Option("--budgets", help="Budgets TOML file to show the status of.")
    ] = None,
    pricing: PricingOption = None,
    teams: TeamsOption = None,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Write the capacity meeting report (one self-contained HTML file, or PDF) for a range of
    days, and mail it."""
    with _reported(debug):
        today = utc_today()
        first, last = _range(start, end, period, today)
        if output is None and not mail_to:
            raise UsageProblem("give --output FILE, --mail-to ADDRESS or both")
        if output is not None:
            _check_output(output)
        file_format = fmt or ("pdf" if output and output.suffix.lower() == ".pdf" else "html")
        chromium = find_chromium()
        if output is not None and file_format == "pdf" and chromium is None:
            raise UsageProblem(CHROMIUM_MISSING)
        mail_server = _report_mail(alerts, mail_to or [])
        budget_file = _budgets(budgets) if budgets else None
        costing = _costing(pricing, teams, demo)
        cost = _daily_cost(costing, budget_file)
        year_start = budget_file.year_start if budget_file else YearStart()
        fetch_first, fetch_last = review_range(first, last, today, year_start)
        usage = _fetch(_settings(), demo, fetch_first, fetch_last, use_history=True)
        review = build_review(usage, budget_file, today, first, last, cost)
        page = render(usage.frame, review)
        pdf = (
            html_to_pdf(page, chromium) if chromium and (file_format == "pdf" or mail_to) else None
        )
        if output is not None:
            write_atomic(pdf if pdf is not None and file_format == "pdf" else page.encode(), output)
            if sys.stderr.isatty():
                typer.echo(f"Wrote the report on {first}..{last} to {output}", err=True)
        if mail_server is not None:
            _mail_report(mail_server, mail_to or [], (first, last), page, pdf)


def _report_mail(given: Path | None, recipients: list[str]) -> tuple[Email, str] | None:
    """The alerts file's [email] server and the dashboard's Capacity address, for mailing the
    report; None when nobody gets it."""
    if not recipients:
        return None
    for address in recipients:
        if "@" not in address:
            raise UsageProblem(f"--mail-to {address!r} is not an e-mail address")
    config = _alerts(given, "--mail-to")
    if config.email is None:
        raise UsageProblem(f"{config.source}: --mail-to needs an [email] table (the SMTP server)")
    return config.email, config.link(CAPACITY_LINK)


def _mail_report(
    server: tuple[Email, str],
    recipients: list[str],
    days: tuple[date, date],
    page: str,
    pdf: bytes | None,
) -> None:
    """Mail the report as PDF, or as HTML (saying why) when chromium is missing."""
    email, dashboard = server
    first, last = days
    name = f"capacity-review_{first}_{last}"
    if pdf is not None:
        how = "as PDF."
        attachment = Attachment(f"{name}.pdf", pdf, "application/pdf")
    else:
        how = (
            f"as HTML: {CHROMIUM_MISSING}, so no PDF was made. The HTML file needs no network; "
            "open it in a browser (which can print it)."
        )
        attachment = Attachment(f"{name}.html", page.encode(), "text/html")
    body = (
        f"The capacity review of {range_text(first, last)} (UTC days) is attached {how}\n\n"
        f"Dashboard: {dashboard}\n"
    )
    subject = f"Capacity review {range_text(first, last)}"
    message = with_attachment(mail(email, recipients, subject, body), attachment)
    try:
        send_mail(email, message)
    except DeliveryError as exc:
        _fail(EXIT_DELIVERY, f"the report was not mailed: {exc}")


# Both checks list their options alike: what to check, the alert options, the check's own
# options, then --demo and --debug.
@app.command("check-budgets")
def check_budgets(
    budgets: BudgetsOption,
    notify: NotifyOption = False,
    alerts: AlertsOption = None,
    dry_run: DryRunOption = False,
    pricing: PricingOption = None,
    teams: TeamsOption = None,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Print each budget's status; exit 0 all within budget, 10 warning, 11 exceeded (13: an
    alert was not delivered)."""
    with _check(notify, alerts, dry_run, debug) as check:
        budget_file = _budgets(budgets)
        costing = _costing(pricing, teams, demo)
        cost = _daily_cost(costing, budget_file)
        today = utc_today()
        first = required_start(today, budget_file.year_start)
        # Plan budgets need the plan's counts, and the days its projection reads.
        plan = _plan_usage(check.settings, demo) if budget_file.plan_budgets else None
        if plan is not None:
            first = min(first, usage_range(plan, today)[0])
        usage = _fetch(check.settings, demo, first, today - timedelta(days=1), use_history=True)
        evaluations = evaluate(budget_file, usage.frame, today, usage.start, cost)
        if plan is not None:
            snapshot = plan_snapshot(plan, usage.frame, today, usage.start)
            evaluations = in_file_order(
                budget_file, evaluations, evaluate_plan(budget_file, snapshot)
            )
        columns = ["budget", "used %", "projected %", "overrun", "status"]
        if any(e.note for e in evaluations):
            columns.append("note")
        table = evaluation_frame(evaluations)[columns]
        for share in ("used %", "projected %"):
            table[share] = table[share].map(lambda v: "-" if math.isnan(v) else f"{v:.1f}")
        table["overrun"] = table["overrun"].map(lambda d: str(d) if d else "-")
        typer.echo(table.to_string(index=False))
        check.code = BUDGET_EXIT_CODES[worst(evaluations)]
        currency = costing.pricing.currency if costing.pricing else None
        check.events = budget_events(evaluations, labels(usage.frame), currency)


@app.command("check-anomalies")
def check_anomalies(
    days: Annotated[
        int, typer.Option(min=1, help="Check the last N closed UTC days (yesterday back).")
    ] = 7,
    notify: NotifyOption = False,
    alerts: AlertsOption = None,
    dry_run: DryRunOption = False,
    show_all: Annotated[bool, typer.Option("--all", help="Also print marked anomalies.")] = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Print one line per anomaly nobody has marked yet (severity, id, what happened); exit 0
    when there is none, 12 when there is (13: an alert was not delivered)."""
    with _check(notify, alerts, dry_run, debug) as check:
        marks = _marks(check.settings, demo)
        marked = marks.read() if marks else {}
        end = utc_today() - timedelta(days=1)
        start = end - timedelta(days=days - 1)
        usage = _fetch(check.settings, demo, start - timedelta(days=LOOKBACK_DAYS), end, True)
        found = find_anomalies(usage.frame, usage.start, start, end)
        new = new_anomalies(found, marked)
        shown = found if show_all else new
        if shown:
            rows = [
                [a.severity, *([status(a.id, marked)] if show_all else []), a.id, a.sentence]
                for a in shown
            ]
            for line in _aligned(rows):
                typer.echo(line)
        check.code = EXIT_NEW_ANOMALIES if new else 0
        check.events = anomaly_events(new)


@app.command("mark-anomaly")
def mark_anomaly(
    anomaly: Annotated[str, typer.Argument(help="The anomaly's id, as check-anomalies prints it.")],
    mark: Annotated[
        str,
        typer.Argument(
            help="expected (planned activity), acknowledged (seen), or new (remove the mark)."
        ),
    ],
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Mark an anomaly expected or acknowledged, so check-anomalies no longer reports it as
    new; an id may be marked before the anomaly happens (planned activity)."""
    with _reported(debug):
        if mark not in (*MARKS, "new"):
            raise UsageProblem(f"mark must be expected, acknowledged or new, not {mark!r}")
        try:
            anomaly_id = check_id(anomaly)
        except ValueError as exc:
            raise UsageProblem(str(exc)) from None
        marks = _marks(_settings(), demo)
        if marks is None:
            raise UsageProblem("marks are kept beside the history store: set SERVICE_HISTORY_PATH")
        chosen: Mark | None = next((m for m in MARKS if m == mark), None)
        marks.set(anomaly_id, chosen)


def _marks(settings: Settings, demo: bool) -> Marks | None:
    """Where the marks live: beside the history store of the configured account, or of the
    demo organization; None without a history folder (nothing is marked)."""
    _configured(settings, demo)
    return Marks.for_settings(settings, demo)


@app.command()
def languages(
    resource: Annotated[
        str, typer.Option(help="translate_text, translate_document, glossary, voice or write.")
    ],
    fmt: Annotated[ListFormat, typer.Option("--format", help="table or csv.")] = "table",
    beta: Annotated[
        bool,
        typer.Option("--beta", help="Include beta and early-access languages and features."),
    ] = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """List the languages of one resource with their source/target flags and features (the
    service lists only stable ones unless --beta asks for the rest)."""
    with _reported(debug), _client(_settings(), demo) as client:
        entries = client.languages(resource, include_beta=beta)
        table = language_table(entries).drop(columns="status")
        # Space-separated, as scripts split them (the page's table separates with commas).
        table["features"] = [" ".join(sorted(e.features)) for e in entries]
        for flag in ("source", "target"):
            table[flag] = table[flag].map({True: "yes", False: "no"})
        if fmt == "csv":
            table.to_csv(sys.stdout, index=False, lineterminator="\n")
        else:
            for line in _aligned([list(table.columns), *table.astype(str).to_numpy().tolist()]):
                typer.echo(line)


@app.command()
def plan(
    fmt: Annotated[PlanFormat, typer.Option("--format", help="table or json.")] = "table",
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Usage and limits of the current billing period, and the day each limit is reached at
    the current run rate."""
    with _reported(debug):
        settings = _settings()
        today = utc_today()
        answer = _plan_usage(settings, demo)
        usage = _fetch(settings, demo, *usage_range(answer, today), use_history=True)
        snapshot = plan_snapshot(answer, usage.frame, today, usage.start)
        if fmt == "json":
            typer.echo(
                msgspec.json.format(msgspec.json.encode(snapshot.as_json()), indent=2).decode()
            )
            return
        typer.echo(f"Billing period: {snapshot.period_text}")
        rows = [["metric", "used", "limit", "used %", "limit reached"]]
        rows += [
            [a.label, f"{a.used:,}", a.limit_text, a.share_text, a.reach_text]
            for a in snapshot.allowances
        ]
        for line in _aligned(rows):
            typer.echo(line)


@app.command()
def detect(
    texts: Annotated[list[str], typer.Argument(help="Texts whose language to detect.")],
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Detect the language of each text (one line per text, in order)."""
    with _reported(debug), _client(_settings(), demo) as client:
        for text, result in zip(texts, client.detect(texts), strict=True):
            found = result.detected_language or "-"
            typer.echo(f"{found}\t{result.detection_status}\t{text}")


def main() -> None:
    app()
