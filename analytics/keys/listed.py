"""What the front ends ask of the key list: every key's row of the key view, and each active
key's own limits as budgets of the billing period, each read through a ``KeyReader`` so that
the days each reads are chosen here once (the view: from the oldest key's creation; the
limits: the days the plan's own projection reads, ``period_range``)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import NamedTuple, Protocol

from analytics.capacity import Evaluation, PlanReader, billing_period, period_range
from analytics.keys.limits import KeyRow, limit_evaluations, overview, view_range
from analytics.service import DeveloperKey
from analytics.usage import labels


class KeyReader(PlanReader, Protocol):
    """Usage of any range, the plan, the key list and the masks the audit log recorded."""

    def developer_keys(self) -> list[DeveloperKey]:
        """Every developer key of the organization (an admin key's question: a 403
        otherwise)."""
        ...

    def recorded_masks(self) -> Mapping[str, str]:
        """The masked key the audit log recorded for each key id it names."""
        ...


class LimitStatus(NamedTuple):
    """Each active key's own limits as budget evaluations, and the labels of the masked keys
    in the usage read for them (what alerts name the keys by)."""

    evaluations: list[Evaluation]
    labels: dict[str, str]


def key_view(reader: KeyReader, today: date) -> list[KeyRow]:
    """Every key's row as of ``today``: the key list joined to the usage of ``view_range``."""
    keys = reader.developer_keys()
    period = billing_period(reader.plan())
    read = reader.usage(*view_range(keys, period, today))
    return overview(keys, period, read.frame, read.start, today, reader.recorded_masks())


def limit_status(reader: KeyReader, today: date, warning_at: float) -> LimitStatus:
    """Every active key's own limits as budgets of the billing period, warning at
    ``warning_at``, over the days the plan's projection reads (so one read serves both)."""
    keys = reader.developer_keys()
    period = billing_period(reader.plan())
    read = reader.usage(*period_range(period, today))
    rows = overview(keys, period, read.frame, read.start, today, reader.recorded_masks())
    return LimitStatus(limit_evaluations(rows, period, warning_at), labels(read.frame))
