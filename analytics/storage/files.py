"""Files this program keeps on disk, and the one way they change.

Exports and reports are written atomically: a failed write never leaves half a file, and an
earlier file stays as it was. Local state that cannot be fetched again (anomaly marks, the
record of delivered alerts) changes only through `update`: a file lock around the whole
read-modify-write, so concurrent writers (commands, dashboard sessions) lose nothing, and an
atomic replace with the file and its folder flushed to disk, so readers never see half a file
and a crash keeps either the old or the new content. A file that is not what its reader expects
is never silently replaced: `move_aside` keeps it, named with the time, for a person to look at.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from filelock import FileLock

log = logging.getLogger(__name__)

State = TypeVar("State")
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


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the lock of `path` (a hidden `.lock` file beside it) for a read-modify-write.

    The lock is an advisory file lock, so it holds between processes and between threads of
    one process (each `FileLock` opens its own file description)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(path.with_name(f".{path.name}.lock"), thread_local=False):
        yield


def update(
    path: Path,
    read: Callable[[Path], State],
    change: Callable[[State], State],
    encode: Callable[[State], bytes],
) -> State:
    """Read the state at `path`, change it and write it back, all under the file's lock; the
    changed state is returned. `read` sees the file as the last writer left it."""
    with locked(path):
        changed = change(read(path))
        write_atomic(encode(changed), path)
    return changed


def read_state(path: Path, decode: Callable[[bytes], State], empty: State, what: str) -> State:
    """The state in `path`: `empty` when there is no file yet; when `decode` refuses it (raises
    ValueError, or RecursionError for JSON nested past the interpreter's recursion limit), the
    file is moved aside with one warning naming both places, and `empty`.

    A file that cannot be read at all (permissions, a folder) raises OSError: moving it would
    not help, and the caller says so."""
    try:
        content = path.read_bytes()
    except FileNotFoundError:
        return empty
    try:
        return decode(content)
    except (ValueError, RecursionError) as exc:
        kept = move_aside(path)
        log.warning("%s %s was not valid (%s); kept as %s, starting afresh", what, path, exc, kept)
        return empty


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
