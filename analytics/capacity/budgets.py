"""Usage budgets from ``budgets.toml``: typed parsing and evaluation against usage.

A budget caps one metric over a month, a calendar quarter, the contract year or the usage period
(``period = "usage"``: the billing period as the service reports it, over which each key's own
limits count), for the whole organization, one team of the teams file (``team``) or one key
(named by its label or its masked key). ``enforce = true`` asks ``analytics.guardrails`` to hold
the budget with the keys' own limits; here it is only read. A **plan budget**
(``metric = "plan"``) instead warns before the plan's own character limit is used up in the
current billing period; its limit and period are the plan's (``analytics.capacity.plan``).
Evaluating a budget gives what is used, the run-rate projection to the period's end
(``analytics.capacity.forecast``), the day the projection crosses the limit and a status:

* ``exceeded`` — the limit is used up (used ≥ limit; with a zero limit, any use);
* ``warning`` — used or projected usage reaches the warning threshold (default 80 %);
* ``unknown key`` — the named key (or team) has no usage in the data: a typo or a retired key;
* ``ok`` — otherwise, and always for a plan budget of a plan without a character limit.

Evaluation is pure: usage budgets read a key-day frame (``evaluate``), plan budgets a plan
snapshot (``evaluate_plan``) that the caller fetched. A usage-period budget needs the billing
period the caller read from the service; a team budget the team of each key (the teams file
lives in the money layer, which capacity does not import): without them it is not evaluated
(status ok, with a note saying why).

A **cost budget** (``metric = "cost"``) caps what the period costs, in the pricing file's
currency, for the organization (usage and base fee) or one key (its share of the
organization's usage lines). This package does not price: the caller passes the ``Prices`` in
force (``analytics.capacity.costs``). Used is the cost of the period's closed days; the
projection (``costs.cost_path``) prices, at the prices in force each day, the closed days'
usage followed by the run-rate forecast of every metric's usage for the remaining days (of
the budget's keys and of the rest of the organization, which shares the included volume); it
has no band. Without prices a cost budget is not evaluated (status ok, with a note); days
without a price cost nothing, and the note names them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

import msgspec
import pandas as pd

from analytics.capacity.costs import COST, Prices, cost_path
from analytics.capacity.forecast import ORGANIZATION, daily_series, projection_path, run_rate
from analytics.capacity.plan import PlanSnapshot, reaches
from analytics.storage.tomlfiles import parse_toml, read_text
from analytics.usage.calendar import (
    PERIOD_KINDS,
    PERIOD_TITLES,
    PeriodKind,
    YearStart,
    period_bounds,
    range_text,
)
from analytics.usage.metrics import METRIC_LABELS, METRICS, is_minutes

DEFAULT_WARNING = 0.8
PLAN = "plan"  # the metric of a plan budget
USAGE_PERIOD = "usage"  # the period of a budget over the billing period, the keys' usage period
BUDGET_PERIODS: tuple[str, ...] = (*PERIOD_KINDS, USAGE_PERIOD)
BUDGET_PERIOD_TITLES: dict[str, str] = {**PERIOD_TITLES, USAGE_PERIOD: "Usage period"}
TEAM = "team"  # how a team budget's scope begins: "team Web"
Status = Literal["ok", "warning", "exceeded", "unknown key"]
STATUS_ORDER: tuple[Status, ...] = ("ok", "unknown key", "warning", "exceeded")
EVALUATION_COLUMNS = [
    "budget", "scope", "metric", "period", "unit", "limit", "used", "used %",
    "projected", "projected %", "overrun", "reached", "status", "note",
]  # fmt: skip


class BudgetFileError(ValueError):
    """The budgets file cannot be read or breaks a rule; the message names the file and entry."""


def _check_threshold(value: float) -> None:
    if not 0 < value <= 1:
        raise ValueError(f"warning_at must be in (0, 1], e.g. 0.8 for 80 %, not {value}")


class Budget(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One limit. ``key`` is a key label or a masked key, ``team`` a team of the teams file;
    without either the budget is org-wide. ``enforce`` asks the guardrails to hold it.

    A plan budget names neither key, team, period nor limit: the plan's character limit over
    its billing period is the limit."""

    metric: str
    # Unset rather than None: a TOML file has no null, so errors name only the types it can give.
    period: str | msgspec.UnsetType = msgspec.UNSET
    limit: float | msgspec.UnsetType = msgspec.UNSET
    key: str | None = None
    team: str | None = None
    warning_at: float | None = None
    name: str = ""
    enforce: bool = False

    def __post_init__(self) -> None:
        if self.metric == PLAN:
            given = [
                name
                for name, value in (
                    ("period", self.period),
                    ("limit", self.limit),
                    ("key", self.key),
                    ("team", self.team),
                )
                if value not in (None, msgspec.UNSET)
            ]
            if given:
                raise ValueError(
                    f"a plan budget takes its limit and billing period from the plan, for the "
                    f"whole organization: remove {' and '.join(given)}"
                )
        elif self.metric not in (*METRICS, COST):
            raise ValueError(
                f"unknown metric {self.metric!r}; expected one of {', '.join(METRICS)}, "
                f"{COST} or {PLAN}"
            )
        else:
            self._check_usage_budget()
        if self.warning_at is not None:
            _check_threshold(self.warning_at)

    def _check_usage_budget(self) -> None:
        if self.period is msgspec.UNSET:
            raise ValueError("missing required field `period` (month, quarter or year)")
        if self.period not in BUDGET_PERIODS:
            raise ValueError(
                f"unknown period {self.period!r}; expected one of {', '.join(BUDGET_PERIODS)}"
            )
        if self.limit is msgspec.UNSET:
            raise ValueError("missing required field `limit`")
        if not math.isfinite(self.limit) or self.limit < 0:
            raise ValueError(f"limit must be a finite number ≥ 0, not {self.limit}")
        if self.key is not None and not self.key.strip():
            raise ValueError("key must name a key label or a masked key; omit it for the org")
        if self.team is not None and not self.team.strip():
            raise ValueError("team must name a team of the teams file; omit it for the org")
        if self.key is not None and self.team is not None:
            raise ValueError("a budget names a key or a team, not both")

    @property
    def is_plan(self) -> bool:
        return self.metric == PLAN

    @property
    def is_cost(self) -> bool:
        return self.metric == COST

    @property
    def over_usage_period(self) -> bool:
        """Whether the budget's period is the usage period (the billing period)."""
        return self.period == USAGE_PERIOD

    @property
    def kind(self) -> PeriodKind:
        """The calendar period of a usage budget as its literal type (checked on parsing); a
        usage-period budget has none (``over_usage_period``)."""
        if self.over_usage_period:
            raise ValueError(f"the budget {self.title!r} runs over the usage period")
        return PERIOD_KINDS[PERIOD_KINDS.index(str(self.period))]

    @property
    def fixed_limit(self) -> float:
        """The limit a usage budget names (checked on parsing); plan budgets name none."""
        if self.limit is msgspec.UNSET:
            raise ValueError(f"the {self.metric} budget {self.title!r} names no limit")
        return self.limit

    @property
    def scope(self) -> str:
        if self.team is not None:
            return f"{TEAM} {self.team}"
        return self.key or ORGANIZATION

    @property
    def identity(self) -> str:
        """What the budget is, in the file's own words: stable across versions of the
        dashboard, so alerts already sent for it are recognized."""
        if self.name:
            return self.name
        if self.is_plan:
            return f"{ORGANIZATION} · plan characters · billing period"
        return f"{self.scope} · {self.metric} · {BUDGET_PERIOD_TITLES[str(self.period)].lower()}"

    @property
    def title(self) -> str:
        """How tables, reports and alerts name the budget: its name, else what it caps in the
        words the pages use ("Text translation characters", not the metric's field name)."""
        if self.name or self.is_plan:
            return self.identity
        what = "Cost" if self.is_cost else METRIC_LABELS[self.metric]
        return f"{self.scope} · {what} · {BUDGET_PERIOD_TITLES[str(self.period)].lower()}"


class GuardrailSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """How the guardrails share an enforced budget out (``[guardrails]``; see the Guardrails
    page for why these defaults). The **reserve** is held back below each key's share: the
    service refuses a key once its count has reached its limit but serves the request that
    crosses it, so a request no larger than the reserve never carries a key past its share.
    The **floor** is the least room a quiet key is given above its count while the budget has
    room for it, so that a key without a forecast is not locked out."""

    reserve_characters: int = 5_000
    reserve_minutes: float = 1.0
    floor_characters: int = 10_000
    floor_minutes: float = 5.0

    def __post_init__(self) -> None:
        for name in ("reserve_characters", "reserve_minutes", "floor_characters", "floor_minutes"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number ≥ 0, not {value}")


class BudgetFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The whole file: defaults, the ``[[budget]]`` entries and how enforced ones are shared
    out (``[guardrails]``)."""

    budgets: tuple[Budget, ...] = msgspec.field(default=(), name="budget")
    warning_at: float = DEFAULT_WARNING
    contract_year_start: str = "01-01"
    guardrails: GuardrailSettings = msgspec.field(default_factory=GuardrailSettings)

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

    @property
    def cost_budgets(self) -> tuple[Budget, ...]:
        return tuple(b for b in self.budgets if b.is_cost)

    @property
    def plan_budgets(self) -> tuple[Budget, ...]:
        return tuple(b for b in self.budgets if b.is_plan)

    @property
    def usage_period_budgets(self) -> tuple[Budget, ...]:
        return tuple(b for b in self.budgets if b.over_usage_period)

    @property
    def enforced(self) -> tuple[Budget, ...]:
        """The budgets marked ``enforce = true``, in the file's order."""
        return tuple(b for b in self.budgets if b.enforce)


def parse_budgets(text: str, source: str = "budgets.toml") -> BudgetFile:
    """Parse TOML text; every problem becomes a ``BudgetFileError`` naming ``source``."""
    return parse_toml(text, source, BudgetFile, BudgetFileError)


def load_budgets(path: Path | str) -> BudgetFile:
    """Read and parse a budgets file."""
    return parse_budgets(read_text(path, BudgetFileError), str(path))


@dataclass(frozen=True)
class Evaluation:
    """A budget measured against usage on closed days before ``as_of``, or (a plan budget)
    against the plan's counts of the billing period."""

    budget: Budget
    threshold: float
    limit: float | None  # None: the plan has no character limit
    start: date | None  # None: the service reports no billing period (free plan)
    end: date | None
    used: float
    projected: float
    low: float
    high: float
    overrun: date | None  # first day the (actual, then expected) cumulative usage reaches the limit
    status: Status
    keys: tuple[str, ...]  # masked keys the budget matched
    note: str = ""

    @property
    def used_share(self) -> float:
        return _share(self.used, self.limit)

    @property
    def projected_share(self) -> float:
        return _share(self.projected, self.limit)

    @property
    def period_text(self) -> str:
        if self.start is None or self.end is None:
            return "billing period (not reported)"
        return range_text(self.start, self.end)

    @property
    def reach_text(self) -> str:
        """The day the limit is reached, so far or at the current run rate, or that it is not
        reached within the period; "-" for a budget without a limit or not evaluated."""
        if self.limit is None or self.status == "unknown key" or math.isnan(self.projected):
            return "-"
        if self.overrun is None:
            return "not within the period"
        when = "reached" if reaches(self.used, self.limit) else "projected"
        return f"{self.overrun:%Y-%m-%d} ({when})"

    def unit(self, currency: str = "") -> str:
        """What limit, used and projected count: characters, minutes, or the currency."""
        if self.budget.is_cost:
            return currency
        return "minutes" if is_minutes(self.budget.metric) else "characters"


def _share(value: float, limit: float | None) -> float:
    if limit is None:
        return math.nan
    if limit > 0:
        return value / limit
    return math.inf if value > 0 else 0.0


def matching_keys(key_day: pd.DataFrame, key: str) -> tuple[str, ...]:
    """Masked keys whose label or masked key equals ``key`` (a shared label matches them all)."""
    hit = (key_day["api_key"].astype(str) == key) | (key_day["api_key_label"].astype(str) == key)
    return tuple(sorted(key_day.loc[hit, "api_key"].astype(str).unique()))


def status_for(used: float, projected: float, limit: float, threshold: float) -> Status:
    """``exceeded`` when the limit is used up, ``warning`` when used or projected reaches it."""
    if reaches(used, limit):
        return "exceeded"
    reach = max(used, projected)
    if reach > 0 and reach >= threshold * limit:
        return "warning"
    return "ok"


def budget_period(
    budget: Budget, as_of: date, year_start: YearStart, usage_period: tuple[date, date] | None
) -> tuple[date, date] | None:
    """The days of a usage or cost budget's period holding ``as_of``: its calendar period, or
    the usage period the service reported (None when it reported none)."""
    if budget.over_usage_period:
        return usage_period
    return period_bounds(budget.kind, as_of, year_start)


def budget_keys(
    budget: Budget, key_day: pd.DataFrame, teams: Mapping[str, str] | None
) -> tuple[str, ...] | None:
    """The masked keys a key or team budget matches (a team's by ``teams``, masked key →
    team); () for the organization; None for a team budget without the keys' teams."""
    if budget.key is not None:
        return matching_keys(key_day, budget.key)
    if budget.team is not None:
        if teams is None:
            return None
        return tuple(sorted(k for k, team in teams.items() if team == budget.team))
    return ()


def evaluate(
    budgets: BudgetFile,
    key_day: pd.DataFrame,
    as_of: date,
    covered_from: date,
    prices: Prices | None = None,
    *,
    usage_period: tuple[date, date] | None = None,
    teams: Mapping[str, str] | None = None,
) -> list[Evaluation]:
    """Evaluate every usage and cost budget for the period holding ``as_of`` (days before it
    are closed); plan budgets are ``evaluate_plan``'s. ``usage_period`` is the billing period
    the service reports (for usage-period budgets), ``teams`` each masked key's team (for
    team budgets).

    ``key_day`` must cover ``covered_from`` up to the day before ``as_of``; use
    ``analytics.forecast.required_start`` for the earliest day the evaluation reads.
    """
    results = []
    for budget in budgets.budgets:
        if budget.is_plan:
            continue
        threshold = budgets.threshold(budget)
        limit = budget.fixed_limit
        span = budget_period(budget, as_of, budgets.year_start, usage_period)
        keys = budget_keys(budget, key_day, teams)
        if span is not None and keys == () and (budget.key or budget.team) is not None:
            start, end = span
            results.append(
                Evaluation(
                    budget, threshold, limit, start, end, 0, 0, 0, 0, None, "unknown key", keys
                )
            )
            continue
        unread = (
            "the usage period was not read"
            if span is None
            else "the keys' teams were not read"
            if keys is None
            else "no pricing file: cost not evaluated"
            if budget.is_cost and prices is None
            else ""
        )
        if unread:
            nan = math.nan
            first, last = (None, None) if span is None else span
            results.append(
                Evaluation(
                    budget,
                    threshold,
                    limit,
                    first,
                    last,
                    nan,
                    nan,
                    nan,
                    nan,
                    None,
                    "ok",
                    keys or (),
                    note=unread,
                )
            )
            continue
        assert span is not None and keys is not None
        start, end = span
        if budget.is_cost:
            assert prices is not None
            path = cost_path(key_day, keys, (start, end, as_of, covered_from), prices)
            unpriced = prices.unpriced(start, end)
            note = f"{unpriced}: cost of the priced days only" if unpriced else ""
        else:
            note = ""
            series = daily_series(key_day, budget.metric, keys or None)
            path = projection_path(
                series, start, end, run_rate(series, as_of, covered_from), covered_from
            )
        closed = path["actual"].dropna()
        used = float(closed.iloc[-1]) if len(closed) else 0.0
        projected = float(path["expected"].iloc[-1])
        reached = path.loc[path["expected"] >= limit, "day"]
        overrun = reached.iloc[0].date() if limit > 0 and len(reached) else None
        results.append(
            Evaluation(
                budget=budget,
                threshold=threshold,
                limit=limit,
                start=start,
                end=end,
                used=used,
                projected=projected,
                low=float(path["low"].iloc[-1]),
                high=float(path["high"].iloc[-1]),
                overrun=overrun,
                status=status_for(used, projected, limit, threshold),
                keys=keys,
                note=note,
            )
        )
    return results


def evaluate_plan(budgets: BudgetFile, plan: PlanSnapshot) -> list[Evaluation]:
    """Evaluate the plan budgets against the plan's characters in its billing period: used is
    the service's count, projected the snapshot's (used alone when there is no projection)."""
    characters = plan.characters
    limit = characters.limit
    used = float(characters.used)
    projected = used if characters.projected is None else characters.projected
    note = ""
    if limit is None:
        note = "the plan has no character limit"
    elif characters.projected is None:
        note = "no projection: the service reports no billing period"
    period = plan.period
    results = []
    for budget in budgets.plan_budgets:
        threshold = budgets.threshold(budget)
        results.append(
            Evaluation(
                budget=budget,
                threshold=threshold,
                limit=limit,
                start=None if period is None else period.start,
                end=None if period is None else period.end,
                used=used,
                projected=projected,
                # The plan's projection is anchored on the service's count: it has no band.
                low=projected,
                high=projected,
                overrun=characters.reached,
                status="ok" if limit is None else status_for(used, projected, limit, threshold),
                keys=(),
                note=note,
            )
        )
    return results


def in_file_order(budgets: BudgetFile, *groups: Iterable[Evaluation]) -> list[Evaluation]:
    """Evaluations of usage and plan budgets together, in the order the file lists them."""
    evaluations = [e for group in groups for e in group]
    return sorted(evaluations, key=lambda e: budgets.budgets.index(e.budget))


def worst(evaluations: Iterable[Evaluation]) -> Status:
    """The most serious status (``ok`` for none)."""
    return max((e.status for e in evaluations), key=STATUS_ORDER.index, default="ok")


def evaluation_frame(evaluations: Sequence[Evaluation], currency: str = "") -> pd.DataFrame:
    """One display row per budget, for tables, the CLI and the report; cost budgets count in
    ``currency`` (the pricing file's)."""
    return pd.DataFrame(
        [
            {
                "budget": e.budget.title,
                "scope": e.budget.scope,
                "metric": e.budget.metric,
                "period": e.period_text,
                "unit": e.unit(currency),
                "limit": math.nan if e.limit is None else e.limit,
                "used": e.used,
                "used %": 100 * e.used_share,
                "projected": e.projected,
                "projected %": 100 * e.projected_share,
                "overrun": e.overrun,
                "reached": e.reach_text,
                "status": e.status,
                "note": e.note,
            }
            for e in evaluations
        ],
        columns=EVALUATION_COLUMNS,
    )
