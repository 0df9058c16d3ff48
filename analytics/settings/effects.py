"""What a settings change would do, beyond its fields: the effect a Settings page's preview
states before anything is saved, computed by the same functions the commands use, so the
preview is what `export --group-by team --with-cost` and `guardrails plan` give after the save.

- teams: each team's keys (those that used the service in the range), then and now, and its
  chargeback (`cost.chargeback`, usage cost and base fee share) before → after;
- prices: the organization's cost of the range before → after;
- budgets: the guardrails plan's limit changes before → after (`guardrails.plan`), and each
  enforced budget whose keys will all be stopped (`guardrails.plan_tables.stopping`);
- alert routes: where alerts go before → after.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

import pandas as pd

from analytics.alerts import AlertSettings, parse_alert_settings
from analytics.cost import NO_TEAMS, UNASSIGNED, Pricing, Teams, as_decimal, chargeback, key_teams
from analytics.guardrails import Plan, stopping
from analytics.settings.parts import file_name
from analytics.usage import counted, labels


@dataclass(frozen=True)
class TeamEffect:
    """One team (or Unassigned) before → after: its keys and its chargeback of the range."""

    team: str
    keys_before: int
    keys_after: int
    amount_before: Decimal
    amount_after: Decimal
    currency: str

    @property
    def text(self) -> str:
        """ "Web shop then holds 4 keys (3 now); its chargeback 120.40 → 240.80 EUR"."""
        held = f"{self.team} then holds {counted(self.keys_after, 'key')} ({self.keys_before} now)"
        if not self.currency:
            return held
        return (
            f"{held}; its chargeback {self.amount_before:,} → {self.amount_after:,} {self.currency}"
        )


def team_amounts(
    key_day: pd.DataFrame, pricing: Pricing, teams: Teams | None, start: date, end: date
) -> dict[str, Decimal]:
    """Each team's chargeback of ``start``–``end`` (usage cost and base fee share, in the
    currency): the per-team sums of the chargeback `export --group-by team --with-cost` writes."""
    bill = chargeback(key_day, pricing, teams or NO_TEAMS, start, end)
    minor = bill.table.groupby("team", observed=False)["amount_minor"].sum()
    return {str(team): as_decimal(int(value), bill.currency) for team, value in minor.items()}


def _keys(key_day: pd.DataFrame, teams: Teams | None) -> Counter[str]:
    return Counter(key_teams(teams or NO_TEAMS, labels(key_day)).values())


def team_effects(
    key_day: pd.DataFrame,
    pricing: Pricing | None,
    before: Teams | None,
    after: Teams,
    start: date,
    end: date,
) -> list[TeamEffect]:
    """Every team of either version, then Unassigned, whose keys or chargeback change."""
    gone = [name for name in (before.names[:-1] if before else ()) if name not in after.names]
    names = [*after.names[:-1], *gone, UNASSIGNED]
    keys_before, keys_after = _keys(key_day, before), _keys(key_day, after)
    # A team without keys before (or after) has no chargeback row: nothing, in the currency's
    # decimals ("0.00 → 65.15 EUR", as every other amount of the preview).
    zero = Decimal(0) if pricing is None else as_decimal(0, pricing.currency)
    money_before: dict[str, Decimal] = {}
    money_after: dict[str, Decimal] = {}
    if pricing is not None:
        money_before = team_amounts(key_day, pricing, before, start, end)
        money_after = team_amounts(key_day, pricing, after, start, end)
    effects = [
        TeamEffect(
            name,
            keys_before[name],
            keys_after[name],
            money_before.get(name, zero),
            money_after.get(name, zero),
            "" if pricing is None else pricing.currency,
        )
        for name in names
    ]
    return [
        e for e in effects if (e.keys_before, e.amount_before) != (e.keys_after, e.amount_after)
    ]


def total_cost(
    key_day: pd.DataFrame, pricing: Pricing, teams: Teams | None, start: date, end: date
) -> Decimal:
    """The organization's cost of ``start``–``end``, base fee included (the Chargeback
    page's Total)."""
    return chargeback(key_day, pricing, teams or NO_TEAMS, start, end).total_amount


def plan_changes(plan: Plan) -> list[str]:
    """The limit changes the plan would send, one line each, as `guardrails plan` prints them:
    ``label (masked key id): characters 10,000 → 40,000``."""
    return [f"{k.name}: {k.change_text}" for k in plan.changes]


def plan_effect(before: Plan, after: Plan) -> list[str]:
    """What the guardrails would do after the change, beside what they would do now: the
    changes they would send then (each key whose plan differs marked), the budgets refused,
    and each budget that will stop every key of it."""
    now = dict(zip((k.key.key_id for k in before.changes), plan_changes(before), strict=True))
    then = plan_changes(after)
    lines = [
        f"The guardrails plan: {counted(len(now), 'limit change')} to send now, "
        f"{len(then):,} after the change" + (":" if then else "")
    ]
    lines += [
        f"  {line}" + ("" if now.get(k.key.key_id) == line else " (new)")
        for k, line in zip(after.changes, then, strict=True)
    ]
    lines += [f"refused: {line}" for line in after.refusals if line not in before.refusals]
    lines += stopping(after)
    return lines


def _destinations(routes: AlertSettings) -> str:
    names = (["e-mail"] if routes.email else []) + [
        f"{hook.title} ({hook.kind})" for hook in routes.webhooks
    ]
    return ", ".join(names)


def route_effects(before: str | None, after: str) -> list[str]:
    """What a change of the alert routes does: where alerts go, before → after (whether this
    host can send to them is the warning beside it, ``parts.route_warning``)."""
    source = file_name("alerts")
    went = "nowhere" if before is None else _destinations(parse_alert_settings(before, source))
    going = _destinations(parse_alert_settings(after, source))
    return [f"alerts go to: {going}" if went == going else f"alerts go to: {went} → {going}"]
