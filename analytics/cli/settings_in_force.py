"""The organization's settings a command reads: prices and teams (the costing), budgets, alerts and
the rotations' watch (the alert routes' ``[rotations]``), each through the one reader of the
settings in force (`settings.in_force`: a file given, else the state store, or the files found
with ``SETTINGS_SOURCE=files``), so a command reads what every page reads. A bad document is one
error line (exit 2), an enforced budget no key limit can hold included."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from analytics.access import WHOLE_ORGANIZATION, Scope, Visible
from analytics.alerts.alerts_file import AlertsConfig, Rotations, parse_alerts, rotation_settings
from analytics.capacity.budgets import (
    BudgetSettings,
    BudgetSettingsError,
    Evaluation,
    PlanReader,
    budget_status,
)
from analytics.cli.connecting import service_connection
from analytics.cli.failures import UsageProblem
from analytics.cost.priced import PricesInForce
from analytics.cost.prices import Pricing, parse_pricing
from analytics.cost.teams import NO_TEAMS, Teams, frame_key_teams, parse_teams
from analytics.exports.shaping import Costing
from analytics.settings.in_force import Document, Place, document
from analytics.settings.parts import Part, checked_budgets
from analytics.usage.pipeline import FetchedRange
from analytics.usage.records import records_of


def place(demo: bool) -> Place:
    """Where this command's settings are: the source set, the account's records, the working
    folder."""
    given = service_connection()
    return Place(given.settings_source, records_of(given, demo), Path.cwd(), demo)


def command_document(part: Part, given: Path | None, demo: bool) -> Document | None:
    """``part`` as this command reads it: ``given``, else the settings in force."""
    return document(part, place(demo), given)


def costing(pricing: Path | None, teams: Path | None, demo: bool) -> Costing:
    """The prices and teams in force; none means usage only. A bad one is one error line
    (exit 2)."""
    prices_text = command_document("pricing", pricing, demo)
    teams_text = command_document("teams", teams, demo)
    prices: Pricing | None = (
        parse_pricing(prices_text.text, prices_text.where) if prices_text else None
    )
    cost_centres: Teams | None = (
        parse_teams(teams_text.text, teams_text.where) if teams_text else None
    )
    return Costing(prices, cost_centres)


def visible(team: str | None, given: Costing) -> Visible:
    """What a command shows: the whole organization, or with ``--team`` that team of the
    teams settings in force (``given``'s), as its lead sees it. A team they do not have (or
    no teams settings at all) is a usage problem naming the teams there are."""
    if team is None:
        return Visible(WHOLE_ORGANIZATION, given.teams or NO_TEAMS)
    teams = given.teams
    if teams is None:
        raise UsageProblem(f"--team {team!r} needs teams settings: give --teams FILE")
    names = [found.name for found in teams.teams]
    if team not in names:
        raise UsageProblem(
            f"--team {team!r} is no team of {teams.source}; its teams are {', '.join(names)}"
        )
    return Visible(Scope(frozenset({team})), teams)


def capacity_prices(given: Costing, budgets: BudgetSettings | None) -> PricesInForce | None:
    """How budgets and the report price usage (and share spend between teams); cost budgets
    without a pricing file are a usage problem."""
    if given.pricing is None:
        if budgets is not None and budgets.cost_budgets:
            raise UsageProblem("cost budgets need a pricing file: give --pricing FILE")
        return None
    return PricesInForce(given.pricing, given.teams)


def priced_status(
    reader: PlanReader, budgets: BudgetSettings, costing: Costing, today: date
) -> tuple[list[Evaluation], FetchedRange]:
    """Every budget's status as ``check-budgets`` prints it and the report shows it
    (``budget_status``): priced with the prices in force, a team budget over its team's keys."""
    prices = capacity_prices(costing, budgets)
    return budget_status(reader, budgets, today, prices, frame_key_teams(costing.teams))


def budgets(given: Path | None, demo: bool) -> BudgetSettings | None:
    """The budgets in force, None without any. A budget marked ``enforce = true`` that no key
    limit can hold stops the command (exit 2) naming it, so a timer notices."""
    found = command_document("budgets", given, demo)
    if found is None:
        return None
    try:
        return checked_budgets(found.text, found.where)
    except BudgetSettingsError as exc:
        raise UsageProblem(str(exc)) from None


def alerts(given: Path | None, option: str) -> AlertsConfig:
    """The alert routes in force; their secrets come from the environment."""
    found = command_document("alerts", given, demo=False)
    if found is None:
        raise UsageProblem(
            f"{option} needs an alerts file: alerts.toml in the working folder or --alerts FILE "
            "(see alerts.example.toml)"
        )
    return parse_alerts(found.text, found.where, os.environ)


def rotations(given: Path | None, demo: bool) -> Rotations:
    """The rotations' quiet days, reminder days and maximum key age in force (the alert
    routes' ``[rotations]``; their defaults without alert routes), read without the routes'
    secrets."""
    found = command_document("alerts", given, demo)
    return Rotations() if found is None else rotation_settings(found.text, found.where)
