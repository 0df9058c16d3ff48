"""Files this program keeps on disk (exports, reports, anomaly marks), written atomically: a
failed write never leaves half a file, and an earlier file stays as it was."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(content: bytes, path: Path) -> Path:
    """Write atomically: a temporary file in the same folder, flushed to disk, then renamed.

    On any failure the temporary file is removed and an earlier file at `path` is untouched.
    """
    path = Path(path)
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _fsync_folder(path.parent)
    return path


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
