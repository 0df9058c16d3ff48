"""The paged reports' windows kept between pages: a client reads a long range page after page,
so each window's rows are computed once and each page is a slice of them."""

from __future__ import annotations

import itertools
import sqlite3
from collections import OrderedDict

# Report windows whose rows are kept for paging: a client reads a long range as up to six
# windows at once, page after page, so fewer would recompute windows it is still reading.
WINDOWS_KEPT = 8


class WindowCache:
    """Temporary tables of report windows, most recently read last. It takes no lock: its
    owner calls it with the database's lock held."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        # Parameters -> temporary table.
        self._windows: OrderedDict[tuple[object, ...], str] = OrderedDict()
        self._serial = itertools.count()

    def table(self, parameters: tuple[object, ...], query: str, bounds: tuple[str, str]) -> str:
        """The temporary table holding a paged report's rows for `parameters`, in report order
        (rowid 1, 2, ...): `query` runs once per window, and each page is a slice of its rows
        instead of the whole window's aggregation again. The least recently read window goes
        when more than WINDOWS_KEPT are held."""
        table = self._windows.get(parameters)
        if table is None:
            table = f"temp.report_window_{next(self._serial)}"
            self._conn.execute(f"CREATE TABLE {table} AS {query}", bounds)
            self._windows[parameters] = table
            if len(self._windows) > WINDOWS_KEPT:
                self._conn.execute(f"DROP TABLE {self._windows.popitem(last=False)[1]}")
        self._windows.move_to_end(parameters)
        return table

    def forget(self) -> None:
        """Drop every kept window: the ledger changed, or the next page 1 is to compute its
        report again."""
        for table in self._windows.values():
            self._conn.execute(f"DROP TABLE {table}")
        self._windows.clear()
