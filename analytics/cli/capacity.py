"""`capacity backtest` and `capacity recommend`: the capacity decision on the command line,
the forecasts' measured accuracy on the organization's own history and the option to buy for
the next term (``analytics.capacity.decision``)."""

from __future__ import annotations

import math
from functools import partial
from typing import Annotated, Any, Literal

import pandas as pd
import typer

from analytics.capacity.decision import DEFAULT_TERM, Decision, decide, read_outlooks, verdict
from analytics.capacity.outlook import PERIOD_NAMES, Outlook, backtest_table
from analytics.capacity.recommend import Costed
from analytics.cli import fetching, organization_files, shared
from analytics.cli.json_output import json_text, table_json
from analytics.cli.shared import DebugOption, DemoOption, PricingOption, UsageProblem, app
from analytics.cli.what_ifs import (
    DEFAULT_RISK_TEXT,
    AddOption,
    GrowthOption,
    RiskOption,
    TermOption,
    asked,
)
from analytics.cost.currencies import MINOR_UNITS
from analytics.cost.money import amount_text
from analytics.usage import calendar
from analytics.usage.calendar import YearStart
from analytics.usage.metrics import METRIC_LABELS, format_value, share_text

Format = Literal["table", "json"]
FormatOption = Annotated[Format, typer.Option("--format", help="table or json.")]

capacity_app = typer.Typer(
    cls=shared.OneLineErrors,
    help="The capacity decision: forecasts with their measured accuracy, and what to buy next.",
    no_args_is_help=True,
)
app.add_typer(capacity_app, name="capacity")


def _outlooks(demo: bool) -> dict[str, Outlook]:
    """The organization's outlooks from its whole history (the demo's span with --demo)."""
    settings = shared.settings()
    reader = fetching.Fetches(settings, demo)
    return read_outlooks(reader, calendar.utc_today(), settings.demo_days if demo else None)


@capacity_app.command("backtest")
def backtest(
    fmt: FormatOption = "table", demo: DemoOption = False, debug: DebugOption = False
) -> None:
    """Print how wrong each forecasting candidate has been on the organization's own history:
    from each month start of the last 24 months, the month, quarter and 12 months ahead (WAPE,
    and the share of actual totals inside the 80 % and 95 % intervals); `*` marks the
    candidate each metric's forecasts use."""
    with shared.reported(debug):
        table = backtest_table(_outlooks(demo))
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
        for line in shared.aligned(rows):
            typer.echo(line)


@capacity_app.command("recommend")
def recommend(
    term: TermOption = DEFAULT_TERM,
    growth: GrowthOption = None,
    add: AddOption = None,
    risk: RiskOption = DEFAULT_RISK_TEXT,
    year_start: Annotated[
        str, typer.Option("--year-start", help="The contract year's first day, MM-DD.")
    ] = "01-01",
    pricing: PricingOption = None,
    fmt: FormatOption = "table",
    demo: DemoOption = False,
    debug: DebugOption = False,
) -> None:
    """Forecast the term's usage across its backtested range and price every option of the
    pricing file's catalogue on it: the expected cost, the chance of overage, the expected
    unused commitment; recommend the cheapest within the risk setting (10 % by default)."""
    with shared.reported(debug):
        given = asked(term, growth, add, risk)
        try:
            starts = YearStart.parse(year_start)
        except ValueError as exc:
            raise UsageProblem(str(exc)) from None
        prices = organization_files.costing(pricing, None, demo).pricing
        if prices is None or not prices.catalogue:
            where = f"{prices.source} has no [[option]] entries" if prices else "no pricing file"
            raise UsageProblem(
                f"recommend weighs the pricing file's catalogue, and {where}: give --pricing "
                "FILE with [[option]] entries (see pricing.example.toml)"
            )
        decision = decide(
            _outlooks(demo),
            prices.catalogue,
            term=given.term,
            what_if=given.what_if,
            risk=given.risk,
            year_start=starts,
        )
        if fmt == "json":
            typer.echo(json_text(_as_json(decision, prices.currency)))
        else:
            for line in _decision_lines(decision, prices.currency):
                typer.echo(line)


def _share(value: float | None) -> str:
    return share_text(None if value is None or math.isnan(value) else value)


def _money(value: float, currency: str) -> str:
    """An amount in the currency, to its minor unit, as the meeting report writes it."""
    return amount_text(round(value * 10 ** MINOR_UNITS[currency]), currency)


def _decision_lines(decision: Decision, currency: str) -> list[str]:
    """The forecasts, the options and the recommendation as people read them."""
    lines = [f"What-ifs: {decision.what_if}", ""]
    rows = [["metric", "period", "used", "projected", "80 % range", "95 % range", "model",
             "month-ahead error"]]  # fmt: skip
    for row in _records(decision.forecasts):
        rows.append(_forecast_row(row))
    lines += shared.aligned(rows)
    chosen = decision.recommendation.chosen
    first = decision.scenarios.months[0]
    lines += ["", f"Options for the {decision.term} months from {first} ({currency}):"]
    rows = [["option", "term", "characters/month", "minutes/month", "expected cost",
             "chance of overage", "unused characters", "unused minutes", ""]]  # fmt: skip
    for costed in decision.recommendation.options:
        rows.append(_option_row(costed, currency, chosen))
    lines += shared.aligned(rows)
    lines += [f"note: left out: {note}" for note in decision.recommendation.left_out]
    lines += ["", verdict(decision, partial(_money, currency=currency))]
    return lines


def _forecast_row(row: dict[str, Any]) -> list[str]:
    metric = str(row["metric"])

    def value(name: str) -> str:
        return format_value(row[name], metric)

    return [
        METRIC_LABELS[metric],
        f"{PERIOD_NAMES[row['period']]} to {row['end']}",
        value("used"),
        value("projected"),
        f"{value('low_80')} – {value('high_80')}",
        f"{value('low_95')} – {value('high_95')}",
        str(row["model"]),
        _share(row["month_wape"]),
    ]


def _option_row(costed: Costed, currency: str, chosen: Costed | None) -> list[str]:
    marks = [
        *(["recommended"] if chosen is not None and costed.name == chosen.name else []),
        *(["today's plan"] if costed.current else []),
    ]
    return [
        costed.name,
        f"{costed.term_months} mo",
        format_value(costed.committed_characters, "total_characters"),
        format_value(costed.committed_minutes, "speech_to_text_minutes"),
        _money(costed.expected_cost, currency),
        share_text(costed.overage_chance),
        format_value(costed.unused_characters, "total_characters"),
        format_value(costed.unused_minutes, "speech_to_text_minutes"),
        ", ".join(marks),
    ]


def _as_json(decision: Decision, currency: str) -> dict[str, object]:
    found = decision.recommendation
    return {
        "currency": currency,
        "term_months": decision.term,
        "term_start": decision.scenarios.months[0],
        "what_ifs": str(decision.what_if),
        "risk": found.risk,
        "forecasts": _records(decision.forecasts),
        "options": list(found.options),
        "curve": _records(found.curve()),
        "recommended": None if found.chosen is None else found.chosen.name,
        "within_risk": found.within_risk,
        "left_out": list(found.left_out),
        "accuracy": _records(decision.accuracy),
    }


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows as plain values, a missing one as None."""
    plain = table.astype(object).where(table.notna(), None)
    return [{str(name): value for name, value in row.items()} for row in plain.to_dict("records")]
