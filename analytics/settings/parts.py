"""The four settings documents and the one check of each.

A document is its TOML text: the text is what is stored, versioned, exported and compared, so
the same settings always give the same bytes. A document is valid exactly when the parser of
its file accepts it (``parse_pricing``, ``parse_teams``, ``parse_budgets`` and
``parse_alert_settings``), so the Settings page, ``settings import`` and every command reading a
file refuse the same things in the same words (the rotations' day counts of ``alerts.toml``
among them). Beyond its file's rules, a budget marked
``enforce = true`` that the keys' limits can never hold (``guardrails.rules.never_enforceable``)
is refused here, where it is set, instead of being reported "not enforced" at every run.

Given the organization (`organization_names.Organization`), the names a document gives are
checked too: a budget's key or team, a key owner's key, a team's claimed labels and tags that
do not exist are refused with the nearest existing name (`organization_names.unknown_names`),
on the page as by ``settings import``.

Alert routes name the environment variables holding their secrets, never the secrets: a route
whose variable is not set is refused when the alerts are sent
(``alerts.alert_settings.load_alerts``), not here, since the host that edits the settings need
not hold the secrets; `route_warning` says so before the save, in the words the sending would
use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal, get_args

from analytics.alerts import AlertSettingsError, parse_alert_settings, parse_alerts
from analytics.capacity import BudgetSettings, BudgetSettingsError, parse_budgets
from analytics.cost import PricingSettingsError, TeamSettingsError, parse_pricing, parse_teams
from analytics.guardrails import never_enforceable
from analytics.settings.organization_names import Organization, unknown_names

Part = Literal["pricing", "teams", "budgets", "alerts"]
PARTS: Final[tuple[Part, ...]] = get_args(Part)
TITLES: Final[dict[Part, str]] = {
    "pricing": "Prices",
    "teams": "Teams and key owners",
    "budgets": "Budgets",
    "alerts": "Alert routes",
}
# Each document named in a sentence by what it holds ("the budgets, version 3, …"), never by
# the word the settings store keys it with.
NAMES: Final[dict[Part, str]] = {
    "pricing": "the prices",
    "teams": "the teams",
    "budgets": "the budgets",
    "alerts": "the alert routes",
}


class SettingsProblem(ValueError):
    """A settings document breaks a rule of its file: one line naming where and the field."""


def file_name(part: Part) -> str:
    """The file that holds ``part`` on disk: ``pricing.toml``, ``teams.toml``, …"""
    return f"{part}.toml"


def part_of(name: str) -> Part:
    """The part a file holds, by its name (``teams.toml``, ``teams.example.toml``,
    ``/etc/usage/budgets.toml``): its first word."""
    stem = name.replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0]
    for part in PARTS:
        if stem == part:
            return part
    known = ", ".join(file_name(p) for p in PARTS)
    raise SettingsProblem(f"{name}: not a settings file; the settings files are {known}")


def enforce_problems(budgets: BudgetSettings, source: str) -> list[str]:
    """One line per budget marked ``enforce = true`` that no key limit can ever hold, naming
    the entry, why, and what to use instead."""
    return [
        f"{source}: [[budget]] #{index + 1} (enforce): {budget.title} cannot be enforced: {why}"
        for index, budget in enumerate(budgets.budgets)
        if budget.enforce and (why := never_enforceable(budget)) is not None
    ]


def checked_budgets(text: str, source: str) -> BudgetSettings:
    """The budgets of ``text``, every rule of the budgets file and the enforce rule checked."""
    budgets = parse_budgets(text, source)
    problems = enforce_problems(budgets, source)
    if problems:
        raise BudgetSettingsError("; ".join(problems))
    return budgets


def check(
    part: Part,
    text: str,
    source: str | None = None,
    organization: Organization | None = None,
    before: str | None = None,
) -> None:
    """Nothing when ``text`` is a valid ``part`` (naming only what ``organization`` has, when
    given, or what ``before``, the version in force, named already); else one
    `SettingsProblem` in the words of its file's own error, naming ``source`` (by default the
    part's file name)."""
    where = source or file_name(part)
    try:
        if part == "pricing":
            parse_pricing(text, where)
        elif part == "teams":
            parse_teams(text, where)
        elif part == "budgets":
            checked_budgets(text, where)
        else:
            parse_alert_settings(text, where)
    except (
        PricingSettingsError,
        TeamSettingsError,
        BudgetSettingsError,
        AlertSettingsError,
    ) as exc:
        raise SettingsProblem(str(exc)) from None
    unknown = [] if organization is None else unknown_names(part, text, organization, before)
    if unknown:
        raise SettingsProblem("; ".join(f"{where}: {line}" for line in unknown))


def route_warning(part: Part, text: str, environ: Mapping[str, str]) -> str | None:
    """For valid alert routes, the first route this host cannot send to (a variable it names
    unset), in the words the sending would refuse it with; None when every route can be sent
    to, or for another part. A warning, not a refusal: the host that sends may hold them."""
    if part != "alerts":
        return None
    try:
        parse_alerts(text, file_name(part), environ)
    except AlertSettingsError as exc:
        return f"{exc}: alerts to it are refused when they are sent, until it is set"
    return None
