"""Where a program's Arrow buffers come from: the C library's allocator.

Arrow's default pool (mimalloc) keeps the pages each thread freed for its next allocation;
the C library's allocator hands large freed blocks back at once. CSV blocks rendered on two
threads, history reads and pandas' text columns all allocate through Arrow, and under
mimalloc a five-year export of a thousand keys peaked about 50 MB higher (480 MB against
425 MB), for the same file and no gain in speed.

A program chooses its allocator, not a library: the command line and the dashboard call
`use_system_allocator` as they start, and code that imports `analytics` keeps its own choice.
An `ARROW_DEFAULT_MEMORY_POOL` set in the environment wins over ours.
"""

from __future__ import annotations

import os
from typing import Final

import pyarrow as pa

ENVIRONMENT: Final = "ARROW_DEFAULT_MEMORY_POOL"


def use_system_allocator() -> None:
    """Arrow allocates from the C library's allocator from now on, unless the environment
    names a pool (buffers already made stay with the pool they came from)."""
    if ENVIRONMENT not in os.environ:
        pa.set_memory_pool(pa.system_memory_pool())
