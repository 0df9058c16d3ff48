"""What a question a front end asks reads: the usage of a range, however the front end gets it.

The command line fetches a range when a question asks for it, and the dashboard answers from
its caches; the questions themselves (anomalies over their look-back, the plan now, every
budget's status, each key's limits) are written once over this interface, in their own
packages, so which days a question reads is decided where the question is answered.
"""

from __future__ import annotations

from datetime import date
from typing import Protocol

from analytics.usage.pipeline import FetchedRange


class UsageReader(Protocol):
    """The usage of any range of closed days."""

    def usage(self, first: date, last: date) -> FetchedRange:
        """The key-day frame of ``first``–``last`` (inclusive UTC days)."""
        ...
