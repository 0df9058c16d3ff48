"""`keys`: list the organization's developer keys against their limits, and create, rename,
limit, deactivate or rotate one; `keys audit` prints what was changed, `keys rotation` the
rotations under way and finishes them. Needs an admin key.

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
from functools import partial
from typing import Annotated, Literal

import pandas as pd
import typer

from analytics.cli import fetching, organization_files, shared
from analytics.cli.json_output import json_text, table_json
from analytics.cli.shared import (
    EXIT_SERVICE,
    EXIT_STILL_IN_USE,
    DebugOption,
    DemoOption,
    OneLineErrors,
    UsageProblem,
    app,
    fail,
)
from analytics.guardrails import state as guardrail_state
from analytics.keys import changes, listed
from analytics.keys.audit import AuditLog, audit_table
from analytics.keys.join import MASK_STARS, KeyNotFound, join, pick
from analytics.keys.limits import KeyRow, key_view_table, with_owners
from analytics.keys.preview import label_problem, limit_preview, milliseconds, rename_preview
from analytics.keys.rotation import (
    ReplacementFailed,
    RotationLog,
    RotationRefused,
    StillInUse,
    default_label,
    finish,
    leaked,
    rotate,
    rotation_table,
    watched,
)
from analytics.service.client import KEEP, Keep, Limit
from analytics.service.models import DeveloperKey
from analytics.service.settings import Settings
from analytics.settings.succession import carry_over
from analytics.usage import calendar
from analytics.usage.metrics import count_text
from analytics.usage.records import records_of

keys_app = typer.Typer(
    cls=OneLineErrors,
    help="List the organization's developer keys and change them (an admin key is needed).",
    no_args_is_help=True,
)
app.add_typer(keys_app, name="keys")

Format = Literal["table", "json", "csv"]
FormatOption = Annotated[Format, typer.Option("--format", help="table, json or csv.")]
KeyArgument = Annotated[str, typer.Argument(help="A key id, a masked key or a unique label.")]
NONE = "none"


def who() -> str:
    """Who changes keys from a command line: the account and the machine it runs on."""
    return f"{getpass.getuser()}@{socket.gethostname()} (command line)"


@dataclass(frozen=True)
class _Session:
    """A keys command's settings and the actor its changes are made and audited as."""

    settings: Settings
    demo: bool
    actor: changes.Actor

    @property
    def recorded(self) -> dict[str, str]:
        audit = self.actor.audit
        return audit.recorded_masks() if audit else {}

    def rows(self, keys: Sequence[DeveloperKey]) -> list[KeyRow]:
        """Every key's row of the key view (``listed.key_view``), over a key list this
        command has already fetched."""
        return listed.key_view(_Listed(self.settings, self.demo, keys), calendar.utc_today())

    def named(self, name: str) -> tuple[DeveloperKey, str | None, list[DeveloperKey]]:
        """The listed key `name` names, the analytics mask it is joined to (None: not known)
        and every listed key; a masked key is looked up among the analytics masks too, which
        needs the usage the key view reads."""
        keys = self.actor.client.developer_keys()
        joined = (
            [row.joined for row in self.rows(keys)]
            if MASK_STARS in name
            else join(keys, {}, self.recorded)
        )
        try:
            found = pick(joined, name)
        except KeyNotFound as exc:
            raise UsageProblem(str(exc)) from None
        assert found.key is not None
        return found.key, found.api_key or self.recorded.get(found.key.key_id), keys


@dataclass(frozen=True)
class _Listed(fetching.Fetches):
    """The command line's reader for a command that has listed the keys already: that list,
    and everything else fetched as every command fetches it."""

    keys: Sequence[DeveloperKey] = ()

    def developer_keys(self) -> list[DeveloperKey]:
        return list(self.keys)


@contextmanager
def _session(demo: bool, debug: bool) -> Iterator[_Session]:
    with shared.reported(debug):
        settings = shared.settings()
        with shared.client(settings, demo) as client:
            actor = changes.Actor(client, who(), AuditLog.for_settings(settings, demo))
            yield _Session(settings, demo, actor)


def at_terminal() -> bool:
    """Whether a person can answer a question (a script's stdin is no terminal)."""
    return sys.stdin.isatty()


def _said(message: str) -> None:
    typer.echo(message, err=True)


def _write(table: pd.DataFrame, fmt: Format) -> None:
    if fmt == "csv":
        table.to_csv(sys.stdout, index=False, lineterminator="\n")
    elif fmt == "json":
        typer.echo(table_json(table))
    else:
        shown = table.astype(object).where(table.notna(), "-")
        for column in table.select_dtypes("number"):
            shown[column] = [v if v == "-" else count_text(v) for v in shown[column]]
        rows = [list(table.columns), *shown.astype(str).to_numpy().tolist()]
        for line in shared.aligned(rows):
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
    with _session(demo, debug) as session:
        teams = organization_files.costing(None, None, demo).teams
        table = key_view_table(session.rows(session.actor.client.developer_keys()))
        table = with_owners(table, teams)
        if not show_all:
            table = table[~table["state"].isin(["deactivated", "not in the key list"])]
        _write(table.reset_index(drop=True), fmt)


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
def _label_checked() -> Iterator[None]:
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
    with _session(demo, debug) as session, _label_checked():
        listed = session.actor.client.developer_keys()
        made = changes.create(session.actor, label, listed, allow_duplicate).key
        _said(f"created {made.label!r} ({made.key_id}); its secret is shown this once")
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
    with _session(demo, debug) as session, _label_checked():
        if problem := label_problem((), label):  # before any request
            raise UsageProblem(f"{problem}; nothing was changed")
        named, api_key, listed = session.named(key)
        planned = rename_preview(named, label)
        changes.rename(session.actor, planned, listed, allow_duplicate, api_key)
        _said(f"{planned.text} ({named.key_id})")


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
    with _session(demo, debug) as session:
        given = _limit(characters, "--characters"), _limit(speech_minutes, "--speech-minutes")
        if all(value is KEEP for value in given):
            raise UsageProblem("give --characters or --speech-minutes (a number or none)")
        named, api_key, _ = session.named(key)
        characters_given, minutes_given = given
        speech = minutes_given if isinstance(minutes_given, Keep) else milliseconds(minutes_given)
        planned = limit_preview(named, characters_given, speech)
        changes.limit(session.actor, planned, api_key)
        _said(f"{planned.text} ({named.key_id})")


@keys_app.command()
def deactivate(
    key: KeyArgument,
    yes: Annotated[
        bool, typer.Option("--yes", help="Do not ask for the label (for scripts).")
    ] = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Deactivate a key at once and for good: every request with it is refused from then on.
    On a terminal, type the key's label to confirm."""
    with _session(demo, debug) as session:
        named, api_key, _ = session.named(key)
        if named.is_deactivated:
            _said(f"{named.label} ({named.key_id}) is already deactivated")
            return
        if not yes:
            if not at_terminal():
                raise UsageProblem("deactivation is permanent: give --yes to confirm in a script")
            typed = typer.prompt(
                f"Deactivating {named.label} ({named.key_id}) cannot be undone. "
                "Type its label to confirm",
                err=True,
            )
            if typed.strip() != named.label.strip():
                raise UsageProblem("the label did not match; nothing was changed")
        gone = changes.deactivate(session.actor, named, api_key).key
        _said(f"deactivated {gone.label} ({gone.key_id}): every request with it is refused")


@keys_app.command()
def audit(
    fmt: FormatOption = "table",
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Every attempted key change, oldest first: when (UTC), who, what, before, after, the
    outcome and the service's trace id."""
    with shared.reported(debug):
        log = AuditLog.for_settings(shared.settings(), demo)
        if log is None:
            raise UsageProblem("no audit log: SERVICE_HISTORY_PATH is off or no service is set")
        entries = log.read()
        if fmt == "json":
            typer.echo(json_text(entries))
            return
        _write(audit_table(entries), fmt)


rotation_app = typer.Typer(
    cls=OneLineErrors,
    help="Key rotations: each one's old and new key side by side, and finishing one.",
    no_args_is_help=True,
)
keys_app.add_typer(rotation_app, name="rotation")


def _rotations(session: _Session) -> RotationLog:
    records = records_of(session.settings, session.demo)
    if records is None:
        raise UsageProblem(
            "rotations need a state store: set SERVICE_HISTORY_PATH or SERVICE_STATE_URL"
        )
    return RotationLog(records)


@contextmanager
def _rotation_checked() -> Iterator[None]:
    """A rotation refused before anything was sent is exit 2; a leaked key's replacement
    that failed after its deactivation is the service's failure, said as it stands."""
    try:
        yield
    except RotationRefused as exc:
        raise UsageProblem(f"{exc}; nothing was changed") from None
    except ReplacementFailed as exc:
        fail(EXIT_SERVICE, str(exc))


@keys_app.command("rotate")
def rotate_key(
    key: KeyArgument,
    label: Annotated[
        str | None,
        typer.Option(
            "--label", help="The replacement's label (default: the old one and the month)."
        ),
    ] = None,
    leak: Annotated[
        bool,
        typer.Option(
            "--leaked",
            help="The key leaked: deactivate it now (for good), then make its replacement.",
        ),
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", help="Do not ask to confirm (for scripts).")
    ] = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Make a key's replacement with its limits, beside it, and give it the old key's team,
    owner and purpose in the teams settings (a new version; with SETTINGS_SOURCE=files, the
    line to add by hand); its secret is printed once, alone on stdout, and kept nowhere. Move
    traffic to it, watch both with `keys rotation list`, then `keys rotation finish`. With
    --leaked the old key is deactivated first."""
    with _session(demo, debug) as session, _label_checked(), _rotation_checked():
        log = _rotations(session)
        named, _, keys = session.named(key)
        today = calendar.utc_today()
        given = label or default_label(named.label, today)
        if not yes:
            if not at_terminal():
                raise UsageProblem("a rotation makes a key: give --yes to confirm in a script")
            asked = "Deactivate it now, for good, and replace it" if leak else "Replace it"
            given = typer.prompt(
                f"{asked}: {named.label} ({named.key_id}). The replacement's label",
                default=given,
                err=True,
            )
        rows = session.rows(keys)
        [row] = [r for r in rows if r.key is not None and r.key.key_id == named.key_id]
        inherit = partial(guardrail_state.inherit, log.records)
        if leak:
            made = leaked(session.actor, log, rows, row, given, inherit)
            _said(f"deactivated {named.label} ({named.key_id})")
        else:
            made = rotate(session.actor, log, rows, row, given, today, inherit)
        new = made.rotation
        _said(
            f"rotation {new.id}: made {new.new_label!r} ({new.new_key_id}) with the old key's "
            "limits; its secret is shown this once"
        )
        teams = carry_over(organization_files.place(demo), new, session.actor.who)
        if teams is not None:
            _said(teams)
        typer.echo(made.secret)


@rotation_app.command("list")
def list_rotations(
    fmt: Annotated[
        Literal["table", "json"], typer.Option("--format", help="table or json.")
    ] = "table",
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Every rotation: its state, both keys, the old key's last day of use and its quiet
    days, with both keys' daily characters and speech-to-text minutes since it began (json),
    through analytics' latest closed day."""
    with _session(demo, debug) as session:
        reader = fetching.Fetches(session.settings, session.demo)
        today = calendar.utc_today()
        seen = [watched(reader, r, today) for r in _rotations(session).read()]
        if fmt == "json":
            typer.echo(
                json_text(
                    [
                        {
                            "rotation": w.rotation,
                            "through": w.through,
                            "last_used": w.last_used,
                            "quiet_days": w.quiet_days,
                            "remaining": w.remaining,
                            "days": w.days.to_dict("records"),
                        }
                        for w in seen
                    ]
                )
            )
            return
        _write(rotation_table(seen), "table")
        for w in seen:
            if w.rotation.state == "watching":
                _said(f"rotation {w.rotation.id}: {w.remaining}")


@rotation_app.command("finish")
def finish_rotation(
    rotation: Annotated[int, typer.Argument(help="The rotation's number (keys rotation list).")],
    force: Annotated[
        bool,
        typer.Option("--force", help="Deactivate even though the old key is still in use."),
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", help="Do not ask for the label (for scripts).")
    ] = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Deactivate the rotation's old key, at once and for good, once it has been quiet for
    the whole days the settings ask (the alert routes' [rotations] quiet_days, 3 by default;
    exit 10 before that, unless --force). On a terminal, type its label."""
    with _session(demo, debug) as session, _rotation_checked():
        log = _rotations(session)
        try:
            kept = log.find(rotation)
        except KeyError as exc:
            raise UsageProblem(str(exc.args[0])) from None
        keys = {k.key_id: k for k in session.actor.client.developer_keys()}
        old = keys.get(kept.old_key_id)
        if old is None:
            raise UsageProblem(f"key {kept.old_key_id} is no longer listed; nothing was changed")
        seen = watched(fetching.Fetches(session.settings, session.demo), kept, calendar.utc_today())
        if not yes and kept.state == "watching":
            if not at_terminal():
                raise UsageProblem("deactivation is permanent: give --yes to confirm in a script")
            typed = typer.prompt(
                f"{seen.remaining} Deactivating {old.label} ({old.key_id}) cannot be undone. "
                "Type its label to confirm",
                err=True,
            )
            if typed.strip() != old.label.strip():
                raise UsageProblem("the label did not match; nothing was changed")
        try:
            quiet = organization_files.rotations(None, session.demo).quiet_days
            done = finish(session.actor, log, seen, old, quiet, force=force)
        except StillInUse as exc:
            fail(EXIT_STILL_IN_USE, f"{exc}; nothing was changed")
            return
        forced = " (forced)" if done.forced else ""
        _said(f"rotation {done.id} finished{forced}: deactivated {old.label} ({old.key_id})")
