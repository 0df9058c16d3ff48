"""Each developer key against its own limits: its state, when it was last used, and this usage
period's characters and speech minutes against its limits with the day each is reached at the
key's share of the organization's forecast (``analytics.capacity.budgets.allowance``).

A key's limits cap its one-month usage period, which is the organization's billing period.
Usage is the analytics data, which runs through yesterday (UTC): today's use is projected.
Limits also become budget evaluations, so ``check-budgets`` warns and alerts on them like on
any budget, without a line of configuration.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Final, Literal

import pandas as pd

from analytics.capacity import (
    Allowance,
    BillingPeriod,
    Budget,
    Evaluation,
    Measure,
    allowance,
    forecast_start,
    status_for,
)
from analytics.cost import Teams, key_owners
from analytics.keys.join import JoinedKey, join
from analytics.keys.preview import limit_text, minutes
from analytics.service import DeveloperKey
from analytics.usage import METRICS, MINUTES, TOTAL_CHARACTERS, labels, within

State = Literal["active", "deactivated", "never used", "not in the key list"]
LIMITED: Final[dict[Measure, str]] = {
    "characters": TOTAL_CHARACTERS,
    "speech_to_text_minutes": MINUTES,
}
# What a person reads first (the key, its state, its use against its limits) comes first; the
# long key id last, so a table narrower than its columns scrolls it out of view, not the use.
KEY_VIEW_COLUMNS: Final = [
    "label", "state", "characters", "character limit", "character limit reached",
    "speech minutes", "speech minute limit", "speech limit reached", "last used", "created",
    "deactivated", "api_key", "joined by", "key_id",
]  # fmt: skip


@dataclass(frozen=True)
class KeyRow:
    """One row of the key view; the allowances are None where usage cannot be told (a key
    not matched to its usage) or there is no billing period."""

    joined: JoinedKey
    state: State
    last_used: date | None
    characters: Allowance | None
    speech: Allowance | None

    @property
    def key(self) -> DeveloperKey | None:
        return self.joined.key

    @property
    def shown_id(self) -> str:
        """The masked key, else the key id's first characters: enough to tell two keys of one
        label apart in a list."""
        key_id = "" if self.key is None else self.key.key_id
        return self.joined.api_key or f"id {key_id[:8]}…"

    @property
    def limited(self) -> bool:
        limits = None if self.key is None else self.key.usage_limits
        return limits is not None and (
            limits.characters is not None or limits.speech_to_text_milliseconds is not None
        )


def key_facts(row: KeyRow) -> str:
    """One line on a listed key: its state, when it was created, deactivated and last used
    (Markdown); the key is named above it, its key id only in JSON."""
    key = row.key
    facts = [f"**{row.state}**"]
    if key is not None:
        if key.creation_time:
            facts.append(f"created {key.creation_time:%Y-%m-%d}")
        if key.deactivated_time:
            facts.append(f"deactivated {key.deactivated_time:%Y-%m-%d %H:%M} UTC")
    facts.append(f"last used {row.last_used:%Y-%m-%d}" if row.last_used else "no usage found")
    return " · ".join(facts)


def limits_note(row: KeyRow) -> str:
    """What a key used this usage period, beside the form that sets its limits."""
    used = [
        f"{allowed.usage_text} {allowed.label.lower()}"
        for allowed in (row.characters, row.speech)
        if allowed is not None
    ]
    told = f"Used this usage period: {'; '.join(used)}. " if used else ""
    return told + "0 allows nothing."


def key_counts(rows: Sequence[KeyRow]) -> dict[str, int]:
    """The listed keys, by state, and how many carry a limit (the view's tiles), named as
    the glossary names them: *Keys listed* is `keys list --all`, *Active keys* `keys list`."""
    listed = [row for row in rows if row.key is not None]
    return {
        "Keys listed": len(listed),
        "Active keys": sum(row.state in ("active", "never used") for row in listed),
        "Never used": sum(row.state == "never used" for row in listed),
        "Deactivated": sum(row.state == "deactivated" for row in listed),
        "With a limit": sum(row.limited for row in listed),
    }


def usage_start(keys: Sequence[DeveloperKey], period: BillingPeriod | None, today: date) -> date:
    """The first day the view reads: the oldest key's creation (so "never used" is true), the
    billing period's start and the forecast's history (``capacity.forecasting.forecast_start``)."""
    days = [forecast_start(today)]
    days += [k.creation_time.date() for k in keys if k.creation_time is not None]
    if period is not None:
        days.append(period.start)
    return min(days)


def _limit(key: DeveloperKey, measure: Measure) -> float | None:
    limits = key.usage_limits
    if measure == "characters":
        return limits.characters
    return minutes(limits.speech_to_text_milliseconds)


def key_rows(
    joined: Sequence[JoinedKey],
    key_day: pd.DataFrame,
    period: BillingPeriod | None,
    today: date,
    covered_from: date,
) -> list[KeyRow]:
    """Every joined key's row, from ``key_day`` (closed days from ``covered_from``, which
    ``usage_start`` gives) and the billing period holding ``today``."""
    used_days = key_day.loc[key_day[list(METRICS)].gt(0).any(axis=1)]
    last = used_days.groupby("api_key", observed=True)["usage_date"].max()
    last_used = {str(k): pd.Timestamp(v).date() for k, v in last.items()}
    in_period = key_day.iloc[:0] if period is None else within(key_day, period.start, today)
    sums = in_period.groupby("api_key", observed=True)[list(LIMITED.values())].sum()
    used_in_period = {
        measure: dict(zip(map(str, sums.index), sums[metric].astype(float), strict=True))
        for measure, metric in LIMITED.items()
    }

    def measured(row: JoinedKey, measure: Measure) -> Allowance | None:
        if row.api_key is None and row.how != "no usage found":
            return None
        used = used_in_period[measure].get(row.api_key or "", 0.0)
        limit = None if row.key is None else _limit(row.key, measure)
        if limit is None:  # nothing to reach: no projection (a thousand keys need none)
            return Allowance(measure, used, None, None, None)
        keys = (row.api_key,) if row.api_key is not None else ()
        return allowance(measure, used, limit, period, key_day, today, covered_from, keys)

    rows = []
    for row in joined:
        used_on = last_used.get(row.api_key) if row.api_key is not None else None
        state: State
        if row.key is None:
            state = "not in the key list"
        elif row.key.is_deactivated:
            state = "deactivated"
        else:
            state = "active" if used_on is not None or row.how == "not matched" else "never used"
        rows.append(
            KeyRow(
                row,
                state,
                used_on,
                measured(row, "characters"),
                measured(row, "speech_to_text_minutes"),
            )
        )
    return rows


def key_view_table(rows: Sequence[KeyRow]) -> pd.DataFrame:
    """One display row per key, for the view, ``keys list`` and exports: counts as numbers
    (NaN where not known or no limit), days as days."""

    def numbers(a: Allowance | None) -> tuple[float, float, str]:
        if a is None:
            return math.nan, math.nan, "-"
        return a.used, math.nan if a.limit is None else a.limit, a.reach_text

    records = []
    for row in rows:
        key = row.key
        characters, character_limit, characters_reached = numbers(row.characters)
        speech, speech_limit, speech_reached = numbers(row.speech)
        records.append(
            [
                row.joined.label,
                row.state,
                characters,
                character_limit,
                characters_reached,
                speech,
                speech_limit,
                speech_reached,
                row.last_used,
                None if key is None or key.creation_time is None else key.creation_time.date(),
                None
                if key is None or key.deactivated_time is None
                else key.deactivated_time.date(),
                row.joined.api_key or "-",
                row.joined.how,
                "-" if key is None else key.key_id,
            ]
        )
    return pd.DataFrame(records, columns=KEY_VIEW_COLUMNS)


OWNER_COLUMNS: Final = ["owner", "purpose"]


def with_owners(table: pd.DataFrame, teams: Teams | None, label: str = "label") -> pd.DataFrame:
    """``table`` (the key view's, or another per-key table, its masked keys in ``api_key`` and
    their labels in ``label``) with each key's owner and purpose appended, from the teams
    file's ``[[key]]`` entries (by masked key or label); empty where none names the key."""
    found = key_owners(teams, zip(table["api_key"], table[label], strict=True))
    owned = table.copy()
    owned["owner"] = [o.owner if o else "" for o in found]
    owned["purpose"] = [o.purpose if o else "" for o in found]
    return owned


LIMIT_COLUMNS: Final = ("character limit", "speech minute limit")


def shown_limits(table: pd.DataFrame, columns: Sequence[str] = LIMIT_COLUMNS) -> pd.DataFrame:
    """A table as the pages and commands show it (`key_view_table`'s limits by default): each
    limit in ``columns`` as the count it allows, or "no limit" (a blank would read as unknown,
    a zero as nothing allowed)."""
    shown = table.copy()
    for column in columns:
        shown[column] = [limit_text(None if pd.isna(v) else v) for v in table[column]]
    return shown


def limit_evaluations(
    rows: Sequence[KeyRow], period: BillingPeriod | None, threshold: float
) -> list[Evaluation]:
    """Each active key's limits as budgets over the billing period: ``warning`` at
    ``threshold`` of a limit, used or projected, ``exceeded`` at the limit. Named by the key's
    label and masked key (or the start of its key id), so an alert sent for a limit is
    recognized on later runs."""
    evaluations = []
    for row in rows:
        key = row.key
        if key is None or key.is_deactivated:
            continue
        for allowed, metric in ((row.characters, TOTAL_CHARACTERS), (row.speech, MINUTES)):
            if allowed is None or allowed.limit is None:
                continue
            what = "characters" if metric == TOTAL_CHARACTERS else "speech-to-text minutes"
            budget = Budget(
                metric=metric,
                period="month",
                limit=allowed.limit,
                key=row.joined.api_key or key.label,
                name=f"{key.label} ({row.shown_id}) · key limit · {what}",
            )
            projected = allowed.used if allowed.projected is None else allowed.projected
            evaluations.append(
                Evaluation(
                    budget=budget,
                    threshold=threshold,
                    limit=allowed.limit,
                    start=None if period is None else period.start,
                    end=None if period is None else period.end,
                    used=allowed.used,
                    projected=projected,
                    low=projected,
                    high=projected,
                    overrun=allowed.reached,
                    status=status_for(allowed.used, projected, allowed.limit, threshold),
                    keys=() if row.joined.api_key is None else (row.joined.api_key,),
                )
            )
    return evaluations


def view_range(
    keys: Sequence[DeveloperKey], period: BillingPeriod | None, today: date
) -> tuple[date, date]:
    """The closed days the key view reads (``usage_start``), through yesterday."""
    return usage_start(keys, period, today), today - timedelta(days=1)


def overview(
    keys: Sequence[DeveloperKey],
    period: BillingPeriod | None,
    key_day: pd.DataFrame,
    covered_from: date,
    today: date,
    recorded: Mapping[str, str],
) -> list[KeyRow]:
    """Every key's row, from the key list, the billing period (the keys' usage period), usage
    over ``view_range`` and the masks the audit log recorded."""
    joined = join(keys, labels(key_day), recorded)
    return key_rows(joined, key_day, period, today, covered_from)
