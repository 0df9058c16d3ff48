"""The checks cron runs and the marks people give: `check-budgets`, `check-anomalies` and
`check-rotations` (each exits with a code a timer can act on and, with `--notify`, sends its
alerts once per level, as `check_run` runs it) and `mark-anomaly`."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Annotated, Literal

import pandas as pd
import typer

from analytics.alerts import (
    Event,
    anomaly_events,
    budget_amount,
    budget_events,
    guardrail_events,
    key_age_events,
    rotation_events,
)
from analytics.anomalies import (
    MARKS,
    Anomaly,
    Mark,
    Marks,
    anomalies_in,
    anomaly_name,
    check_id,
    new_anomalies,
    status,
)
from analytics.anomalies import Status as AnomalyStatus
from analytics.capacity import budgets as budgeting
from analytics.cli import command_output, connecting, failures, fetching, settings_in_force
from analytics.cli.check_run import DryRunOption, NotifyOption, check_run
from analytics.cli.failures import UsageProblem
from analytics.cli.json_output import json_text
from analytics.cli.options import (
    AlertsOption,
    DebugOption,
    DemoOption,
    PricingOption,
    TeamOption,
    TeamsOption,
)
from analytics.cli.program import app
from analytics.exit_codes import BUDGET_EXCEEDED, BUDGET_WARNING, NEW_ANOMALIES
from analytics.exports import Costing
from analytics.guardrails import NoUsagePeriod, plan_now
from analytics.guardrails import memory as guardrail_state
from analytics.keys import RotationLog, watched
from analytics.service import ServiceConnection
from analytics.usage import calendar, labels, percent_text, records_of

BUDGET_EXIT_CODES: dict[budgeting.Status, int] = {
    "ok": 0,
    "unknown key": BUDGET_WARNING.code,
    "warning": BUDGET_WARNING.code,
    "exceeded": BUDGET_EXCEEDED.code,
}

BudgetsOption = Annotated[
    Path | None,
    typer.Option(
        "--budgets",
        help="The budgets TOML file (default: budgets.toml here when present; the example "
        "with --demo). Every key's own limits are checked as well, without configuration.",
    ),
]
KeyLimitsOption = Annotated[
    bool,
    typer.Option(
        "--key-limits/--no-key-limits", help="Check every key's own limits (an admin key)."
    ),
]


# Both checks list what to check, the alert options, their own options, --demo and --debug.
@app.command("check-budgets")
def check_budgets(
    budgets: BudgetsOption = None,
    key_limits: KeyLimitsOption = True,
    notify: NotifyOption = False,
    alerts: AlertsOption = None,
    dry_run: DryRunOption = False,
    team: TeamOption = None,
    pricing: PricingOption = None,
    teams: TeamsOption = None,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Print the status of each budget and of each key's own limits (warning at the file's
    warning_at, 80 % by default); exit 0 all within, 10 warning, 11 exceeded (13: an alert
    was not delivered). With --team: that team's budgets and its keys' own limits only."""
    with check_run(notify, alerts, dry_run, demo, debug) as check:
        settings = settings_in_force.command_settings(demo, pricing, teams, budgets)
        costing = settings_in_force.costing(settings)
        visible = settings_in_force.visible(team, costing)
        checked = settings_in_force.budget_settings(settings)
        warning_at = budgeting.DEFAULT_WARNING if checked is None else checked.warning_at
        if checked is not None:
            checked = visible.budgets(checked)
        today = calendar.utc_today()
        limits = (
            fetching.key_limits(check.connection, demo, today, warning_at, visible)
            if key_limits
            else None
        )
        if checked is None and limits is None:
            raise _nothing_to_check(visible.scope.name if team is not None else None)
        evaluations: list[budgeting.Evaluation] = []
        names: dict[str, str] = {}
        if checked is not None:
            reader = fetching.Fetches(check.connection, demo, visible=visible)
            evaluations, read = settings_in_force.priced_status(reader, checked, costing, today)
            names = labels(read.frame)
        if limits is not None:
            evaluations += limits.evaluations
            names |= limits.labels
        currency = costing.pricing.currency if costing.pricing else None
        for line in command_output.aligned(
            _budget_rows(budgeting.evaluation_frame(evaluations, currency or ""))
        ):
            typer.echo(line)
        check.code = BUDGET_EXIT_CODES[budgeting.worst(evaluations)]
        check.events = budget_events(evaluations, names, currency)
        # Only for delivery, where the key list can be read, and for the organization: the
        # guardrails hold the organization's enforced budgets.
        whole = visible.scope.whole
        if check.outbox is not None and checked is not None and limits is not None and whole:
            guarded = _guardrail_events(check.connection, demo, checked, costing, today)
            check.events = [*check.events, *guarded]


def _nothing_to_check(team: str | None) -> UsageProblem:
    """Why nothing can be checked: `team`'s scope holds no budget, or what would give one."""
    if team is not None:
        return UsageProblem(
            f"nothing to check: {team} has no budgets in characters or minutes and the keys' own "
            "limits are not checked (--no-key-limits, or not an admin key)"
        )
    return UsageProblem(
        "nothing to check: give --budgets FILE (or put budgets.toml here), or use an admin key, "
        "whose keys' own limits are checked"
    )


def _guardrail_events(
    connection: ServiceConnection,
    demo: bool,
    budgets: budgeting.BudgetSettings,
    costing: Costing,
    today: date,
) -> list[Event]:
    """The guardrails' alerts (a key its guardrail stops, an enforced budget used up) from the
    plan the next `guardrails apply` holds; none without an enforced budget, a guardrail state
    (no state store) or a usage period."""
    records = records_of(connection, demo)
    if not budgets.enforced or records is None:
        return []
    remembered = guardrail_state.read(records).keys
    reader = fetching.Fetches(connection, demo)
    try:
        plan = plan_now(reader, budgets, (costing.teams, costing.pricing), today, remembered)
    except NoUsagePeriod:
        return []
    return guardrail_events(plan)


BUDGET_HEADER = [
    "budget", "period", "used", "limit", "unit", "used %", "projected", "projected %",
    "limit reached", "status",
]  # fmt: skip


def _budget_rows(table: pd.DataFrame) -> list[list[str]]:
    """The budget table as people read it: what was used of which limit, in the budget's unit
    (a share alone hides a wrong unit or limit), then the shares, the day the limit is reached
    and the status; a note column when a budget has one."""
    noted = bool(table["note"].astype(bool).any())
    rows = [BUDGET_HEADER + (["note"] if noted else [])]
    for row in table.to_dict("records"):
        unit = str(row["unit"])
        rows.append(
            [
                str(row["budget"]),
                str(row["period"]),
                budget_amount(row["used"], unit),
                budget_amount(row["limit"], unit),
                unit,
                percent_text(row["used %"], signed=False),
                budget_amount(row["projected"], unit),
                percent_text(row["projected %"], signed=False),
                str(row["reached"]),
                str(row["status"]),
                *([str(row["note"])] if noted else []),
            ]
        )
    return rows


@app.command("check-anomalies")
def check_anomalies(
    days: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Check the last N closed UTC days (yesterday back); by default the "
            "dashboard's default range (Last 30 days), as the Anomalies page does.",
        ),
    ] = None,
    notify: NotifyOption = False,
    alerts: AlertsOption = None,
    dry_run: DryRunOption = False,
    show_all: Annotated[bool, typer.Option("--all", help="Also print marked anomalies.")] = False,
    fmt: Annotated[
        Literal["table", "json"],
        typer.Option(
            "--format",
            help="table (each anomaly in words) or json (with each one's id, for mark-anomaly "
            "and scripts).",
        ),
    ] = "table",
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Print one line per anomaly nobody has marked yet (severity, the anomaly in words, what
    happened); exit 0 when there is none, 12 when there is (13: an alert was not delivered)."""
    with check_run(notify, alerts, dry_run, demo, debug) as check:
        marks = _marks(check.connection, demo)
        marked = marks.read() if marks else {}
        today = calendar.utc_today()
        start, end = calendar.resolve(calendar.DEFAULT_PRESET, today)
        if days is not None:
            start = end - timedelta(days=days - 1)
        found = anomalies_in(fetching.Fetches(check.connection, demo), start, end)
        new = new_anomalies(found, marked)
        shown = found if show_all else new
        if fmt == "json":
            check.data_out = True
            typer.echo(json_text([_anomaly_record(a, status(a.id, marked)) for a in shown]))
        elif shown:
            rows = [
                [
                    a.severity,
                    *([status(a.id, marked)] if show_all else []),
                    anomaly_name(a),
                    a.sentence,
                ]
                for a in shown
            ]
            for line in command_output.aligned(rows):
                typer.echo(line)
        check.code = NEW_ANOMALIES.code if new else 0
        check.events = anomaly_events(new)


def _anomaly_record(anomaly: Anomaly, given: AnomalyStatus) -> dict[str, object]:
    """One anomaly for a script: its id (what mark-anomaly and the page's link take), its name
    in words, its status and its figures, the kind and metric by the names ids use."""
    return {
        "id": anomaly.id,
        "name": anomaly_name(anomaly),
        "severity": anomaly.severity,
        "status": given,
        "kind": anomaly.kind,
        "api_key": anomaly.api_key,
        "api_key_label": anomaly.label,
        "metric": anomaly.metric,
        "first": anomaly.first,
        "last": anomaly.last,
        "observed": anomaly.observed,
        "expected": anomaly.expected,
        "bound": anomaly.bound,
        "sentence": anomaly.sentence,
    }


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
    with failures.reported(debug):
        if mark not in (*MARKS, "new"):
            raise UsageProblem(f"mark must be expected, acknowledged or new, not {mark!r}")
        try:
            anomaly_id = check_id(anomaly)
        except ValueError as exc:
            raise UsageProblem(str(exc)) from None
        marks = _marks(connecting.service_connection(), demo)
        if marks is None:
            raise UsageProblem(
                "marks are kept in the state store: set SERVICE_HISTORY_PATH (embedded) or "
                "SERVICE_STATE_URL"
            )
        chosen: Mark | None = next((m for m in MARKS if m == mark), None)
        marks.set(anomaly_id, chosen)
        # Said once, so a script's log and a person both see what changed and where.
        done = f"marked {mark}" if chosen else "mark cleared (new again)"
        typer.echo(f"{anomaly_id}: {done} in {marks.records.store.where}")


def _marks(connection: ServiceConnection, demo: bool) -> Marks | None:
    """The marks of the configured account, or of the demo organization; None without a
    state store (nothing is marked)."""
    connecting.configured(connection, demo)
    return Marks.for_connection(connection, demo)


@app.command("check-rotations")
def check_rotations(
    after: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Remind of a rotation whose old key is still used this many days on; "
            "overrides the alert routes' rotations.remind_after_days (14 by default).",
        ),
    ] = None,
    max_age: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Remind of each active key older than this many days; overrides the alert "
            "routes' rotations.max_age_days (off by default).",
        ),
    ] = None,
    notify: NotifyOption = False,
    alerts: AlertsOption = None,
    dry_run: DryRunOption = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Print one line per reminder: a key rotation whose old key is still used AFTER days
    after it began, and each active key older than the maximum age (when one is set); the
    days are the alert routes' rotations settings unless given here. Exit 0 (13: an alert
    was not delivered)."""
    with check_run(notify, alerts, dry_run, demo, debug) as check:
        set_days = settings_in_force.command_settings(demo, alerts=alerts).rotations
        after = set_days.remind_after_days if after is None else after
        max_age = set_days.max_age_days if max_age is None else max_age
        records = records_of(check.connection, demo)
        reader = fetching.Fetches(check.connection, demo)
        today = calendar.utc_today()
        kept = RotationLog(records).read() if records is not None else []
        watches = [watched(reader, r, today) for r in kept if r.state == "watching"]
        events = rotation_events(watches, after)
        if max_age is not None:
            events += key_age_events(reader.developer_keys(), today, max_age)
        for event in events:
            typer.echo(f"{event.level}: {event.subject}")
        check.events = events
