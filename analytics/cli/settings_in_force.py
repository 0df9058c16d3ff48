"""The organization's settings a command reads, built once from its options
(`command_settings`): the one object of the settings in force (`settings.in_force`: a file
given, else the state store, or the files found with ``SETTINGS_SOURCE=files``), so a command
reads what every page reads, each document parsed once. From it: the costing (prices and
teams), the budgets, the alert routes and the rotations' watch (their ``[rotations]``). A bad
document is one error line (exit 2), an enforced budget no key limit can hold included."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from analytics.access import WHOLE_ORGANIZATION, Scope, Visible
from analytics.alerts import AlertsConfig
from analytics.capacity import (
    BudgetSettings,
    BudgetSettingsError,
    Evaluation,
    PlanReader,
    budget_status,
)
from analytics.cli.connecting import service_connection
from analytics.cli.failures import UsageProblem
from analytics.cost import NO_TEAMS, PricesInForce, frame_key_teams
from analytics.exports import Costing
from analytics.settings import Part, Place, SettingsInForce, settings_in_force
from analytics.usage import FetchedRange, records_of


def place(demo: bool) -> Place:
    """Where this command's settings are: the source set, the account's records, the working
    folder."""
    given = service_connection()
    return Place(given.settings_source, records_of(given, demo), Path.cwd(), demo)


def command_settings(
    demo: bool,
    pricing: Path | None = None,
    teams: Path | None = None,
    budgets: Path | None = None,
    alerts: Path | None = None,
) -> SettingsInForce:
    """The settings in force as this command reads them: each file its options name, else the
    one in force. Read once per command; each document is read when first used."""
    given: dict[Part, Path | None] = {
        "pricing": pricing,
        "teams": teams,
        "budgets": budgets,
        "alerts": alerts,
    }
    return settings_in_force(
        place(demo), {part: path for part, path in given.items() if path is not None}
    )


def costing(settings: SettingsInForce) -> Costing:
    """The prices and teams in force; none means usage only. A bad one is one error line
    (exit 2)."""
    return Costing(settings.pricing, settings.given_teams)


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


def budget_settings(settings: SettingsInForce) -> BudgetSettings | None:
    """The budgets in force, None without any. A budget marked ``enforce = true`` that no key
    limit can hold stops the command (exit 2) naming it, so a timer notices."""
    try:
        return settings.budgets
    except BudgetSettingsError as exc:
        raise UsageProblem(str(exc)) from None


def alerts(given: Path | None, option: str) -> AlertsConfig:
    """The alert routes in force, to send to; their secrets come from the environment. Never
    the demo's example routes: alerts go where the organization set them."""
    config = command_settings(False, alerts=given).alerts(os.environ)
    if config is None:
        raise UsageProblem(
            f"{option} needs an alerts file: alerts.toml in the working folder or --alerts FILE "
            "(see alerts.example.toml)"
        )
    return config
