"""`guardrails`: hold the budgets marked `enforce = true` with the keys' own limits. `plan`
prints what would change and ends with a line saying what its status means (exit 10 when
something would change, `exit_codes.PLAN_ENDINGS`), `apply` sends it (the hourly timer's
command), `restore` gives the keys the limits they had before. Needs an admin key.

The budgets, pricing and teams files are found as `check-budgets` finds them. Every change is
written to the key audit log as made by `guardrail: <budget>`; the run (when, who, outcome)
is kept in the guardrail state, in the state store.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import pandas as pd
import typer

from analytics.capacity import BudgetSettings
from analytics.cli import command_output, connecting, failures, fetching, program, settings_in_force
from analytics.cli.checks import BudgetsOption
from analytics.cli.failures import UsageProblem
from analytics.cli.json_output import json_text
from analytics.cli.keys import at_terminal, who
from analytics.cli.options import (
    DebugOption,
    DemoOption,
    PricingOption,
    TableOrJsonOption,
    TeamsOption,
)
from analytics.cli.program import app
from analytics.exit_codes import plan_ending
from analytics.exports import Costing
from analytics.guardrails import (
    Memory,
    NoUsagePeriod,
    Plan,
    apply,
    beside_plan,
    key_table,
    largest_cuts_first,
    plan_now,
    plan_record,
    share_table,
    shown,
    stopping,
    warnings,
)
from analytics.guardrails import memory as guardrail_state
from analytics.keys import AuditLog, changes
from analytics.service import ServiceConnection
from analytics.usage import Records, calendar, count_text, counted, records_of

guardrails_app = program.command_group(
    app,
    "guardrails",
    "Hold the budgets marked enforce = true with the keys' own limits: plan, apply, "
    "restore (an admin key is needed).",
)

YesOption = Annotated[
    bool, typer.Option("--yes", help="Do not ask before sending (for timers and scripts).")
]


@dataclass(frozen=True)
class _Files:
    """What every guardrails command is told besides its own options: the organization's
    files, demo mode and debugging."""

    budgets: Path | None
    pricing: Path | None
    teams: Path | None
    demo: bool
    debug: bool


_FILE_OPTIONS = tuple(
    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=option)
    for name, option, default in (
        ("budgets", BudgetsOption, None),
        ("pricing", PricingOption, None),
        ("teams", TeamsOption, None),
        ("demo", DemoOption, False),
        ("debug", DebugOption, False),
    )
)


def _with_files(command: Callable[..., None]) -> Callable[..., None]:
    """`command`, which takes `files: _Files`, as Typer sees it: its own options, then the ones
    every guardrails command shares (`_FILE_OPTIONS`, declared once), in that order in its
    `--help`; given, they reach it together as `files`."""
    own = inspect.signature(command, eval_str=True)

    @functools.wraps(command)
    def with_files(**given: Any) -> None:
        files = _Files(**{option.name: given.pop(option.name) for option in _FILE_OPTIONS})
        command(**given, files=files)

    kept = [parameter for parameter in own.parameters.values() if parameter.name != "files"]
    # Typer reads a command's options from its signature, which `__signature__` gives.
    with_files.__signature__ = own.replace(  # type: ignore[attr-defined]
        parameters=[*kept, *_FILE_OPTIONS]
    )
    return with_files


@dataclass(frozen=True)
class _Session:
    """A guardrails command's settings, files and the state it remembers limits in."""

    connection: ServiceConnection
    demo: bool
    budgets: BudgetSettings
    costing: Costing
    records: Records

    def planner(
        self, leave_out: frozenset[str] = frozenset()
    ) -> Callable[[Mapping[str, Memory]], Plan]:
        """The plan from what the service and the files say now, for the remembered state."""

        def planned(memory: Mapping[str, Memory]) -> Plan:
            reader = fetching.Fetches(self.connection, self.demo)
            costing = (self.costing.teams, self.costing.pricing)
            try:
                return plan_now(
                    reader, self.budgets, costing, calendar.utc_today(), memory, leave_out
                )
            except NoUsagePeriod as exc:
                raise UsageProblem(str(exc)) from None

        return planned

    def plan(self, leave_out: frozenset[str] = frozenset()) -> Plan:
        return self.planner(leave_out)(guardrail_state.read(self.records).keys)

    def run(
        self, action: Literal["apply", "restore"], leave_out: frozenset[str], only: str | None
    ) -> apply.Run:
        with connecting.client(self.connection, self.demo) as client:
            audit = AuditLog.for_connection(self.connection, self.demo)
            actor = changes.Actor(client, who(), audit, changes.every_key)
            return apply.run(self.records, self.planner(leave_out), actor, action, only)


@contextmanager
def _session(files: _Files) -> Iterator[_Session]:
    demo = files.demo
    with failures.reported(files.debug):
        connection = connecting.service_connection()
        connecting.configured(connection, demo)
        settings = settings_in_force.command_settings(
            demo, files.pricing, files.teams, files.budgets
        )
        found = settings_in_force.budget_settings(settings)
        if found is None:
            raise UsageProblem("no budgets file: give --budgets FILE (or put budgets.toml here)")
        records = records_of(connection, demo)
        if records is None:
            raise UsageProblem(
                "the guardrails remember the keys' own limits in the state store: set "
                "SERVICE_HISTORY_PATH (embedded) or SERVICE_STATE_URL"
            )
        costing = settings_in_force.costing(settings)
        yield _Session(connection, demo, found, costing, records)


def _table(table: pd.DataFrame) -> None:
    shown = table.astype(object).where(table.notna(), "-")
    for column in table.select_dtypes("number"):
        shown[column] = [v if v == "-" else count_text(v) for v in shown[column]]
    for line in command_output.aligned(
        [list(table.columns), *shown.astype(str).to_numpy().tolist()]
    ):
        typer.echo(line)


def _show(plan: Plan) -> None:
    """The plan as a person reads it: the refused budgets, the budgets beside the plan's own
    limits, the keys, the changes (the largest reductions first) and those to look at."""
    for line in plan.refusals:
        typer.echo(line)
    for line in stopping(plan):
        typer.echo(line)
    typer.echo(f"Usage period {plan.period.text}")
    if plan.shares:
        for line in beside_plan(plan):
            typer.echo(line)
        _table(share_table(plan))
        typer.echo("")
        _table(shown(key_table(plan).drop(columns=["why"])))
    for k in plan.keys:
        for note in k.notes:
            typer.echo(f"{k.name}: {note}")
    changes = plan.changes
    typer.echo(
        f"{counted(len(changes), 'limit change')} to send" if changes else "nothing to change"
    )
    for k in largest_cuts_first(changes):
        typer.echo(f"  {k.name}: {k.change_text}")
    for line in warnings(changes):
        typer.echo(f"Look before sending: {line}")


def _confirmed(count: int, yes: bool, what: str) -> bool:
    """Whether to send: --yes, or a person at a terminal who says so after seeing what."""
    if yes or not count:
        return True
    if not at_terminal():
        raise UsageProblem(f"{what} changes the keys' limits: give --yes to confirm in a script")
    return typer.confirm(f"Send {counted(count, 'limit change')}?", err=True)


def _sent(run: apply.Run) -> None:
    for k in run.chosen:
        if k.changes:
            typer.echo(f"{k.name}: {k.change_text}", err=True)
    typer.echo(f"{counted(run.sent, 'call')} sent", err=True)


@guardrails_app.command("plan")
@_with_files
def plan_command(files: _Files, fmt: TableOrJsonOption = "table") -> None:
    """Print each enforced budget's allowance beside the plan's own limit, each key's planned
    limit, with why, the changes (the largest reductions first), and the budgets refused for
    enforcement; the table ends with what the status means: exit 0 nothing to change, 10
    changes pending."""
    with _session(files) as session:
        planned = session.plan()
        code, ending = plan_ending(len(planned.changes))
        if fmt == "json":
            typer.echo(json_text(plan_record(planned)))
        else:
            _show(planned)
            typer.echo(ending)
    raise typer.Exit(code.code)


@guardrails_app.command("apply")
@_with_files
def apply_command(files: _Files, yes: YesOption = False) -> None:
    """Send the plan's limit changes, lowering before raising; one run at a time. Keys no
    enforced budget covers any more get their hand-set limits back."""
    with _session(files) as session:
        planned = session.plan()
        _show(planned)
        if _confirmed(len(planned.changes), yes, "apply"):
            _sent(session.run("apply", frozenset(), None))


@guardrails_app.command("restore")
@_with_files
def restore_command(
    files: _Files,
    budget: Annotated[
        str | None,
        typer.Option("--budget", help="Only the keys this budget (its name or title) set."),
    ] = None,
    yes: YesOption = False,
) -> None:
    """Give each guarded key the limits it had before the guardrails (its hand-set ones, or
    none). An enforced budget is applied again by the next `apply`: set enforce = false to
    end it."""
    with _session(files) as session:
        titles = frozenset(b.title for b in session.budgets.enforced)
        if budget is not None:
            remembered = {m.by for m in guardrail_state.read(session.records).keys.values()}
            if budget not in remembered | titles:
                raise UsageProblem(f"no enforced budget is named {budget!r}; nothing was changed")
        leave_out = titles if budget is None else frozenset({budget})
        planned = session.plan(leave_out)
        memory = guardrail_state.read(session.records).keys
        chosen = [k for k in apply.chosen_keys(planned, memory, budget) if k.changes]
        for k in chosen:
            typer.echo(f"{k.name}: {k.change_text}")
        if not chosen:
            typer.echo("nothing to restore")
        if _confirmed(len(chosen), yes, "restore"):
            _sent(session.run("restore", leave_out, budget))
