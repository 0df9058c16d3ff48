"""`keys`: list the organization's developer keys against their limits, and create, rename,
limit or deactivate one; `keys audit` prints what was changed (rotations: `cli.rotations`).
Needs an admin key.

KEY is a key id, a masked key or a unique label; a KEY that names no key or several exits 2
and lists the candidates. Every change attempt, whatever its outcome, is written to the audit
log in the state store. The secret of `keys create` is the only line on stdout, so
`$(…)` captures it; everything else goes to stderr.
"""

from __future__ import annotations

import getpass
import socket
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Literal

import pandas as pd
import typer

from analytics.cli import command_output, connecting, failures, fetching, program, settings_in_force
from analytics.cli.failures import UsageProblem
from analytics.cli.json_output import json_text, table_json
from analytics.cli.options import DebugOption, DemoOption
from analytics.cli.program import app
from analytics.keys import (
    AuditLog,
    KeyNotFound,
    KeyRow,
    audit_table,
    changes,
    key_name,
    key_view_table,
    label_problem,
    limit_preview,
    listed,
    milliseconds,
    named_keys,
    pick,
    rename_preview,
    shown_limits,
    with_owners,
)
from analytics.service import KEEP, DeveloperKey, Keep, Limit, ServiceConnection
from analytics.usage import calendar, count_text

keys_app = program.command_group(
    app,
    "keys",
    "List the organization's developer keys and change them (an admin key is needed).",
)

Format = Literal["table", "json", "csv"]
FormatOption = Annotated[Format, typer.Option("--format", help="table, json or csv.")]
KeyArgument = Annotated[str, typer.Argument(help="A key id, a masked key or a unique label.")]
NONE = "none"
LabelTypedOption = Annotated[
    bool, typer.Option("--yes", help="Do not ask for the label (for scripts).")
]


def who() -> str:
    """Who changes keys from a command line: the account and the machine it runs on."""
    return f"{getpass.getuser()}@{socket.gethostname()} (command line)"


@dataclass(frozen=True)
class KeySession:
    """A keys command's settings and the actor its changes are made and audited as."""

    connection: ServiceConnection
    demo: bool
    actor: changes.Actor

    @property
    def recorded(self) -> dict[str, str]:
        audit = self.actor.audit
        return audit.recorded_masks() if audit else {}

    def rows(self, keys: Sequence[DeveloperKey]) -> list[KeyRow]:
        """Every key's row of the key view (``listed.key_view``), over a key list this
        command has already fetched."""
        return listed.key_view(_Listed(self.connection, self.demo, keys), calendar.utc_today())

    def named(self, name: str) -> NamedKey:
        """The listed key `name` names (a key id, a masked key or a unique label), picked from
        the key view's rows. Its mask is the key view's, as a page's change records it,
        whatever the key was named by: a key joined by its label and renamed without its mask
        recorded would lose its usage, which still carries the old label, to an unattributed
        row."""
        keys = self.actor.client.developer_keys()
        rows = self.rows(keys)
        try:
            found = pick([row.joined for row in rows], name)
        except KeyNotFound as exc:
            raise UsageProblem(str(exc)) from None
        [row] = [row for row in rows if row.joined is found]
        assert found.key is not None
        mask = found.api_key or self.recorded.get(found.key.key_id)
        return NamedKey(found.key, mask, keys, rows, row)


@dataclass(frozen=True)
class NamedKey:
    """A key a person named on the command line, and what it was picked from."""

    key: DeveloperKey
    api_key: str | None  # the analytics mask it is joined to; None: not known
    keys: list[DeveloperKey]  # every listed key
    rows: list[KeyRow]  # the key view's rows, the named key's among them
    row: KeyRow  # the named key's


@dataclass(frozen=True)
class _Listed(fetching.Fetches):
    """The command line's reader for a command that has listed the keys already: that list,
    and everything else fetched as every command fetches it."""

    keys: Sequence[DeveloperKey] = ()

    def developer_keys(self) -> list[DeveloperKey]:
        return list(self.keys)


@contextmanager
def key_session(demo: bool, debug: bool) -> Iterator[KeySession]:
    with failures.reported(debug):
        connection = connecting.service_connection()
        with connecting.client(connection, demo) as client:
            audit = AuditLog.for_connection(connection, demo)
            actor = changes.Actor(client, who(), audit, changes.every_key)
            yield KeySession(connection, demo, actor)


def at_terminal() -> bool:
    """Whether a person can answer a question (a script's stdin is no terminal)."""
    return sys.stdin.isatty()


def label_typed(key: DeveloperKey, said_first: str = "") -> None:
    """A deactivation confirmed at a terminal by typing the key's label (`said_first` leads
    the question); a script, or a label typed wrongly, changes nothing: exit 2."""
    if not at_terminal():
        raise UsageProblem("deactivation is permanent: give --yes to confirm in a script")
    typed = typer.prompt(
        f"{said_first}Deactivating {key_name(key.label, key.key_id)} cannot be undone. "
        "Type its label to confirm",
        err=True,
    )
    if typed.strip() != key.label.strip():
        raise UsageProblem("the label did not match; nothing was changed")


def said(message: str) -> None:
    typer.echo(message, err=True)


def write_table(table: pd.DataFrame, fmt: Format) -> None:
    """A table of keys in ``fmt``: for people (a table, CSV) each key named by its label and
    masked key id, the raw key ids only in JSON."""
    if fmt != "json" and "key_id" in table.columns:
        table = named_keys(table)
    if fmt == "csv":
        table.to_csv(sys.stdout, index=False, lineterminator="\n")
    elif fmt == "json":
        typer.echo(table_json(table))
    else:
        shown = table.astype(object).where(table.notna(), "-")
        for column in table.select_dtypes("number"):
            shown[column] = [v if v == "-" else count_text(v) for v in shown[column]]
        rows = [list(table.columns), *shown.astype(str).to_numpy().tolist()]
        for line in command_output.aligned(rows):
            typer.echo(line)


@keys_app.command("list")
def list_keys(
    fmt: FormatOption = "table",
    show_all: Annotated[
        bool, typer.Option("--all", help="Also list deactivated keys and unattributed usage.")
    ] = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Every developer key: its state, created, last day used, and this usage period's
    characters and speech minutes against its limits, with the day each is reached; then its
    owner and purpose, as the teams settings name the key's owner."""
    with key_session(demo, debug) as session:
        teams = settings_in_force.command_settings(demo).given_teams
        table = key_view_table(session.rows(session.actor.client.developer_keys()))
        table = with_owners(table, teams)
        if not show_all:
            table = table[~table["state"].isin(["deactivated", "not in the key list"])]
        if fmt == "table":  # in the page's words: a blank limit would read as unknown
            table = shown_limits(table)
        write_table(table.reset_index(drop=True), fmt)


def _limit(value: str | None, option: str) -> Limit:
    """A limit as given: a whole number, `none` to remove it, or absent to keep it."""
    if value is None:
        return KEEP
    if value.strip().lower() == NONE:
        return None
    try:
        number = int(value.replace(",", "").replace("_", ""))
    except ValueError:
        raise UsageProblem(f"{option} must be a whole number or none, not {value!r}") from None
    if number < 0:
        raise UsageProblem(f"{option} must be 0 or more, not {number}")
    return number


AllowDuplicate = Annotated[
    bool,
    typer.Option(
        "--allow-duplicate",
        help="Give the label even if another key carries it (usage is joined to keys by "
        "label: two keys sharing one cannot be told apart).",
    ),
]


@contextmanager
def label_checked() -> Iterator[None]:
    """A label the keys cannot take is the caller's argument to fix: exit 2, nothing sent."""
    try:
        yield
    except changes.LabelRefused as exc:
        raise UsageProblem(f"{exc}; nothing was changed") from None


@keys_app.command()
def create(
    label: Annotated[str, typer.Option("--label", help="The new key's label.")],
    allow_duplicate: AllowDuplicate = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Create a key; its secret is printed once, alone on stdout, and kept nowhere."""
    with key_session(demo, debug) as session, label_checked():
        listed = session.actor.client.developer_keys()
        made = changes.create(session.actor, label, listed, allow_duplicate).key
        said(f"created {key_name(made.label, made.key_id)}; its secret is shown this once")
        typer.echo(made.key)


@keys_app.command()
def rename(
    key: KeyArgument,
    label: Annotated[str, typer.Argument(help="The new label.")],
    allow_duplicate: AllowDuplicate = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Give a key a new label (deactivated keys too); prints the label before → after."""
    with key_session(demo, debug) as session, label_checked():
        if problem := label_problem((), label):  # before any request
            raise UsageProblem(f"{problem}; nothing was changed")
        found = session.named(key)
        named = found.key
        planned = rename_preview(named, label)
        changes.rename(session.actor, planned, found.keys, allow_duplicate, found.api_key)
        said(f"{planned.text} ({key_name(named.label, named.key_id)})")


@keys_app.command()
def limit(
    key: KeyArgument,
    characters: Annotated[
        str | None,
        typer.Option(help="Characters per usage period (a number, or none to remove the limit)."),
    ] = None,
    speech_minutes: Annotated[
        str | None,
        typer.Option(
            help="Speech-to-text minutes per usage period (a number, or none to remove it)."
        ),
    ] = None,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Set or remove a key's limits per usage period (0 allows nothing)."""
    with key_session(demo, debug) as session:
        given = _limit(characters, "--characters"), _limit(speech_minutes, "--speech-minutes")
        if all(value is KEEP for value in given):
            raise UsageProblem("give --characters or --speech-minutes (a number or none)")
        found = session.named(key)
        characters_given, minutes_given = given
        speech = minutes_given if isinstance(minutes_given, Keep) else milliseconds(minutes_given)
        planned = limit_preview(found.key, characters_given, speech)
        changes.limit(session.actor, planned, found.api_key)
        said(f"{planned.text} ({key_name(found.key.label, found.key.key_id)})")


@keys_app.command()
def deactivate(
    key: KeyArgument,
    yes: LabelTypedOption = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Deactivate a key at once and for good: every request with it is refused from then on.
    On a terminal, type the key's label to confirm."""
    with key_session(demo, debug) as session:
        found = session.named(key)
        named = found.key
        if named.is_deactivated:
            said(f"{key_name(named.label, named.key_id)} is already deactivated")
            return
        if not yes:
            label_typed(named)
        gone = changes.deactivate(session.actor, named, found.api_key).key
        said(f"deactivated {key_name(gone.label, gone.key_id)}: every request with it is refused")


@keys_app.command()
def audit(
    fmt: FormatOption = "table",
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Every attempted key change, oldest first: when (UTC), who, what, before, after, the
    outcome and the service's trace id."""
    with failures.reported(debug):
        log = AuditLog.for_connection(connecting.service_connection(), demo)
        if log is None:
            raise UsageProblem("no audit log: SERVICE_HISTORY_PATH is off or no service is set")
        entries = log.read()
        if fmt == "json":
            typer.echo(json_text(entries))
            return
        write_table(audit_table(entries), fmt)
