"""`report`: the capacity meeting report of a range (one self-contained HTML file, or PDF
printed by headless chromium), written and mailed."""

from __future__ import annotations

import os
import sys
from datetime import date
from pathlib import Path
from typing import Annotated, Literal

import typer

from analytics.access import Visible, scoped_review
from analytics.alerts import LINK as CAPACITY_LINK
from analytics.alerts import Attachment, DeliveryError, Email, mail, send_mail, with_attachment
from analytics.capacity import (
    DEFAULT_TERM,
    DEFAULT_WARNING,
    Asked,
    BudgetSettings,
    CapacityReview,
    Decision,
    review_of,
)
from analytics.cli import (
    command_output,
    connecting,
    failures,
    fetching,
    options,
    ranges,
    settings_in_force,
    what_ifs,
)
from analytics.cli.failures import UsageProblem
from analytics.cli.options import AlertsOption, DebugOption, DemoOption
from analytics.cli.program import app
from analytics.exit_codes import DELIVERY
from analytics.exports import Costing
from analytics.reports import MISSING as CHROMIUM_MISSING
from analytics.reports import (
    PageSize,
    ReportSettingsError,
    find_chromium,
    html_to_pdf,
    render,
    report_page_size,
    team_note,
)
from analytics.storage import write_atomic
from analytics.usage import FetchedRange, calendar, range_text

ReportFormat = Literal["html", "pdf"]
OutputOption = Annotated[
    Path | None,
    typer.Option(
        "--output", "-o", help="File to write (atomically): HTML, or PDF with --format pdf."
    ),
]
ReportFormatOption = Annotated[
    ReportFormat | None,
    typer.Option(
        "--format",
        help="html, or pdf (printed by headless chromium); by default from the --output extension.",
    ),
]
MailToOption = Annotated[
    list[str] | None,
    typer.Option(
        "--mail-to",
        help="Mail the report (PDF; HTML without chromium) to this address through the "
        "alerts file's [email] server; repeatable.",
    ),
]
BudgetsOption = Annotated[
    Path | None,
    typer.Option(
        "--budgets",
        help="Budgets TOML file to show the status of, and its contract year (default: "
        "budgets.toml here when present; the example with --demo), as the Capacity page.",
    ),
]
PageSizeOption = Annotated[
    str | None,
    typer.Option(
        "--page-size",
        help="A4 or Letter: the paper the report is laid out and printed on (default: the "
        "REPORT_PAGE_SIZE setting, else A4).",
    ),
]


@app.command()
def report(
    output: OutputOption = None,
    start: options.StartOption = None,
    end: options.EndOption = None,
    period: options.PeriodOption = None,
    fmt: ReportFormatOption = None,
    mail_to: MailToOption = None,
    alerts: AlertsOption = None,
    budgets: BudgetsOption = None,
    size: PageSizeOption = None,
    pricing: options.PricingOption = None,
    team: options.TeamOption = None,
    teams: options.TeamsOption = None,
    term: what_ifs.TermOption = DEFAULT_TERM,
    growth: what_ifs.GrowthOption = None,
    add: what_ifs.AddOption = None,
    risk: what_ifs.RiskOption = what_ifs.DEFAULT_RISK_TEXT,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Write the capacity meeting report (one self-contained HTML file, or PDF) for a range of
    days, with the Decision section under the what-ifs given (as `capacity recommend`), and
    mail it. With --team, the team's report: its usage, keys, forecasts and budgets only."""
    with failures.reported(debug):
        given = what_ifs.asked(term, growth, add, risk)
        today = calendar.utc_today()
        first, last = ranges.day_range(start, end, period, today, demo)
        file_format, chromium = _file_format(output, fmt, mail_to)
        mail_server = _report_mail(alerts, mail_to or [])
        try:
            paper = report_page_size(os.environ, size)
        except ReportSettingsError as exc:
            raise UsageProblem(str(exc)) from None
        settings = settings_in_force.command_settings(demo, pricing, teams, budgets)
        budget_settings = settings_in_force.budget_settings(settings)
        costing = settings_in_force.costing(settings)
        visible = settings_in_force.visible(team, costing)
        days = (first, last)
        page = _report_page(visible, budget_settings, costing, given, today, days, paper, demo)
        _deliver(page, days, output, file_format, chromium, mail_server, mail_to or [])


def _report_page(
    visible: Visible,
    budget_settings: BudgetSettings | None,
    costing: Costing,
    given: Asked,
    today: date,
    days: tuple[date, date],
    paper: PageSize,
    demo: bool,
) -> str:
    """The report of ``days``: the organization's review with its decision, or a team's
    review saying under its title what it leaves out; the budgets' status as `check-budgets`
    prints it; each key against its own limits."""
    reader = fetching.Fetches(connecting.service_connection(), demo, visible=visible)
    if visible.scope.teams is None:
        review, usage, decision = _organization_review(
            reader, budget_settings, costing, given, today, days
        )
        shown, note = budget_settings, None
    else:
        shown = visible.budgets(budget_settings) if budget_settings else None
        organization = fetching.Fetches(connecting.service_connection(), demo)
        cost = settings_in_force.capacity_prices(costing, shown)
        review, usage = scoped_review(
            visible, (reader, organization), budget_settings, (*days, today), cost
        )
        decision, note = None, team_note(visible.scope.name)
    status = (
        None if shown is None else settings_in_force.priced_status(reader, shown, costing, today)[0]
    )
    warning_at = budget_settings.warning_at if budget_settings else DEFAULT_WARNING
    limits = fetching.key_limits(connecting.service_connection(), demo, today, warning_at, visible)
    return render(
        usage.frame,
        review,
        budgets=status,
        key_limits=limits[0] if limits else (),
        page_size=paper,
        decision=decision,
        scope_note=note,
    )


def _deliver(
    page: str,
    days: tuple[date, date],
    output: Path | None,
    file_format: ReportFormat,
    chromium: str | None,
    mail_server: tuple[Email, str] | None,
    mail_to: list[str],
) -> None:
    """Write the report to `output` and mail it, printed to PDF once for both when chromium
    is there and either wants it."""
    first, last = days
    pdf = html_to_pdf(page, chromium) if chromium and (file_format == "pdf" or mail_to) else None
    if output is not None:
        write_atomic(pdf if pdf is not None and file_format == "pdf" else page.encode(), output)
        if sys.stderr.isatty():
            typer.echo(f"Wrote the report on {first}..{last} to {output}", err=True)
    if mail_server is not None:
        _mail_report(mail_server, mail_to, days, page, pdf)


def _file_format(
    output: Path | None, fmt: ReportFormat | None, mail_to: list[str] | None
) -> tuple[ReportFormat, str | None]:
    """The file's format (given, else from the --output extension) and chromium, if found;
    checked before anything is read, so a report that could not be written is refused at once.
    """
    if output is None and not mail_to:
        raise UsageProblem("give --output FILE, --mail-to ADDRESS or both")
    if output is not None:
        command_output.check_output(output)
    file_format = fmt or ("pdf" if output and output.suffix.lower() == ".pdf" else "html")
    chromium = find_chromium()
    if output is not None and file_format == "pdf" and chromium is None:
        raise UsageProblem(CHROMIUM_MISSING)
    return file_format, chromium


def _organization_review(
    reader: fetching.Fetches,
    budget_settings: BudgetSettings | None,
    costing: Costing,
    given: Asked,
    today: date,
    days: tuple[date, date],
) -> tuple[CapacityReview, FetchedRange, Decision]:
    """The organization's review, the usage it read and its decision under the what-ifs
    `given`, today's plan priced when the pricing file has options to buy; the decision's
    warnings said on stderr, as `capacity recommend` says them."""
    first, last = days
    cost = settings_in_force.capacity_prices(costing, budget_settings)
    review, usage = review_of(reader, budget_settings, today, first, last, cost)
    options = costing.pricing.catalogue if costing.pricing else ()
    decision = what_ifs.decided(reader, today, options, given, review.year_start, cost)
    for warning in decision.warnings:
        typer.echo(f"warning: {warning}", err=True)
    return review, usage, decision


def _report_mail(given: Path | None, recipients: list[str]) -> tuple[Email, str] | None:
    """The alerts file's [email] server and the dashboard's Capacity address, for mailing the
    report; None when nobody gets it."""
    if not recipients:
        return None
    for address in recipients:
        if "@" not in address:
            raise UsageProblem(f"--mail-to {address!r} is not an e-mail address")
    config = settings_in_force.alerts(given, "--mail-to")
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
        failures.fail(DELIVERY.code, f"the report was not mailed: {exc}")
