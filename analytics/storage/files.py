"""Files this program writes on disk, and what becomes of a damaged one.

Exports and reports are written atomically: a temporary file flushed to disk, then renamed,
with its folder flushed too, so a failed write never leaves half a file, an earlier file stays
as it was, and a crash keeps either the old or the new content. A file that is not what its
reader expects (a history cache, the embedded state store) is never silently replaced:
`move_aside` keeps it, named with the time, for a person to look at.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

log = logging.getLogger(__name__)

DAMAGED_KEPT = 3  # moved-aside copies kept per file: enough to look at, never a growing pile
_DAMAGED = ".damaged-"


def write_atomic(content: bytes | Iterable[bytes | memoryview], path: Path) -> Path:
    """Write atomically: a temporary file in the same folder, flushed to disk, then renamed.
    `content` is the bytes, or their pieces in order, each written as it comes (so a large
    file made piece by piece is never whole in memory).

    On any failure the temporary file is removed and an earlier file at `path` is untouched;
    an OSError names `path`, the file the caller asked for, never the temporary one.
    """
    path = Path(path)
    try:
        descriptor, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
        )
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.writelines([content] if isinstance(content, bytes) else content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        raise
    _fsync_folder(path.parent)
    return path


def move_aside(path: Path, now: datetime | None = None) -> Path:
    """Rename a damaged file to `<name>.damaged-<UTC time>` beside it and return the new path,
    keeping only the newest `DAMAGED_KEPT` such copies of that file."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S.%fZ")
    kept = path.with_name(f"{path.name}{_DAMAGED}{stamp}")
    os.replace(path, kept)
    _fsync_folder(path.parent)
    copies = sorted(path.parent.glob(f"{path.name}{_DAMAGED}*"))
    for old in copies[:-DAMAGED_KEPT]:
        with contextlib.suppress(OSError):
            old.unlink()
    return kept


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every file system allows it)."""
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
