"""The installed distributions, read once per test process.

Every new `AppTest` looks through every installed distribution for Streamlit components,
parsing each one's metadata (several times) and the file lists of those that name Streamlit:
about 0.12 processor-seconds for this environment's 124 distributions, repeated for each of the
suite's ~360 AppTests. Nothing is installed into the running environment while the suite runs,
so the list, each distribution's metadata and its file list are read once per search path
here and handed out again (`remember_distributions`); AppTest still looks, and finds what it
found before. A test that changes `sys.path` (to pose as an installed package) meets a fresh
read of its own path.
"""

from __future__ import annotations

import functools
import importlib.metadata as metadata
import os
import sys
from collections.abc import Iterator
from typing import Any


class Remembered(metadata.Distribution):
    """An installed distribution whose metadata and file list are parsed at first use only."""

    def __init__(self, found: metadata.Distribution) -> None:
        self._found = found

    def read_text(self, filename: str) -> str | None:
        return self._found.read_text(filename)

    def locate_file(self, path: str | os.PathLike[str]) -> Any:
        return self._found.locate_file(path)

    @functools.cached_property
    def metadata(self) -> Any:  # type: ignore[override]
        return self._found.metadata

    @functools.cached_property
    def files(self) -> Any:  # type: ignore[override]
        return self._found.files


def remember_distributions() -> None:
    """From now on in this process, `importlib.metadata.distributions()` (asked for all, no
    filter) answers with the distributions found at its first call with the same `sys.path`,
    each `Remembered`."""
    discover = metadata.distributions

    @functools.lru_cache(maxsize=8)
    def installed(path: tuple[str, ...]) -> tuple[Remembered, ...]:
        return tuple(Remembered(found) for found in discover(path=list(path)))

    def distributions(**filters: Any) -> Iterator[metadata.Distribution]:
        return discover(**filters) if filters else iter(installed(tuple(sys.path)))

    metadata.distributions = distributions
