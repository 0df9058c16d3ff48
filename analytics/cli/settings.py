"""`settings export`, `import`, `history` and `restore`: the organization's settings (prices,
teams and key owners, budgets, alert routes) as files, for review and version control.

The store is the truth by default (``SETTINGS_SOURCE=store``) and the files are an import and
export format: `export` writes each document in force, byte for byte, so the same settings give
the same files and an import followed by an export gives back the files imported. `import`
checks each file by the one check of its document, shows every field it changes (before →
after), and saves them with `--yes`, each recorded as a change by the file's name, against the
version it read (someone who saved meanwhile is named, and nothing is overwritten). With
``SETTINGS_SOURCE=files`` the files are the truth, and nothing here writes settings.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from analytics.cli import command_output, connecting, failures, fetching, program, settings_in_force
from analytics.cli.failures import UsageProblem
from analytics.cli.keys import at_terminal, who
from analytics.cli.options import DebugOption, DemoOption
from analytics.cli.program import app
from analytics.settings import (
    NONE_YET,
    PARTS,
    Organization,
    Part,
    Place,
    SavedMeanwhile,
    SettingsProblem,
    check,
    differences,
    document,
    file_name,
    first_start,
    history,
    latest,
    organization,
    part_of,
    route_warning,
    save,
    used_range,
    version,
)
from analytics.storage import read_text, write_atomic
from analytics.usage import Records, calendar, counted, utc_now

settings_app = program.command_group(
    app,
    "settings",
    "The organization's settings (prices, teams and key owners, budgets, alert routes): "
    "exported as files, imported from files after a preview, their history, and an earlier "
    "version restored.",
)

YesOption = Annotated[
    bool, typer.Option("--yes", help="Save without asking (for scripts), after the preview.")
]
PartArgument = Annotated[
    str, typer.Argument(help=f"The settings document: {', '.join(PARTS)}.", show_default=False)
]


def _part(name: str) -> Part:
    for part in PARTS:
        if name == part:
            return part
    raise UsageProblem(f"no settings document {name!r}: one of {', '.join(PARTS)}")


def _writable(place: Place) -> Records:
    """The records settings are saved in; refused when the files are the truth or there is
    no store."""
    if place.source == "files":
        raise UsageProblem(
            "SETTINGS_SOURCE=files: the files are the settings and nothing writes them; edit "
            "the files, or unset SETTINGS_SOURCE to keep the settings in the state store"
        )
    if place.records is None:
        raise UsageProblem(
            "settings are kept in the state store: set SERVICE_HISTORY_PATH (embedded) or "
            "SERVICE_STATE_URL, and SERVICE_AUTH_KEY and SERVICE_BASE_URL (or --demo)"
        )
    return place.records


def _confirmed(changes: int, yes: bool) -> bool:
    """Whether to save: --yes, or a person at a terminal who says so after the preview."""
    if yes:
        return True
    if not at_terminal():
        raise UsageProblem("the settings change only with --yes: give it to save this preview")
    return typer.confirm(f"Save {counted(changes, 'change')}?", err=True)


def _saved(
    records: Records, part: Part, text: str, base: int, author: str, file: str | None
) -> None:
    try:
        saved = save(records, part, text, base, author, utc_now(), file)
    except SavedMeanwhile as exc:
        raise UsageProblem(str(exc)) from None
    typer.echo(f"{part}: saved as version {saved.number}")


def _organization(demo: bool, place: Place, given: dict[Part, str]) -> Organization:
    """What the imported files may name: the organization's keys and tags, and the teams of
    the teams file imported with them, else of the teams in force."""
    held = document("teams", place)
    teams = given.get("teams", held.text if held else None)
    given_settings = connecting.service_connection()
    first, last = used_range(calendar.utc_today())
    reader = fetching.Fetches(given_settings, demo)
    tags = fetching.fetched("tags", given_settings, demo, first, last, True).shown.frame
    return organization(reader.developer_keys(), reader.usage(first, last).frame, tags, teams)


@settings_app.command("export")
def export(
    to: Annotated[
        Path,
        typer.Option("--to", help="The folder the files are written to.", file_okay=False),
    ] = Path(),
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Write the settings in force as pricing.toml, teams.toml, budgets.toml and alerts.toml
    (each written whole or not at all); the same settings always give the same bytes."""
    with failures.reported(debug):
        place = settings_in_force.place(demo)
        found = {part: document(part, place) for part in PARTS}
        if not any(found.values()):
            raise UsageProblem(
                "no settings in force, nothing written: import files with `settings import`, "
                "or give --demo for the demo organization's"
            )
        to.mkdir(parents=True, exist_ok=True)
        for part, held in found.items():
            if held is None:
                typer.echo(f"{part}: none in force, no {file_name(part)} written")
                continue
            path = write_atomic(held.text.encode("utf-8"), to / file_name(part))
            typer.echo(f"{path}: {held.where}")


@settings_app.command("import")
def import_files(
    files: Annotated[
        list[Path],
        typer.Argument(help="pricing.toml, teams.toml, budgets.toml or alerts.toml files."),
    ],
    yes: YesOption = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Check each file, show what it changes field by field (before → after), and save the
    changes with --yes, each recorded as imported from its file. A file that breaks a rule
    stops the import before anything is saved (exit 2)."""
    with failures.reported(debug):
        place = settings_in_force.place(demo)
        records = _writable(place)
        read = [(part_of(path.name), path) for path in files]
        texts = {path: read_text(path, SettingsProblem) for _, path in read}
        for part, path in read:
            check(part, texts[path], str(path))
        first_start(place)
        org = _organization(demo, place, {part: texts[path] for part, path in read})
        for part, path in read:
            held = latest(records, part)
            check(part, texts[path], str(path), org, held.text if held else None)
            if warned := route_warning(part, texts[path], os.environ):
                typer.echo(f"warning: {warned}", err=True)
        planned = []
        for part, path in read:
            held = latest(records, part)
            lines = differences(held.text if held else None, texts[path])
            base = held.number if held else NONE_YET
            typer.echo(f"{path} ({part}, against version {base}):")
            for line in lines or ["no change"]:
                typer.echo(f"  {line}")
            if lines:
                planned.append((part, path, base, len(lines)))
        if planned and _confirmed(sum(count for *_, count in planned), yes):
            for part, path, base, _ in planned:
                _saved(records, part, texts[path], base, who(), path.name)


@settings_app.command("history")
def show_history(
    part: Annotated[
        str | None,
        typer.Argument(help=f"One document ({', '.join(PARTS)}); all by default."),
    ] = None,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Every saved version, newest first: its number, when, who, and the file it came from or
    the change that made it ("rotation of Web shop")."""
    with failures.reported(debug):
        place = settings_in_force.place(demo)
        records = _writable(place)
        first_start(place)
        rows = [["document", "version", "saved (UTC)", "by"]]
        for chosen in [_part(part)] if part else PARTS:
            rows += [
                [chosen, str(v.number), f"{v.saved_at:%Y-%m-%d %H:%M}", v.origin]
                for v in history(records, chosen)
            ]
        for line in command_output.aligned(rows):
            typer.echo(line)


@settings_app.command("restore")
def restore(
    part: PartArgument,
    number: Annotated[int, typer.Argument(help="The version to restore.", show_default=False)],
    yes: YesOption = False,
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Save an earlier version again as the newest, after showing what it changes: itself a
    change, recorded, and the versions between kept."""
    with failures.reported(debug):
        place = settings_in_force.place(demo)
        records = _writable(place)
        chosen = _part(part)
        old = version(records, chosen, number)
        held = latest(records, chosen)
        if old is None or held is None:
            raise UsageProblem(f"{chosen} has no version {number}: see `settings history`")
        lines = differences(held.text, old.text)
        typer.echo(f"{chosen}: version {held.number} → the text of version {number}:")
        for line in lines or ["no change"]:
            typer.echo(f"  {line}")
        if lines and _confirmed(len(lines), yes):
            _saved(
                records, chosen, old.text, held.number, f"{who()}, restoring version {number}", None
            )
