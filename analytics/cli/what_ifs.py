"""The what-if options of the capacity decision, read once for every command that decides:
`capacity recommend` and `report` take the same `--term`, `--growth`, `--add` and `--risk`, and
refuse a bad one with the same line (exit 2); and the decision under them, made once for both
(`decided`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date
from typing import Annotated

import typer

from analytics.capacity import (
    DEFAULT_RISK,
    MAX_TERM_MONTHS,
    Asked,
    Decision,
    Option,
    Prices,
    WhatIf,
    WhatIfError,
    decision_of,
    parse_growth,
    parse_workload,
    plan_for_term,
    read_history,
    service_limits,
)
from analytics.cli.failures import UsageProblem
from analytics.cli.fetching import Fetches
from analytics.usage import YearStart

TermOption = Annotated[
    int, typer.Option(min=1, max=MAX_TERM_MONTHS, help="Months of the next term.")
]
GrowthOption = Annotated[
    str | None, typer.Option(help="What-if: usage this much above the forecast, e.g. 10%.")
]
AddOption = Annotated[
    list[str] | None,
    typer.Option(
        "--add",
        help="What-if: a planned workload a month, e.g. '2026-06:2000000 characters' or "
        "'speech pilot 500 minutes a month' (repeatable).",
    ),
]
RiskOption = Annotated[
    str, typer.Option(help="The highest chance of overage the recommendation accepts.")
]
DEFAULT_RISK_TEXT = f"{DEFAULT_RISK:.0%}"


def asked(term: int, growth: str | None, add: list[str] | None, risk: str) -> Asked:
    """The options as a decision takes them; a bad what-if or risk is a usage problem."""
    try:
        what_if = WhatIf(
            parse_growth(growth) if growth else 0.0,
            tuple(parse_workload(text) for text in add or ()),
        )
    except WhatIfError as exc:
        raise UsageProblem(str(exc)) from None
    return Asked(what_if, _risk(risk), term)


def _risk(text: str) -> float:
    try:
        share = parse_growth(text)
    except WhatIfError:
        share = math.nan
    if not 0 <= share <= 1:
        raise UsageProblem(f"--risk must be a percentage from 0% to 100%, not {text!r}")
    return share


def decided(
    reader: Fetches,
    today: date,
    options: Sequence[Option],
    given: Asked,
    year_start: YearStart,
    cost: Prices | None,
) -> Decision:
    """The decision under the what-ifs `given`, as `capacity recommend` prints it and the
    report renders it: the history read once (the demo's days in demo mode), today's plan
    priced on it when there are `options` to weigh it against, and the decision among them."""
    demo_days = reader.connection.demo_days if reader.demo else None
    found, mix = read_history(reader, today, demo_days)
    plan = plan_for_term(found, service_limits(reader), cost, mix) if options else None
    return decision_of(found, options, given, year_start, plan)
