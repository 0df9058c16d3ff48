"""Where a command's output goes and how its lines read: a file, or standard output for
`--output -`, checked before anything is fetched; and columns aligned for people and scripts."""

from __future__ import annotations

from pathlib import Path

from analytics.cli.failures import UsageProblem

# `--output -`: standard output rather than a file.
STDOUT = Path("-")


def check_output(output: Path) -> None:
    """Refuse a path that cannot be written before anything is fetched (`-` is standard
    output)."""
    if output == STDOUT:
        return
    if output.is_dir():
        raise UsageProblem(f"--output {output} is a folder; give a file path")
    if not output.parent.is_dir():
        raise UsageProblem(
            f"the folder of --output {output} does not exist; give a file in an existing folder"
        )


def aligned(rows: list[list[str]]) -> list[str]:
    """Left-aligned columns two spaces apart and no trailing spaces: lines people and scripts
    read."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
