"""`state check` and `state import`: where the state store is and what it holds, and the
records of a history folder brought into it — its files from before the store, and its
embedded store when a deployment moves to PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from analytics.alerts import delivery_state as deliveries
from analytics.anomalies import marks
from analytics.cli import connecting, failures, program
from analytics.cli.failures import UsageProblem
from analytics.cli.options import DebugOption
from analytics.cli.program import app
from analytics.exit_codes import USAGE
from analytics.guardrails import memory as guardrails
from analytics.keys import audit
from analytics.storage import EMBEDDED_FILE, Store, check_text, embedded_store
from analytics.usage import Records, counted, store_of

state_app = program.command_group(
    app,
    "state",
    "The state store: where it is and what it holds, and a history folder's records "
    "brought into it.",
)


@dataclass(frozen=True)
class Kind:
    """One kind of record: the name of its files from before the store (`<account>-<ending>`,
    or the ending alone for the folder's own), how a file and a store give its records, and
    how they are taken into a store by its writers' rule (the number taken)."""

    ending: str
    read_file: Callable[[bytes], Any]
    read_store: Callable[[Store, str], Any]
    take: Callable[[Store, str, Any], int]
    per_account: bool = True


KINDS: dict[str, Kind] = {
    "anomaly marks": Kind(
        marks.LEGACY_SUFFIX,
        marks.read_file,
        lambda store, account: marks.Marks(Records(store, account)).read_times(),
        lambda store, account, given: marks.take(marks.Marks(Records(store, account)), given),
    ),
    "key audit entries": Kind(
        audit.LEGACY_SUFFIX,
        audit.read_file,
        lambda store, account: audit.AuditLog(Records(store, account)).read(),
        lambda store, account, given: audit.take(audit.AuditLog(Records(store, account)), given),
    ),
    "guardrail states": Kind(
        guardrails.LEGACY_SUFFIX,
        guardrails.read_file,
        lambda store, account: guardrails.read(Records(store, account)),
        lambda store, account, given: guardrails.take(Records(store, account), given),
    ),
    "alert deliveries": Kind(
        deliveries.LEGACY_FILE,
        deliveries.read_file,
        lambda store, _account: deliveries.DeliveryState(store).records(),
        lambda store, _account, given: deliveries.take(deliveries.DeliveryState(store), given),
        per_account=False,
    ),
}


def _store() -> Store:
    store = store_of(connecting.service_connection(), demo=False)
    if store is None:
        raise UsageProblem(
            "no state store: set SERVICE_HISTORY_PATH (embedded) or SERVICE_STATE_URL"
        )
    return store


def _files(folder: Path, kind: Kind) -> list[tuple[Path, str]]:
    """The folder's files of one kind from before the store, and the account each belongs to
    (none for the folder's own)."""
    if not kind.per_account:
        path = folder / kind.ending
        return [(path, "")] if path.is_file() else []
    found = sorted(p for p in folder.glob(f"*-{kind.ending}") if p.is_file())
    return [(p, p.name.removesuffix(f"-{kind.ending}")) for p in found]


@state_app.command()
def check(debug: DebugOption = False) -> None:
    """Print where the state store is (never its password), its schema version and how many
    records of each kind it holds."""
    with failures.reported(debug):
        typer.echo(check_text(_store()))
        folder = connecting.service_connection().history_path
        left = folder and sum(len(_files(folder, kind)) for kind in KINDS.values())
        if left:
            typer.echo(f"Files from before the store in {folder}: {left} (see: state import)")


@state_app.command("import")
def import_records(
    folder: Annotated[
        Path | None,
        typer.Option("--from", help="The history folder to read (default: SERVICE_HISTORY_PATH)."),
    ] = None,
    debug: DebugOption = False,
) -> None:
    """Bring a history folder's records into the configured store: anomaly marks, alert
    deliveries, key audit logs and guardrail states, from the files kept before the store and
    from the folder's embedded store (moving to PostgreSQL). Run it again and nothing is
    doubled: what the store holds already is kept by the writers' own rules. The folder is
    left as it is."""
    problems = 0
    with failures.reported(debug):
        target = _store()
        source = folder or connecting.service_connection().history_path
        if source is None or not source.is_dir():
            raise UsageProblem(
                f"no history folder to read: {source or 'SERVICE_HISTORY_PATH is off'}"
            )
        embedded = (source / EMBEDDED_FILE).is_file() and target.path != source / EMBEDDED_FILE
        origin = embedded_store(source) if embedded else None
        for name, kind in KINDS.items():
            taken, files = 0, _files(source, kind)
            for path, account in files:
                try:
                    given = kind.read_file(path.read_bytes())
                except (ValueError, KeyError, TypeError) as exc:
                    problems += 1
                    typer.echo(f"{path}: not taken, it does not read as {name} ({exc})", err=True)
                    continue
                taken += kind.take(target, account, given)
            if origin is not None:
                accounts: Sequence[str] = origin.accounts() if kind.per_account else [""]
                for account in accounts:
                    taken += kind.take(target, account, kind.read_store(origin, account))
            from_store = f" and {origin.where}" if origin is not None else ""
            typer.echo(f"{name}: {taken:,} taken from {counted(len(files), 'file')}{from_store}")
        typer.echo(f"into {target.where}")
    if problems:
        raise typer.Exit(USAGE.code)
