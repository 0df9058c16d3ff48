"""Usage budgets from ``budgets.toml``: what a budget says, parsed and checked (each one measured
against usage by ``evaluation``).

A budget caps one metric over a month, a calendar quarter, the contract year or the usage period
(``period = "usage"``: the billing period as the service reports it, over which each key's own
limits count), for the whole organization, one team of the teams file (``team``) or one key
(named by its label or its masked key). ``enforce = true`` asks ``analytics.guardrails`` to hold
the budget with the keys' own limits; here it is only read. A **plan budget**
(``metric = "plan"``) instead warns before the plan's own character limit is used up in the
current billing period; its limit and period are the plan's (``billing``).

A **cost budget** (``metric = "cost"``) caps what the period costs, in the pricing file's
currency, for the organization (usage and base fee) or one key (its share of the
organization's usage lines).
"""

from __future__ import annotations

import math
from pathlib import Path

import msgspec

from analytics.capacity.budgets.costs import COST
from analytics.capacity.forecasting import ORGANIZATION
from analytics.storage import parse_toml, read_text
from analytics.usage import (
    METRIC_LABELS,
    METRICS,
    PERIOD_KINDS,
    PERIOD_TITLES,
    PeriodKind,
    YearStart,
)

DEFAULT_WARNING = 0.8
PLAN = "plan"  # the metric of a plan budget
USAGE_PERIOD = "usage"  # the period of a budget over the billing period, the keys' usage period
BUDGET_PERIODS: tuple[str, ...] = (*PERIOD_KINDS, USAGE_PERIOD)
BUDGET_PERIOD_TITLES: dict[str, str] = {**PERIOD_TITLES, USAGE_PERIOD: "Usage period"}
TEAM = "team"  # how a team budget's scope begins: "team Web"


class BudgetSettingsError(ValueError):
    """The budgets settings cannot be read or break a rule; the message names their source (the
    file, or the document in the state store) and the entry."""


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
            raise ValueError(
                f"missing required field `period`; expected one of {', '.join(BUDGET_PERIODS)}"
            )
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


class BudgetSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The budgets settings, one document (a file, or a version in the state store): defaults,
    the ``[[budget]]`` entries and how enforced ones are shared out (``[guardrails]``)."""

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


def contract_year(budgets: BudgetSettings | None) -> YearStart:
    """The contract year every surface reads: the budgets file's ``contract_year_start``, the
    calendar year without a file. The page, the report, ``check-budgets`` and ``capacity
    recommend`` ask this one function of the same file in force, so none of them can end the
    contract year on another day."""
    return YearStart() if budgets is None else budgets.year_start


def parse_budgets(text: str, source: str = "budgets.toml") -> BudgetSettings:
    """Parse TOML text; every problem becomes a ``BudgetSettingsError`` naming ``source``."""
    return parse_toml(text, source, BudgetSettings, BudgetSettingsError)


def load_budgets(path: Path | str) -> BudgetSettings:
    """Read and parse a budgets file."""
    return parse_budgets(read_text(path, BudgetSettingsError), str(path))
