"""What a scenario reports: result lines (a ratio against its target, and the checks it needs)
and the outputs it compares, kept for a reader."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

Result = dict[str, Any]
# The largest chart a page may send to the browser, which several lines check.
MAX_FIGURE_BYTES = 1024**2


def result(name: str, ratio: float, target: float, checks: dict[str, bool], **raw: Any) -> Result:
    """`ok` when the ratio is within its target and every check holds; `raw` says what was
    measured (seconds, sizes, counts) so that a reader can recompute the ratio."""
    ok = ratio <= target and all(checks.values())
    return {"name": name, "ratio": round(ratio, 4), "target": target, "ok": ok, **checks, **raw}


# Where scenarios leave the outputs they call identical (`python -m bench --keep FOLDER`), so
# that a reader can compare the files themselves; None keeps nothing.
KEPT: Path | None = None


def keep(scenario: str, name: str, data: bytes | Path) -> None:
    """Leave `data` (bytes, or a file to copy) as KEPT/<scenario>/<name>."""
    if KEPT is None:
        return
    folder = KEPT / scenario
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(data, Path):
        shutil.copyfile(data, folder / name)
    else:
        (folder / name).write_bytes(data)
