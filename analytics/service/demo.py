"""What the service layer knows of demo mode: the address its in-process organization answers
at, and the lock of the demo's files. The emulator itself is started above this layer
(`analytics.connection`), so the service layer never imports it.

The lock is taken in turn by whatever loads or resets the demo's store and by whatever appends
to its key audit log, across processes and threads.
"""

from __future__ import annotations

from filelock import FileLock

from analytics.service.service_connection import DemoFiles

DEMO_BASE_URL = "http://demo.emulator"


def demo_lock(files: DemoFiles) -> FileLock:
    """The lock of the demo's state (each call opens its own)."""
    files.lock.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(files.lock, thread_local=False)
