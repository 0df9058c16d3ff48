"""`state check` and `state import`: where the state store is and what it holds, and the
records of a history folder from before the store brought into it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from analytics.alerts import state as deliveries
from analytics.anomalies import marks
from analytics.cli import shared
from analytics.cli.shared import EXIT_USAGE, DebugOption, OneLineErrors, UsageProblem, app
from analytics.guardrails import state as guardrails
from analytics.keys import audit
from analytics.service.settings import Settings
from analytics.storage.store import Store, check_text
from analytics.usage.records import Records, store_of

state_app = typer.Typer(
    cls=OneLineErrors,
    help="The state store: where it is and what it holds, and a history folder's files "
    "brought into it.",
    no_args_is_help=True,
)
app.add_typer(state_app, name="state")

# What a history folder held before the store: each kind's file name ending, and how one
# account's file is taken into the store (the number of records taken).
Importer = Callable[[Store, str, bytes], int]
KINDS: dict[str, tuple[str, Importer]] = {
    "anomaly marks": (
        marks.LEGACY_SUFFIX,
        lambda store, account, content: marks.import_file(
            marks.Marks(Records(store, account)), content
        ),
    ),
    "key audit entries": (
        audit.LEGACY_SUFFIX,
        lambda store, account, content: audit.import_file(
            audit.AuditLog(Records(store, account)), content
        ),
    ),
    "guardrail states": (
        guardrails.LEGACY_SUFFIX,
        lambda store, account, content: guardrails.import_file(Records(store, account), content),
    ),
    "alert deliveries": (
        deliveries.LEGACY_FILE,
        lambda store, _account, content: deliveries.import_file(
            deliveries.DeliveryState(store), content
        ),
    ),
}


def _store(settings: Settings) -> Store:
    store = store_of(settings, demo=False)
    if store is None:
        raise UsageProblem(
            "no state store: set SERVICE_HISTORY_PATH (embedded) or SERVICE_STATE_URL"
        )
    return store


def _files(folder: Path, ending: str) -> list[tuple[Path, str]]:
    """The folder's files of one kind and the account each belongs to (none for deliveries,
    which are the folder's own)."""
    found = [folder / ending] if (folder / ending).is_file() else []
    found += sorted(p for p in folder.glob(f"*-{ending}") if p.is_file())
    return [(p, p.name.removesuffix(ending).removesuffix("-")) for p in found]


@state_app.command()
def check(debug: DebugOption = False) -> None:
    """Print where the state store is (never its password), its schema version and how many
    records of each kind it holds."""
    with shared.reported(debug):
        settings = shared.settings()
        typer.echo(check_text(_store(settings)))
        folder = settings.history_path
        left = folder and sum(len(_files(folder, ending)) for ending, _ in KINDS.values())
        if left:
            typer.echo(f"Files from before the store in {folder}: {left} (see: state import)")


@state_app.command("import")
def import_files(
    folder: Annotated[
        Path | None,
        typer.Option("--from", help="The history folder to read (default: SERVICE_HISTORY_PATH)."),
    ] = None,
    debug: DebugOption = False,
) -> None:
    """Bring a history folder's anomaly marks, alert deliveries, key audit logs and guardrail
    states (the files kept before the store) into the configured store. Run it again and
    nothing is doubled: what the store holds already is kept by the writers' own rules. The
    files are left as they are."""
    with shared.reported(debug):
        settings = shared.settings()
        store = _store(settings)
        source = folder or settings.history_path
        if source is None or not source.is_dir():
            raise UsageProblem(
                f"no history folder to read: {source or 'SERVICE_HISTORY_PATH is off'}"
            )
        problems = 0
        for kind, (ending, take) in KINDS.items():
            files = _files(source, ending)
            taken = 0
            for path, account in files:
                try:
                    taken += take(store, account, path.read_bytes())
                except (ValueError, KeyError, TypeError) as exc:
                    problems += 1
                    typer.echo(f"{path}: not taken, it does not read as {kind} ({exc})", err=True)
            typer.echo(f"{kind}: {taken:,} taken from {len(files)} file(s)")
        typer.echo(f"into {store.where}")
    if problems:
        raise typer.Exit(EXIT_USAGE)
