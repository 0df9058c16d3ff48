"""Which of the money layer's files is in force: the one given, the working folder's, or the
example in demo mode."""

from __future__ import annotations

from pathlib import Path

from analytics.usage.bundle import bundle_folder


def money_file(name: str, given: Path | None, folder: Path, demo: bool) -> Path | None:
    """Which ``name``.toml to read (``pricing``, ``teams``): the one given; else the one in
    ``folder`` when present; else, in demo mode, the example, so the demo shows money. None:
    usage only."""
    if given is not None:
        return given
    if (folder / f"{name}.toml").is_file():
        return folder / f"{name}.toml"
    example = bundle_folder() / f"{name}.example.toml"
    return example if demo and example.is_file() else None
