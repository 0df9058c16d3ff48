"""`python -m bench.marker`: one of the processes `state_marks` (`bench/state.py`) starts to
write anomaly marks into a state store, as the dashboard's sessions and `mark-anomaly` do.

It reads one JSON line from its standard input per round, `{"address", "folder", "account",
"ids"}` (the PostgreSQL store at `address`, else the embedded one in `folder`: the address,
password included, never appears among a process's arguments), opens the store and prints
`ready`; on the next line, `go`, it marks each id "expected", each in its own transaction
(`Marks.set`), and prints `{"start", "end"}`: the monotonic clock (`time.perf_counter`,
CLOCK_MONOTONIC, one clock for every process of the machine) before the first mark and after
the last. It ends when its input does.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from analytics.anomalies.marks import Marks
from analytics.storage.state_store import open_store
from analytics.usage.records import Records


def main() -> None:
    for line in sys.stdin:
        given = json.loads(line)
        folder = Path(given["folder"]) if given["folder"] else None
        store = open_store(folder, given["address"])
        if store is None:
            raise SystemExit("bench.marker: neither an address nor a folder")
        marks = Marks(Records(store, given["account"]))
        print("ready", flush=True)
        if sys.stdin.readline().strip() != "go":
            return
        start = time.perf_counter()
        for anomaly in given["ids"]:
            marks.set(anomaly, "expected")
        end = time.perf_counter()
        store.engine.dispose()  # the round's store is not written again
        print(json.dumps({"start": start, "end": end}), flush=True)


if __name__ == "__main__":
    main()
