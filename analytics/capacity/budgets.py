"""Usage budgets from ``budgets.toml``: typed parsing and evaluation against usage.

A budget caps one metric over a month, a calendar quarter or the contract year, for the whole
organization or for one key (named by its label or its masked key). Evaluating a budget gives
what is used, the run-rate projection to the period's end (``analytics.capacity.forecast``),
the day the projection crosses the limit and a status:

* ``exceeded`` — the limit is used up (used ≥ limit; with a zero limit, any use);
* ``warning`` — used or projected usage reaches the warning threshold (default 80 %);
* ``unknown key`` — the named key has no usage in the data: a typo or a retired key;
* ``ok`` — otherwise.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

import msgspec
import pandas as pd

from analytics.capacity.forecast import ORGANIZATION, daily_series, projection_path, run_rate
from analytics.usage.calendar import (
    PERIOD_KINDS,
    PERIOD_TITLES,
    PeriodKind,
    YearStart,
    period_bounds,
    range_text,
)
from analytics.usage.metrics import METRICS

DEFAULT_WARNING = 0.8
Status = Literal["ok", "warning", "exceeded", "unknown key"]
STATUS_ORDER: tuple[Status, ...] = ("ok", "unknown key", "warning", "exceeded")
EVALUATION_COLUMNS = [
    "budget", "scope", "metric", "period", "limit", "used", "used %",
    "projected", "projected %", "overrun", "status",
]  # fmt: skip


class BudgetFileError(ValueError):
    """The budgets file cannot be read or breaks a rule; the message names the file and entry."""


def _check_threshold(value: float) -> None:
    if not 0 < value <= 1:
        raise ValueError(f"warning_at must be in (0, 1], e.g. 0.8 for 80 %, not {value}")


class Budget(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One limit. ``key`` is a key label or a masked key; without it the budget is org-wide."""

    metric: str
    period: str
    limit: float
    key: str | None = None
    warning_at: float | None = None
    name: str = ""

    def __post_init__(self) -> None:
        if self.metric not in METRICS:
            raise ValueError(
                f"unknown metric {self.metric!r}; expected one of {', '.join(METRICS)}"
            )
        if self.period not in PERIOD_KINDS:
            raise ValueError(
                f"unknown period {self.period!r}; expected one of {', '.join(PERIOD_KINDS)}"
            )
        if not math.isfinite(self.limit) or self.limit < 0:
            raise ValueError(f"limit must be a finite number ≥ 0, not {self.limit}")
        if self.key is not None and not self.key.strip():
            raise ValueError("key must name a key label or a masked key; omit it for the org")
        if self.warning_at is not None:
            _check_threshold(self.warning_at)

    @property
    def kind(self) -> PeriodKind:
        """The period as its literal type (the text was checked on parsing)."""
        return PERIOD_KINDS[PERIOD_KINDS.index(self.period)]

    @property
    def scope(self) -> str:
        return self.key or ORGANIZATION

    @property
    def title(self) -> str:
        return self.name or f"{self.scope} · {self.metric} · {PERIOD_TITLES[self.period].lower()}"


class BudgetFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The whole file: defaults and the ``[[budget]]`` entries."""

    budgets: tuple[Budget, ...] = msgspec.field(default=(), name="budget")
    warning_at: float = DEFAULT_WARNING
    contract_year_start: str = "01-01"

    def __post_init__(self) -> None:
        _check_threshold(self.warning_at)
        YearStart.parse(self.contract_year_start)
        if not self.budgets:
            raise ValueError("no [[budget]] entries: a budgets file must define at least one")

    @property
    def year_start(self) -> YearStart:
        return YearStart.parse(self.contract_year_start)

    def threshold(self, budget: Budget) -> float:
        return self.warning_at if budget.warning_at is None else budget.warning_at


def _where(message: str) -> str:
    """Turn msgspec's ``$.budget[2].limit`` locations into ``[[budget]] #3 (limit)``."""

    def entry(match: re.Match[str]) -> str:
        field = f" ({match.group(2)})" if match.group(2) else ""
        return f"[[budget]] #{int(match.group(1)) + 1}{field}"

    message = re.sub(r"`\$\.budget\[(\d+)\](?:\.(\w+))?`", entry, message)
    return message.replace("`$`", "top level").replace("`$.", "`")


def parse_budgets(text: str, source: str = "budgets.toml") -> BudgetFile:
    """Parse TOML text; every problem becomes a ``BudgetFileError`` naming ``source``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BudgetFileError(f"{source}: not valid TOML: {exc}") from None
    try:
        return msgspec.convert(data, BudgetFile)
    except msgspec.ValidationError as exc:
        raise BudgetFileError(f"{source}: {_where(str(exc))}") from None


def load_budgets(path: Path | str) -> BudgetFile:
    """Read and parse a budgets file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BudgetFileError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BudgetFileError(f"{path}: cannot be read ({exc})") from None
    return parse_budgets(text, str(path))


@dataclass(frozen=True)
class Evaluation:
    """A budget measured against usage on closed days before ``as_of``."""

    budget: Budget
    threshold: float
    start: date
    end: date
    used: float
    projected: float
    low: float
    high: float
    overrun: date | None  # first day the (actual, then expected) cumulative usage reaches the limit
    status: Status
    keys: tuple[str, ...]  # masked keys the budget matched

    @property
    def used_share(self) -> float:
        return _share(self.used, self.budget.limit)

    @property
    def projected_share(self) -> float:
        return _share(self.projected, self.budget.limit)


def _share(value: float, limit: float) -> float:
    if limit > 0:
        return value / limit
    return math.inf if value > 0 else 0.0


def matching_keys(key_day: pd.DataFrame, key: str) -> tuple[str, ...]:
    """Masked keys whose label or masked key equals ``key`` (a shared label matches them all)."""
    hit = (key_day["api_key"].astype(str) == key) | (key_day["api_key_label"].astype(str) == key)
    return tuple(sorted(key_day.loc[hit, "api_key"].astype(str).unique()))


def status_for(used: float, projected: float, limit: float, threshold: float) -> Status:
    """``exceeded`` when the limit is used up, ``warning`` when used or projected reaches it."""
    if used > limit or (limit > 0 and used >= limit):
        return "exceeded"
    reach = max(used, projected)
    if reach > 0 and reach >= threshold * limit:
        return "warning"
    return "ok"


def evaluate(
    budgets: BudgetFile, key_day: pd.DataFrame, as_of: date, covered_from: date
) -> list[Evaluation]:
    """Evaluate every budget for the period holding ``as_of`` (days before it are closed).

    ``key_day`` must cover ``covered_from`` up to the day before ``as_of``; use
    ``analytics.forecast.required_start`` for the earliest day the evaluation reads.
    """
    results = []
    for budget in budgets.budgets:
        start, end = period_bounds(budget.kind, as_of, budgets.year_start)
        threshold = budgets.threshold(budget)
        keys: tuple[str, ...] = ()
        if budget.key is not None:
            keys = matching_keys(key_day, budget.key)
            if not keys:
                results.append(
                    Evaluation(budget, threshold, start, end, 0, 0, 0, 0, None, "unknown key", keys)
                )
                continue
        series = daily_series(key_day, budget.metric, keys or None)
        path = projection_path(
            series, start, end, run_rate(series, as_of, covered_from), covered_from
        )
        closed = path["actual"].dropna()
        used = float(closed.iloc[-1]) if len(closed) else 0.0
        projected = float(path["expected"].iloc[-1])
        reached = path.loc[path["expected"] >= budget.limit, "day"]
        overrun = reached.iloc[0].date() if budget.limit > 0 and len(reached) else None
        results.append(
            Evaluation(
                budget=budget,
                threshold=threshold,
                start=start,
                end=end,
                used=used,
                projected=projected,
                low=float(path["low"].iloc[-1]),
                high=float(path["high"].iloc[-1]),
                overrun=overrun,
                status=status_for(used, projected, budget.limit, threshold),
                keys=keys,
            )
        )
    return results


def worst(evaluations: Iterable[Evaluation]) -> Status:
    """The most serious status (``ok`` for none)."""
    return max((e.status for e in evaluations), key=STATUS_ORDER.index, default="ok")


def evaluation_frame(evaluations: Sequence[Evaluation]) -> pd.DataFrame:
    """One display row per budget, for tables, the CLI and the report."""
    return pd.DataFrame(
        [
            {
                "budget": e.budget.title,
                "scope": e.budget.scope,
                "metric": e.budget.metric,
                "period": range_text(e.start, e.end),
                "limit": e.budget.limit,
                "used": e.used,
                "used %": 100 * e.used_share,
                "projected": e.projected,
                "projected %": 100 * e.projected_share,
                "overrun": e.overrun,
                "status": e.status,
            }
            for e in evaluations
        ],
        columns=EVALUATION_COLUMNS,
    )
