"""What the guardrails' plan reads: the listed keys as it sees them and the organization's use,
as of one day of one usage period."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import date

import pandas as pd

from analytics.capacity import BillingPeriod
from analytics.guardrails.rules import MEASURES, Measure
from analytics.keys import masked
from analytics.service import DeveloperKey


@dataclass(frozen=True)
class KeyUse:
    """One listed key as the plan reads it: its analytics mask (None: no usage joined), its
    team, its use on the closed days of this usage period and its forecast for the rest of it
    (service units)."""

    key: DeveloperKey
    api_key: str | None
    team: str | None
    counted: Mapping[Measure, int]
    forecast: Mapping[Measure, float]

    @property
    def names(self) -> frozenset[str]:
        """What a key budget may name it by: its label, its analytics mask, its key id's."""
        return frozenset(n for n in (self.key.label, self.api_key, masked(self.key.key_id)) if n)

    @property
    def active(self) -> bool:
        return not self.key.is_deactivated


@dataclass(frozen=True)
class Situation:
    """Everything the plan reads, as of ``today`` in the usage period ``period``: the listed
    keys, the closed days' usage (``usage``, from the earliest enforced budget's start),
    each of its masked keys' team, the organization's count now, the teams of the file, and the
    plan's own limits of each measure (None: the plan has none), the service's cap on the whole
    organization, which an enforced budget is shown beside."""

    today: date
    period: BillingPeriod
    keys: tuple[KeyUse, ...]
    usage: pd.DataFrame
    frame_teams: Mapping[str, str]
    live: Mapping[Measure, int]
    team_names: Collection[str] | None
    plan_limits: Mapping[Measure, int | None] = field(
        default_factory=lambda: dict.fromkeys(MEASURES)
    )
