"""`keys rotate` and `keys rotation list|finish`: a key replaced beside itself, both watched
by day, and the old one deactivated once quiet (see `analytics.keys.rotation`). The new secret
is the only line on stdout; everything else goes to stderr."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Annotated

import typer

from analytics.cli import fetching, program, settings_in_force
from analytics.cli.failures import UsageProblem, fail
from analytics.cli.json_output import json_text
from analytics.cli.keys import (
    KeyArgument,
    KeySession,
    LabelTypedOption,
    at_terminal,
    key_session,
    keys_app,
    label_checked,
    label_typed,
    said,
    write_table,
)
from analytics.cli.options import DebugOption, DemoOption, TableOrJsonOption
from analytics.exit_codes import SERVICE, STILL_IN_USE
from analytics.guardrails import memory as guardrail_state
from analytics.keys import (
    ReplacementFailed,
    RotationLog,
    RotationRefused,
    StillInUse,
    default_label,
    finish,
    key_name,
    leaked,
    rotate,
    rotation_table,
    watched,
)
from analytics.settings import carry_over
from analytics.usage import calendar, records_of

rotation_app = program.command_group(
    keys_app,
    "rotation",
    "Key rotations: each one's old and new key side by side, and finishing one.",
)


def _rotations(session: KeySession) -> RotationLog:
    records = records_of(session.connection, session.demo)
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
        fail(SERVICE.code, str(exc))


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
    with key_session(demo, debug) as session, label_checked(), _rotation_checked():
        log = _rotations(session)
        found = session.named(key)
        named = found.key
        today = calendar.utc_today()
        given = label or default_label(named.label, today)
        if not yes:
            if not at_terminal():
                raise UsageProblem("a rotation makes a key: give --yes to confirm in a script")
            asked = "Deactivate it now, for good, and replace it" if leak else "Replace it"
            given = typer.prompt(
                f"{asked}: {key_name(named.label, named.key_id)}. The replacement's label",
                default=given,
                err=True,
            )
        inherit = partial(guardrail_state.inherit, log.records)
        if leak:
            made = leaked(session.actor, log, found.rows, found.row, given, inherit)
            said(f"deactivated {key_name(named.label, named.key_id)}")
        else:
            made = rotate(session.actor, log, found.rows, found.row, given, today, inherit)
        new = made.rotation
        said(
            f"rotation {new.id}: made {key_name(new.new_label, new.new_key_id or '')} with the old "
            "key's limits; its secret is shown this once"
        )
        teams = carry_over(settings_in_force.place(demo), new, session.actor.who)
        if teams is not None:
            said(teams)
        typer.echo(made.secret)


@rotation_app.command("list")
def list_rotations(
    fmt: TableOrJsonOption = "table",
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Every rotation: its state, both keys, the old key's last day of use and its quiet
    days, with both keys' daily characters and speech-to-text minutes since it began (json),
    through analytics' latest closed day."""
    with key_session(demo, debug) as session:
        reader = fetching.Fetches(session.connection, session.demo)
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
        write_table(rotation_table(seen), "table")
        for w in seen:
            if w.rotation.state == "watching":
                said(f"rotation {w.rotation.id}: {w.remaining}")


@rotation_app.command("finish")
def finish_rotation(
    rotation: Annotated[int, typer.Argument(help="The rotation's number (keys rotation list).")],
    force: Annotated[
        bool,
        typer.Option("--force", help="Deactivate even though the old key is still in use."),
    ] = False,
    yes: LabelTypedOption = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Deactivate the rotation's old key, at once and for good, once it has been quiet for
    the whole days the settings ask (the alert routes' rotations.quiet_days, 3 by default;
    exit 10 before that, unless --force). On a terminal, type its label."""
    with key_session(demo, debug) as session, _rotation_checked():
        log = _rotations(session)
        try:
            kept = log.find(rotation)
        except KeyError as exc:
            raise UsageProblem(str(exc.args[0])) from None
        keys = {k.key_id: k for k in session.actor.client.developer_keys()}
        old = keys.get(kept.old_key_id)
        if old is None:
            raise UsageProblem(
                f"{key_name(kept.old_label, kept.old_key_id)} is no longer listed; nothing was "
                "changed"
            )
        seen = watched(
            fetching.Fetches(session.connection, session.demo), kept, calendar.utc_today()
        )
        if not yes and kept.state == "watching":
            label_typed(old, f"{seen.remaining} ")
        try:
            quiet = settings_in_force.command_settings(session.demo).rotations.quiet_days
            done = finish(session.actor, log, seen, old, quiet, force=force)
        except StillInUse as exc:
            fail(STILL_IN_USE.code, f"{exc}; nothing was changed")
            return
        forced = " (forced)" if done.forced else ""
        said(f"rotation {done.id} finished{forced}: deactivated {key_name(old.label, old.key_id)}")
