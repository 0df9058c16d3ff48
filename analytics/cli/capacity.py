"""`capacity backtest` and `capacity recommend`: the capacity decision on the command line,
the forecasts' measured accuracy on the organization's own history and the option to buy for
the next term (``analytics.capacity.decision``). `recommend` reads the contract year from the
budgets file in force and today's plan from the service, as the Capacity page and the meeting
report do, so all three name the same year and the same plan."""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
import typer

from analytics.capacity import (
    DEFAULT_TERM,
    Costed,
    Decision,
    Outlook,
    accuracy_text,
    backtest_table,
    contract_year,
    period_text,
    plain_verdict,
    plan_sentence,
    read_outlooks,
    verdict,
)
from analytics.cli import command_output, connecting, failures, fetching, program, settings_in_force
from analytics.cli.failures import UsageProblem
from analytics.cli.json_output import json_text, table_json
from analytics.cli.options import DebugOption, DemoOption, PricingOption, TableOrJsonOption
from analytics.cli.program import app
from analytics.cli.what_ifs import (
    DEFAULT_RISK_TEXT,
    AddOption,
    GrowthOption,
    RiskOption,
    TermOption,
    asked,
    decided,
)
from analytics.cost import MINOR_UNITS, PricesInForce, estimate_text
from analytics.usage import (
    METRIC_LABELS,
    MINUTES,
    TOTAL_CHARACTERS,
    calendar,
    format_value,
    rounded,
    share_text,
)

capacity_app = program.command_group(
    app,
    "capacity",
    "The capacity decision: forecasts with their measured accuracy, and what to buy next.",
)


def _outlooks(demo: bool) -> dict[str, Outlook]:
    """The organization's outlooks from its whole history (the demo's span with --demo)."""
    connection = connecting.service_connection()
    reader = fetching.Fetches(connection, demo)
    return read_outlooks(reader, calendar.utc_today(), connection.demo_days if demo else None)


BudgetsOption = Annotated[
    Path | None,
    typer.Option(
        "--budgets",
        help="The budgets TOML file whose contract_year_start starts the contract year "
        "(default: budgets.toml here when present; the example with --demo; else 1 January), "
        "as the Capacity page and the report read it.",
    ),
]
# The contract year was once an option of its own, and so could differ from the page's and
# the report's; it is read from the budgets file alone now, and the old option says so.
YearStartOption = Annotated[str | None, typer.Option("--year-start", hidden=True)]


@capacity_app.command("backtest")
def backtest(
    budgets: BudgetsOption = None,
    fmt: TableOrJsonOption = "table",
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Print how wrong the forecast and each candidate behind it have been on the
    organization's own history, from each month start of the last 24 months, per horizon
    (the month, quarter and 12 months ahead): WAPE, and the share of actual totals inside the
    80 % and 95 % intervals. `*` marks the candidate serving each horizon now; the `forecast`
    rows are the one forecast every projection uses, as it was served then (the candidate
    chosen for that horizon from the errors known at each month start). Its month-ahead WAPE
    is the forecast's one accuracy figure, which the table ends with, per metric, in the
    sentence the Capacity page and the report state, naming the contract year of the budgets
    file in force as they do."""
    with failures.reported(debug):
        settings = settings_in_force.command_settings(demo, budgets=budgets)
        contract = contract_year(settings_in_force.budget_settings(settings))
        found = _outlooks(demo)
        table = backtest_table(found)
        if fmt == "json":
            typer.echo(table_json(table))
            return
        rows = [["metric", "candidate", "horizon", "scored", "WAPE", "in 80 %", "in 95 %"]]
        for row in _records(table):
            rows.append(
                [
                    METRIC_LABELS[row["metric"]],
                    f"{row['candidate']}{' *' if row['chosen'] else ''}",
                    str(row["horizon"]),
                    str(row["scored"]),
                    _share(row["wape"]),
                    _share(row["coverage_80"]),
                    _share(row["coverage_95"]),
                ]
            )
        for line in command_output.aligned(rows):
            typer.echo(line)
        typer.echo("")
        for metric, outlook in found.items():
            typer.echo(f"{METRIC_LABELS[metric]}: {accuracy_text(outlook, contract)}")


@capacity_app.command("recommend")
def recommend(
    term: TermOption = DEFAULT_TERM,
    growth: GrowthOption = None,
    add: AddOption = None,
    risk: RiskOption = DEFAULT_RISK_TEXT,
    budgets: BudgetsOption = None,
    year_start: YearStartOption = None,
    pricing: PricingOption = None,
    fmt: TableOrJsonOption = "table",
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Forecast the term's usage across its backtested range and price today's plan (the
    service's, at the prices in force) and every option of the pricing file's catalogue on
    it: the expected cost, the chance of overage, the expected unused volume; recommend the
    cheapest within the risk setting (10 % by default). A what-if outside the plausible range
    is named on stderr, and the answer without the what-ifs is shown beside theirs."""
    with failures.reported(debug):
        given = asked(term, growth, add, risk)
        if year_start is not None:
            raise UsageProblem(
                "--year-start is no longer read: the contract year is the budgets file's "
                "contract_year_start, as on the Capacity page and in the report (give --budgets "
                "FILE)"
            )
        settings = settings_in_force.command_settings(demo, pricing, budgets=budgets)
        budget_settings = settings_in_force.budget_settings(settings)
        prices = settings.pricing
        if prices is None or not prices.catalogue:
            where = f"{prices.source} has no [[option]] entries" if prices else "no pricing file"
            raise UsageProblem(
                f"recommend weighs the pricing file's catalogue, and {where}: give --pricing "
                "FILE with [[option]] entries (see pricing.example.toml)"
            )
        reader = fetching.Fetches(connecting.service_connection(), demo)
        contract, cost = contract_year(budget_settings), PricesInForce(prices)
        decision = decided(reader, calendar.utc_today(), prices.catalogue, given, contract, cost)
        for warning in decision.warnings:
            typer.echo(f"warning: {warning}", err=True)
        if fmt == "json":
            typer.echo(json_text(_as_json(decision, prices.currency)))
        else:
            for line in _decision_lines(decision, prices.currency):
                typer.echo(line)


def _share(value: float | None) -> str:
    return share_text(None if value is None or math.isnan(value) else value)


def _money(value: float, currency: str) -> str:
    """An amount in the currency, to its minor unit, as the meeting report writes it."""
    return estimate_text(value, currency)


def _decision_lines(decision: Decision, currency: str) -> list[str]:
    """The forecasts, the options and the recommendation as people read them: whole
    characters, minutes to the hundredth, amounts in the currency; with what-ifs, the
    projection and the recommendation without them beside."""
    money = partial(_money, currency=currency)
    lines = [f"What-ifs: {decision.what_if}", ""]
    plain = decision.plain is not None
    rows = [["metric", "period", "used", "projected", *(["without what-ifs"] if plain else []),
             "80 % range", "95 % range", "model", "month-ahead error"]]  # fmt: skip
    for row in _records(decision.forecasts_beside_plain):
        rows.append(_forecast_row(row, plain))
    lines += command_output.aligned(rows)
    chosen = decision.recommendation.chosen
    first = decision.scenarios.months[0]
    lines += [""]
    if decision.plan is not None:
        lines += [f"{plan_sentence(decision.plan, money)}", ""]
    lines += [f"Options for the {decision.term} months from {first} ({currency}):"]
    rows = [["option", "term", "characters/month", "speech-to-text minutes/month",
             f"expected cost ({currency})", "chance of overage", "unused characters",
             "unused speech-to-text minutes", ""]]  # fmt: skip
    for costed in decision.recommendation.options:
        rows.append(_option_row(costed, currency, chosen))
    lines += command_output.aligned(rows)
    lines += [f"note: left out: {note}" for note in decision.recommendation.left_out]
    lines += ["", verdict(decision, money)]
    if (without := plain_verdict(decision, money)) is not None:
        lines.append(without)
    return lines


def _forecast_row(row: dict[str, Any], plain: bool) -> list[str]:
    metric = str(row["metric"])

    def value(name: str) -> str:
        return format_value(row[name], metric)

    return [
        METRIC_LABELS[metric],
        period_text(row["period"], row["end"]),
        value("used"),
        value("projected"),
        *([value("plain_projected")] if plain else []),
        f"{value('low_80')} – {value('high_80')}",
        f"{value('low_95')} – {value('high_95')}",
        str(row["model"]),
        _share(row["month_wape"]),
    ]


def _volume(value: float, metric: str) -> str:
    """An option's volume a month, or "no limit" for today's plan without one."""
    return "no limit" if math.isnan(value) else format_value(value, metric)


def _option_row(costed: Costed, currency: str, chosen: Costed | None) -> list[str]:
    marks = [
        *(["recommended"] if chosen is not None and costed.name == chosen.name else []),
        *(["the service's plan, its limits"] if costed.current else []),
    ]
    return [
        costed.name,
        f"{costed.term_months} mo",
        _volume(costed.committed_characters, TOTAL_CHARACTERS),
        _volume(costed.committed_minutes, MINUTES),
        _money(costed.expected_cost, currency),
        share_text(costed.overage_chance),
        _volume(costed.unused_characters, TOTAL_CHARACTERS),
        _volume(costed.unused_minutes, MINUTES),
        ", ".join(marks),
    ]


def _as_json(decision: Decision, currency: str) -> dict[str, object]:
    found = decision.recommendation
    plain = decision.plain
    return {
        "currency": currency,
        "term_months": decision.term,
        "term_start": decision.scenarios.months[0],
        "what_ifs": str(decision.what_if),
        "warnings": list(decision.warnings),
        "risk": found.risk,
        "todays_plan": None if decision.plan is None else _plan_json(decision),
        "forecasts": [_shown(row) for row in _records(decision.forecasts_beside_plain)],
        "options": [_option_json(costed, currency) for costed in found.options],
        "curve": [_curve_json(row, currency) for row in _records(found.curve())],
        "recommended": None if found.chosen is None else found.chosen.name,
        "within_risk": found.within_risk,
        "left_out": list(found.left_out),
        "without_what_ifs": None
        if plain is None or plain.recommendation.chosen is None
        else {
            "recommended": plain.recommendation.chosen.name,
            "expected_cost": _in_minor(plain.recommendation.chosen.expected_cost, currency),
            "overage_chance": plain.recommendation.chosen.overage_chance,
        },
        "accuracy": _records(decision.accuracy),
    }


FIGURES = ("used", "projected", "plain_projected", "low_80", "high_80", "low_95", "high_95")


def _shown(row: dict[str, Any]) -> dict[str, Any]:
    """A forecast row with its figures to the digits the table shows (``metrics.rounded``):
    scripts read the same whole characters and hundredths of minutes people do."""
    metric = str(row["metric"])
    return {
        name: rounded(value, metric) if name in FIGURES and value is not None else value
        for name, value in row.items()
    }


def _in_minor(value: float, currency: str) -> float:
    """An estimate in the currency, to its minor unit."""
    return round(value, MINOR_UNITS[currency])


def _option_json(costed: Costed, currency: str) -> dict[str, object]:
    """One option's figures to the digits shown: characters whole, minutes to the hundredth,
    the cost to the minor unit; a volume today's plan has no limit of is null."""

    def volume(value: float, metric: str) -> float | None:
        return None if math.isnan(value) else rounded(value, metric)

    return {
        "name": costed.name,
        "term_months": costed.term_months,
        "committed_characters": volume(costed.committed_characters, TOTAL_CHARACTERS),
        "committed_minutes": volume(costed.committed_minutes, MINUTES),
        "expected_cost": _in_minor(costed.expected_cost, currency),
        "overage_chance": costed.overage_chance,
        "unused_characters": volume(costed.unused_characters, TOTAL_CHARACTERS),
        "unused_minutes": volume(costed.unused_minutes, MINUTES),
        "current": costed.current,
    }


def _curve_json(row: dict[str, Any], currency: str) -> dict[str, Any]:
    """A point of the curve, its figures to the digits shown (a volume without a limit is
    null)."""
    volumes = {"committed_characters": TOTAL_CHARACTERS, "committed_minutes": MINUTES}
    return {
        **row,
        **{c: None if row[c] is None else rounded(row[c], m) for c, m in volumes.items()},
        "expected_cost": _in_minor(row["expected_cost"], currency),
    }


def _plan_json(decision: Decision) -> dict[str, object]:
    """Today's plan: the service's limits, and the prices in force that price it."""
    assert decision.plan is not None
    plan, terms = decision.plan, decision.plan.terms
    return {
        "name": plan.name,
        "limits": plan.limits,
        "prices_from": terms.prices_from,
        "prices_name": terms.prices_name,
        "base_fee": float(terms.base_fee),
        "included_characters": terms.included_characters,
        "included_minutes": float(terms.included_minutes),
        "price_per_million_characters": round(float(terms.price_per_million_characters), 4),
        "price_per_minute": float(terms.price_per_minute),
    }


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows as plain values, a missing one as None."""
    plain = table.astype(object).where(table.notna(), None)
    return [{str(name): value for name, value in row.items()} for row in plain.to_dict("records")]
