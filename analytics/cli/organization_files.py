"""The configuration files a command reads: prices and teams (the costing), budgets and
alerts. Each is found the same way (given, else in the working folder, else the example in
demo mode) and a bad one is one error line (exit 2)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from analytics.alerts.config import AlertsConfig, load_alerts
from analytics.capacity.budgets import BudgetFile, BudgetFileError, load_budgets
from analytics.capacity.costs import Prices
from analytics.cli.shared import UsageProblem
from analytics.cost.priced import PricesInForce
from analytics.cost.prices import Pricing, load_pricing
from analytics.cost.teams import Teams, key_teams, load_teams
from analytics.exports.shaping import Costing
from analytics.storage.bundle import organization_file
from analytics.usage.frames import labels


def costing(pricing: Path | None, teams: Path | None, demo: bool) -> Costing:
    """The money files in force: given, else found in the working folder, else (demo) the
    examples; none found means usage only. A bad file is one error line (exit 2)."""
    pricing_file = organization_file("pricing", pricing, Path.cwd(), demo)
    teams_file = organization_file("teams", teams, Path.cwd(), demo)
    prices: Pricing | None = load_pricing(pricing_file) if pricing_file else None
    cost_centres: Teams | None = load_teams(teams_file) if teams_file else None
    return Costing(prices, cost_centres)


def capacity_prices(given: Costing, budgets: BudgetFile | None) -> Prices | None:
    """How budgets and the report price usage (and share spend between teams); cost budgets
    without a pricing file are a usage problem."""
    if given.pricing is None:
        if budgets is not None and budgets.cost_budgets:
            raise UsageProblem("cost budgets need a pricing file: give --pricing FILE")
        return None
    return PricesInForce(given.pricing, given.teams)


def team_mapping(given: Costing) -> Callable[[pd.DataFrame], dict[str, str]] | None:
    """Each masked key of a key-day frame and its team, by the teams file in force (for team
    budgets); None without one."""
    teams = given.teams
    if teams is None:
        return None
    return lambda frame: key_teams(teams, labels(frame))


def budgets(path: Path) -> BudgetFile:
    try:
        return load_budgets(path)
    except BudgetFileError as exc:
        raise UsageProblem(str(exc)) from None


def alerts(given: Path | None, option: str) -> AlertsConfig:
    """The alerts file in force: given, else alerts.toml in the working folder; its secrets
    come from the environment."""
    path = organization_file("alerts", given, Path.cwd(), demo=False)
    if path is None:
        raise UsageProblem(
            f"{option} needs an alerts file: alerts.toml in the working folder or --alerts FILE "
            "(see alerts.example.toml)"
        )
    return load_alerts(path, os.environ)
