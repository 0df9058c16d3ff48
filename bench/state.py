"""The state store on PostgreSQL against the embedded file (`analytics.storage.state_store`):
anomaly marks written by several processes at once, and the Anomalies page with its marks read
from either, each in the same run.

PostgreSQL is a throw-away cluster of the run's own (`bench.postgres.durable_cluster`) with
PostgreSQL's default durability, on the same disk as the embedded file it is measured against:
on either, a commit is flushed before it returns.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TextIO

from pydantic import SecretStr
from sqlalchemy import Connection

from analytics.anomalies.marks import Marks
from analytics.storage.schema import marks as marks_table
from analytics.storage.state_store import Store, embedded_store, postgresql_store, upsert
from analytics.usage.calendar import utc_now
from analytics.usage.history import account_name
from analytics.usage.metrics import TOTAL_CHARACTERS
from analytics.usage.records import Records
from bench import synthetic_orgs
from bench.postgres import Cluster, durable_cluster
from bench.processes import stop_process
from bench.result_lines import Result, keep, result
from bench.timing import rounded, timed

# state_marks: `Scale.state_marks` marks (1,000 at full scale) by this many processes at once,
# each mark its own transaction.
WRITERS = 8
ACCOUNT = "bench"
# state_pages: the marks the account holds, of which the page's own anomalies are at most half
# (every other one of them, by severity; the rest on earlier days, kept from earlier reviews).
PAGE_MARKS = 400
# state_pages: a warm run of the page takes some 25 ms at any scale, about a millisecond of it
# the marks' read, and a loaded machine moves single runs by tens of milliseconds. So each
# sample is PAGE_RUNS runs, and there are PAGE_ROUNDS samples of each store per `Scale.repeat`
# (thirty at full scale, six in the smoke run), alternated: some 8 s in all.
PAGE_RUNS = 5
PAGE_ROUNDS = 6
SIDES = ("postgresql", "embedded")


def mark_ids(count: int) -> list[str]:
    """`count` distinct anomaly ids as `mark-anomaly` takes them: spikes of masked keys on days
    of the year before the page's range (which ends the day before `synthetic_orgs.TODAY`)."""
    today = synthetic_orgs.TODAY
    return [
        f"spike:k{n:03d}****wxyz:{TOTAL_CHARACTERS}:{today - dt.timedelta(days=40 + n % 365)}"
        for n in range(count)
    ]


# --- state_marks -------------------------------------------------------------------------


class Writers:
    """WRITERS `python -m bench.marker` processes, started once and given one store a round."""

    def __init__(self, stack: ExitStack) -> None:
        self.processes = []
        for _ in range(WRITERS):
            process = subprocess.Popen(
                [sys.executable, "-m", "bench.marker"],
                cwd=synthetic_orgs.ROOT,
                env={**os.environ, "PYTHONPATH": str(synthetic_orgs.ROOT)},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            stack.callback(stop_process, process)
            self.processes.append(process)

    def write(self, address: str | None, folder: Path | None, ids: list[str]) -> dict[str, Any]:
        """Every writer marks its share of `ids` in the store (PostgreSQL at `address`, else
        the embedded one in `folder`), all told to begin once all have opened it: the seconds
        from the first mark's start to the last one's end, and whether every writer was still
        writing when the last began."""
        for number, process in enumerate(self.processes):
            given = {
                "address": address,
                "folder": None if folder is None else str(folder),
                "account": ACCOUNT,
                "ids": ids[number::WRITERS],
            }
            _send(process, json.dumps(given))
        for process in self.processes:
            _expect(process, "ready")
        for process in self.processes:
            _send(process, "go")
        spans = [json.loads(_expect(process)) for process in self.processes]
        starts, ends = [s["start"] for s in spans], [s["end"] for s in spans]
        return {"seconds": max(ends) - min(starts), "overlapped": max(starts) < min(ends)}


def _send(process: subprocess.Popen[str], line: str) -> None:
    stdin: TextIO | None = process.stdin
    assert stdin is not None
    stdin.write(line + "\n")
    stdin.flush()


def _expect(process: subprocess.Popen[str], expected: str | None = None) -> str:
    """The writer's next line (`expected`, when given); a writer that ended or said something
    else stops the benchmark."""
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if not line or (expected is not None and line != expected):
        raise RuntimeError(f"bench.marker {process.pid} said {line!r}, exit {process.poll()}")
    return line


def _kept(store: Store, ids: list[str]) -> bool:
    """Whether the store holds exactly `ids`, each marked expected, for the account."""
    return Marks(Records(store, ACCOUNT)).read() == dict.fromkeys(ids, "expected")


def state_marks(scale: synthetic_orgs.Scale) -> list[Result]:
    """`scale.state_marks` marks by WRITERS processes at once into PostgreSQL, against the same
    into the embedded store; each round into a fresh database and a fresh folder, rounds
    alternated."""
    ids = mark_ids(scale.state_marks)
    runs: dict[str, list[float]] = {side: [] for side in SIDES}
    kept, overlapped = [], []
    with ExitStack() as stack:
        writers = Writers(stack)  # they start while the cluster does, and wait for a store
        cluster = stack.enter_context(durable_cluster())
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        rounds = scale.warmup + scale.repeat
        for number in range(rounds):
            for side in SIDES:
                store, written = _round(cluster, folder / f"{side}-{number}", side, ids, writers)
                runs[side].append(written["seconds"])
                overlapped.append(written["overlapped"])
                kept.append(_kept(store, ids))
                store.engine.dispose()
                if number == rounds - 1:
                    _keep_marks(store)
    times = {side: statistics.median(values[scale.warmup :]) for side, values in runs.items()}
    return [
        result(
            "state_marks",
            times["postgresql"] / times["embedded"],
            3.0,
            {"every_mark_kept": all(kept), "writers_overlapped": all(overlapped)},
            seconds=rounded(times),
            marks=len(ids),
            writers=WRITERS,
            rounds=scale.repeat,
        )
    ]


def _keep_marks(store: Store) -> None:
    """Leave the last round's marks for a reader: the embedded file itself (its engine
    disposed, so the write-ahead log is folded into it), and PostgreSQL's rows as JSON."""
    if store.path is not None:
        keep("state_marks", "embedded.sqlite", store.path)
        return
    rows = sorted(Marks(Records(store, ACCOUNT)).read().items())
    store.engine.dispose()
    keep("state_marks", "postgresql-marks.json", json.dumps(rows, indent=0).encode())


def _round(
    cluster: Cluster, folder: Path, side: str, ids: list[str], writers: Writers
) -> tuple[Store, dict[str, Any]]:
    """One round on a fresh store of `side`, opened (and its schema made) before the writers
    open it."""
    if side == "postgresql":
        address = cluster.url(cluster.create_database())
        return postgresql_store(address), writers.write(address, None, ids)
    return embedded_store(folder), writers.write(None, folder, ids)


# --- state_pages -------------------------------------------------------------------------


def _use_store(address: str | None) -> None:
    """The dashboard's next run reads its marks from PostgreSQL at `address` (None: from the
    embedded store in the history folder): it reads its settings on every run."""
    if address is None:
        os.environ.pop("SERVICE_STATE_URL", None)
    else:
        os.environ["SERVICE_STATE_URL"] = address


def _page_runs(at: Any, runs: int) -> float:
    """Seconds of `runs` runs of the page `at` is on, each reading the marks again, as each
    click in it does."""

    def run() -> None:
        for _ in range(runs):
            at.run()

    seconds, _ = timed(run)
    if at.exception:
        raise RuntimeError(f"the Anomalies page failed: {at.exception[0].message}")
    return seconds


def _configured(
    stack: ExitStack, keys: int
) -> tuple[synthetic_orgs.Served, str, dict[str, str | None]]:
    """The emulator serving `keys` keys, an empty history folder and a PostgreSQL database,
    the dashboard's environment set to the first two, all ended with `stack`: the page reads
    the same service whichever store holds its marks (the addresses of both stores)."""
    cluster = stack.enter_context(durable_cluster())
    served = stack.enter_context(synthetic_orgs.emulator_process(keys))
    folder = stack.enter_context(tempfile.TemporaryDirectory())
    service = {"SERVICE_BASE_URL": served.base_url, "SERVICE_AUTH_KEY": served.admin_key}
    stack.enter_context(
        synthetic_orgs.environment(
            {**service, "SERVICE_HISTORY_PATH": folder}, ["SERVICE_STATE_URL"]
        )
    )
    return served, folder, {"postgresql": cluster.url(cluster.create_database()), "embedded": None}


def state_pages(scale: synthetic_orgs.Scale) -> list[Result]:
    """The Anomalies page over its default range (Last 30 days) for a configured service, with
    the caches warm, its marks in PostgreSQL against the same marks in the embedded store: one
    session whose runs alternate between the two stores, PAGE_RUNS runs at a time."""
    from streamlit.testing.v1 import AppTest

    from analytics.pages import page_at

    runs: dict[str, list[float]] = {side: [] for side in SIDES}
    tiles: set[tuple[tuple[str, str], ...]] = set()  # what the page showed in its tiles
    with ExitStack() as stack:
        served, folder, addresses = _configured(stack, scale.keys)
        # The first run fetches the range (and the weeks before it) and finds its anomalies,
        # in caches both stores' runs share; nothing is marked yet, so the page lists them all.
        at = AppTest.from_string(synthetic_orgs.APP_LAUNCHER, default_timeout=900)
        at.run()
        at.switch_page(str(page_at("anomalies").file))
        _page_runs(at, 1)
        listed = list(at.dataframe[0].value["id"]) if len(at.dataframe) else []
        given = _page_marks(listed)
        account = account_name(served.base_url, SecretStr(served.admin_key))
        for store in (postgresql_store(addresses["postgresql"]), embedded_store(Path(folder))):
            stack.callback(store.engine.dispose)
            _give(store, account, given)
        for _ in range(scale.warmup + scale.repeat * PAGE_ROUNDS):
            for side in SIDES:
                _use_store(addresses[side])
                runs[side].append(_page_runs(at, PAGE_RUNS) / PAGE_RUNS)
                tiles.add(tuple((tile.label, tile.value) for tile in at.metric))
    times = {side: statistics.median(values[scale.warmup :]) for side, values in runs.items()}
    on_page = sum(anomaly in given for anomaly in listed)
    expected = {"Expected": f"{(on_page + 1) // 2:,}", "Acknowledged": f"{on_page // 2:,}"}
    shown = dict(next(iter(tiles)))
    return [
        result(
            "state_pages",
            times["postgresql"] / times["embedded"],
            1.2,
            {
                "same_page": len(tiles) == 1,
                "marks_shown": {label: shown.get(label) for label in expected} == expected,
            },
            seconds=rounded(times),
            keys=scale.keys,
            rounds=scale.repeat * PAGE_ROUNDS,
            page_runs=PAGE_RUNS,
            marks=len(given),
            anomalies=len(listed),
            marked_on_page=on_page,
            tiles=shown,
        )
    ]


def _give(store: Store, account: str, given: dict[str, str]) -> None:
    """The account's marks `given`, in one transaction (each as `Marks.set` writes it): the
    page's marks are what is read, not how they came to be written."""
    now = utc_now()

    def write(connection: Connection) -> None:
        for anomaly, mark in given.items():
            values = {"account": account, "anomaly": anomaly, "mark": mark, "marked_at": now}
            upsert(connection, marks_table, values, 2)

    store.run(write)


def _page_marks(shown: list[str]) -> dict[str, str]:
    """PAGE_MARKS marks: every other anomaly of the page, expected and acknowledged in turn,
    and ids of earlier days for the rest."""
    on_page = shown[::2][: PAGE_MARKS // 2]
    given = {
        anomaly: ("expected", "acknowledged")[number % 2] for number, anomaly in enumerate(on_page)
    }
    given.update(dict.fromkeys(mark_ids(PAGE_MARKS - len(given)), "expected"))
    return given
