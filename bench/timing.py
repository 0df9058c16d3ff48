"""Medians of repeated runs, with warm-up, and alternated pairs so drift hits both sides.

Every timed call starts from a collected heap. How often the garbage collector walks the
objects a call builds depends on the counts left by whatever ran before it (a checkout with or
without compiled bytecode, an earlier scenario), and the parse of a body into 360,000 dicts
took 0.45 s after one history and 0.66 s after another: a line must not be decided by that.
The collection itself is not timed; what the call makes the collector do is."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def timed(func: Callable[[], T], clock: Callable[[], float] = time.perf_counter) -> tuple[float, T]:
    """Seconds taken by one call from a collected heap, and what it returned: wall-clock
    seconds, or by `clock` (`time.process_time`: the processor time of this process's
    threads, which other programs' turns on the processor do not add to)."""
    gc.collect()
    started = clock()
    value = func()
    return clock() - started, value


def medians(
    contenders: dict[str, Callable[[], Any]], repeat: int, *, warmup: int
) -> dict[str, float]:
    """Median seconds of each contender over `repeat` rounds, after `warmup` untimed ones
    (`Scale.warmup`); rounds alternate between them."""
    for _ in range(warmup):
        for func in contenders.values():
            func()
    runs: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(repeat):
        for name, func in contenders.items():
            runs[name].append(timed(func)[0])
    return {name: statistics.median(times) for name, times in runs.items()}


def fast_round(times: list[float]) -> float:
    """The time of a fast round: the tenth percentile of `times` (ten at least). Other work
    on the machine only ever adds time, and not to every call alike: a call that allocates
    hundreds of megabytes of fresh memory waits on the kernel to supply its pages, which
    other programs' memory use makes slow in bursts, while one that mostly reads and writes
    hardly waits. A fast round is one that no such burst reached; the tenth percentile rather
    than the fastest, so that one lucky round does not decide."""
    return statistics.quantiles(times, n=10)[0]


def rounded(times: dict[str, float]) -> dict[str, float]:
    """Seconds to a tenth of a millisecond, as a result line reports them."""
    return {name: round(value, 4) for name, value in times.items()}
