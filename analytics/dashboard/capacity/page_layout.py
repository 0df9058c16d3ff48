"""The Capacity page laid out: the meeting report's buttons, the budgets in force and their
status, the keys against their own limits, the forecasts, the decision with its what-ifs kept in
the address, and the comparisons. Every widget of the page is here or in the panel it places
(``decision_panel``); the cached reads are ``deciding``'s and ``budget_settings``'."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import pandas as pd
import streamlit as st

from analytics.alerts import in_units
from analytics.capacity import (
    COST,
    DEFAULT_RISK,
    DEFAULT_TERM,
    DEFAULT_WARNING,
    Asked,
    BudgetSettings,
    CapacityReview,
    Decision,
    Evaluation,
    PlanSnapshot,
    WhatIf,
    WhatIfError,
    Workload,
    comparison_text,
    evaluation_frame,
    parse_growth,
    parse_workload,
)
from analytics.cost import PricingSettingsError, TeamSettingsError, unpriced_text
from analytics.dashboard import charts, data, downloads, key_list, page, session
from analytics.dashboard.capacity import deciding, decision_panel
from analytics.dashboard.capacity.budget_settings import budget_statuses, chosen_budgets
from analytics.dashboard.column_config import (
    BUDGET_ORDER,
    budget_columns,
    change_columns,
    key_name_columns,
    metric_number,
    money_column,
    with_changes_shown,
)
from analytics.dashboard.messages import service_errors
from analytics.dashboard.plan_panel import plan_panel
from analytics.dashboard.session import ChosenRange
from analytics.dashboard.settings_in_force import NEEDS_PRICING, settings_name
from analytics.dashboard.source import Source
from analytics.dashboard.view import USAGE_BY_KEY, View
from analytics.figures import forecast_figure
from analytics.pages import COMPARISON_TABS, GUARDRAILS_SECTION, PER_KEY_TAB, page_at
from analytics.reports import MISSING as CHROMIUM_MISSING
from analytics.reports import (
    PageSize,
    ReportSettingsError,
    find_chromium,
    html_to_pdf,
    render,
    report_page_size,
    team_note,
)
from analytics.usage import (
    METRIC_LABELS,
    PERIOD_TITLES,
    TOTAL_CHARACTERS,
    FetchedRange,
    range_text,
    utc_today,
)

DRIVER_VALUES = ["previous", "current", "change", "change %"]
TERMS = [1, 3, 6, 12, 24, 36]  # months


@dataclass
class Drawn:
    """What this run of the page drew, which its meeting report is made of as the `report`
    command makes it. The report's buttons sit above it all and make the report at a click,
    once the run has ended and every part is here."""

    read: FetchedRange | None = None
    review: CapacityReview | None = None
    evaluations: Sequence[Evaluation] | None = None
    key_limits: Sequence[Evaluation] = ()
    decision: Decision | None = None
    scope_note: str | None = None
    paper: PageSize = "A4"

    def report(self) -> str:
        """The meeting report of the range, as the `report` command writes it."""
        assert self.read is not None and self.review is not None
        return render(
            self.read.frame,
            self.review,
            budgets=self.evaluations,
            key_limits=self.key_limits,
            page_size=self.paper,
            decision=self.decision,
            scope_note=self.scope_note,
        )


def capacity_page(source: Source) -> None:
    """The page, for the visitor's `source`."""
    chosen = session.chosen_range()
    today = utc_today()
    drawn = Drawn()
    report_buttons(chosen, today, drawn)
    document, budgets = budgets_in_force(source)
    # The same prices the CLI's check-budgets and report use: cost budgets are evaluated.
    money = page.money_settings(source)
    plan = plan_panel(source, today)
    review, drawn.read, priced = priced_review(source, chosen, today, document, money)
    drawn.review = review
    if budgets is not None:
        drawn.evaluations = budget_status(source, budgets, review, today, priced, plan)
    drawn.key_limits = key_limits(source, today, document) or ()
    forecasts(source, review)
    st.subheader("Decision")
    if not source.visible.scope.whole:  # the organization's: left out, as by `report --team`
        drawn.scope_note = team_note(source.visible.scope.name)
        st.caption(f"{drawn.scope_note}.")
    else:
        drawn.decision = decision_section(source, today, money, review, plan)
    comparisons(review)


def report_buttons(chosen: ChosenRange, today: date, drawn: Drawn) -> None:
    """The report's buttons beside the title, drawn before anything slow: a moment after the
    range changes, the button under the pointer is this run's and gives this range's report.
    Its paper is found as the `report` command finds it."""
    try:
        drawn.paper, paper_problem = report_page_size(os.environ), None
    except ReportSettingsError as exc:
        drawn.paper, paper_problem = report_page_size(os.environ, "A4"), exc
    report_name = f"capacity-review-{chosen.start:%Y-%m-%d}-{chosen.end:%Y-%m-%d}"
    chromium = find_chromium()
    offered = page_at("capacity")
    with page.title_row("Capacity").container(horizontal=True, width="content"):
        downloads.button(
            offered.download("download_report"),
            drawn.report,
            file_name=f"{report_name}.html",
            mime="text/html",
            kind="primary",
        )
        if chromium is not None:
            downloads.button(
                offered.download("download_report_pdf"),
                lambda: html_to_pdf(drawn.report(), chromium),
                file_name=f"{report_name}.pdf",
                mime="application/pdf",
                icon=":material/picture_as_pdf:",
                paper=drawn.paper,
            )
    st.caption(
        f"{range_text(chosen.start, chosen.end)} (UTC) against the previous period and "
        f"last year · forecasts as of {today:%Y-%m-%d}"
        + ("" if chromium is not None else f" · no PDF: {CHROMIUM_MISSING}")
    )
    if paper_problem is not None:
        st.error(f"{paper_problem}. The report is laid out on A4.", icon=":material/error:")


def budgets_in_force(source: Source) -> tuple[BudgetSettings | None, BudgetSettings | None]:
    """The budgets document in force (an upload wins), and the budgets of it the visitor's
    scope holds."""
    with st.expander("Budgets", icon=":material/savings:"):
        uploaded = st.file_uploader("Budgets file (TOML)", type="toml", key="budgets_file")
        document, problem = chosen_budgets(uploaded, source)
        budgets = None if document is None else source.visible.budgets(document)  # the scope's
        if problem:
            st.error(problem, icon=":material/error:")
        st.caption(
            f"Budgets from {settings_name('budgets', source, uploaded)}; choose another file "
            "here, formatted as budgets.example.toml. Cost budgets and cost forecasts use the "
            f"prices in force ({settings_name('pricing', source)}) and the report's spend by "
            f"team the teams in force ({settings_name('teams', source)})."
        )
    return document, budgets


def priced_review(
    source: Source,
    chosen: ChosenRange,
    today: date,
    document: BudgetSettings | None,
    money: View,
) -> tuple[CapacityReview, FetchedRange, View]:
    """The review of the range and the usage it read, priced with `money` (the files the
    budget status is priced with too), or unpriced when its prices or teams are refused."""
    priced = money
    try:
        with service_errors(source):
            review, read = data.review(source, chosen, today, document, priced)
    except (PricingSettingsError, TeamSettingsError) as exc:
        st.error(f"{exc}. Costs are left out.", icon=":material/error:")
        priced = USAGE_BY_KEY
        with service_errors(source):
            review, read = data.review(source, chosen, today, document, priced)
    if review.unpriced:
        what = "cost budgets, cost forecasts and the report's spend"
        st.info(unpriced_text(review.unpriced, what), icon=":material/money_off:")
    return review, read, priced


def budget_status(
    source: Source,
    budgets: BudgetSettings,
    review: CapacityReview,
    today: date,
    priced: View,
    plan: PlanSnapshot | None,
) -> list[Evaluation]:
    """The budgets' status, as check-budgets prints it; the report's too."""
    st.subheader("Budget status")
    if budgets.cost_budgets and review.currency is None:
        st.info(NEEDS_PRICING, icon=":material/payments:")
    with service_errors(source):
        evaluations = budget_statuses(source, budgets, today, priced, plan is not None)
    if plan is None and budgets.plan_budgets:
        st.caption("Plan budgets are left out: the plan could not be loaded (see above).")
    status = evaluation_frame(evaluations, review.currency or "")
    st.dataframe(
        in_units(status).drop(columns=["scope", "metric", "overrun"]),
        hide_index=True,
        column_order=BUDGET_ORDER,
        column_config=budget_columns(),
    )
    st.caption("Limit reached: the day used, or usage as forecast, reaches the limit.")
    st.page_link(
        page_at("limits").file,
        label="Guardrails: the enforced budgets held by the keys' own limits, on Keys & limits",
        icon=":material/shield:",
        query_params={GUARDRAILS_SECTION: "true"},
    )
    return evaluations


def key_limits(
    source: Source, today: date, document: BudgetSettings | None
) -> list[Evaluation] | None:
    """Each active key against its own limits; None when the key may not list keys."""
    st.subheader("Keys against their own limits")
    with service_errors(source):
        limits = key_list.limit_status(
            source, today, document.warning_at if document else DEFAULT_WARNING
        )
    if limits is None:
        st.caption("Only an admin key can list the organization's keys and their limits.")
    elif not limits:
        st.caption("No active key has a limit of its own.")
    else:
        st.dataframe(
            in_units(evaluation_frame(limits)).drop(columns=["scope", "metric", "overrun", "note"]),
            hide_index=True,
            column_order=BUDGET_ORDER[:-1],  # no note
            column_config=budget_columns(),
        )
        st.page_link(
            page_at("limits").file,
            label="Set or clear a key's limits on Keys & limits",
            icon=":material/vpn_key:",
        )
    return limits


def forecasts(source: Source, review: CapacityReview) -> None:
    """One measure at a time, or the keys' month, its tab in the address; only the open tab is
    drawn (each table and chart costs the browser a draw)."""
    st.subheader("Forecasts")
    if review.withheld:  # a team's: the cost forecasts are the organization's
        st.caption(review.withheld)
    charted = review.paths_by_label
    *measures, per_key = st.tabs([*charted, PER_KEY_TAB], key="forecast", bind="query-params")
    for tab, paths in zip(measures, charted.values(), strict=True):
        if tab.open:
            with tab:
                st.caption(review.forecast_note(paths[0].metric))  # this measure's own accuracy
                with st.container(horizontal=True):
                    for path in paths:
                        st.plotly_chart(charts.figure(forecast_figure, path), width="stretch")
                cost = review.cost_forecasts
                if paths[0].metric == COST and cost is not None and review.currency:
                    cost_forecasts(source, cost, review.currency)
    if per_key.open:
        with per_key:
            key_forecasts(review)


def cost_forecasts(source: Source, cost: pd.DataFrame, currency: str) -> None:
    """The organization's cost this month, quarter and contract year, base fee included."""
    st.markdown(f"**Cost this month, quarter and contract year ({currency})**")
    st.dataframe(
        cost.assign(period=cost["period"].map(PERIOD_TITLES)),
        hide_index=True,
        column_config={
            "period": "Period",
            "start": st.column_config.DateColumn("From"),
            "end": st.column_config.DateColumn("To"),
            "actual": money_column("So far", currency),
            "projected": money_column("Projected", currency),
        },
    )
    st.caption(
        "The organization's cost, base fee included: the closed days at the prices in force "
        f"({settings_name('pricing', source)}), then each service's forecast priced to the "
        "period's end."
    )


def key_forecasts(review: CapacityReview) -> None:
    """Each key's total characters this month: so far, projected and the forecast's range."""
    st.markdown("**Total characters this month, per key**")
    st.dataframe(
        review.key_forecasts[
            ["api_key_label", "api_key", "actual", "projected", "low", "high"]
        ].round(0),
        hide_index=True,
        column_config={
            **key_name_columns(),
            **{
                c: metric_number(f"{c.capitalize()} (characters)", TOTAL_CHARACTERS)
                for c in ("actual", "projected", "low", "high")
            },
        },
    )


def planned_workloads(text: str) -> tuple[Workload, ...]:
    """The planned workloads, one a line as `capacity recommend --add` reads them; a line that
    cannot be read is named and left out."""
    found = []
    for line in filter(str.strip, text.splitlines()):
        try:
            found.append(parse_workload(line))
        except WhatIfError as exc:
            st.error(f"Left out: {exc}", icon=":material/error:")
    return tuple(found)


def growth_share(percent: float) -> float:
    """The growth asked, as `capacity recommend --growth` reads it; a growth it refuses is
    named and none is used."""
    try:
        return parse_growth(f"{percent}%")
    except WhatIfError as exc:
        st.error(f"Left out: {exc}", icon=":material/error:")
        return 0.0


def what_ifs() -> Asked:
    """The growth, the risk, the term and the planned workloads asked, kept in the address."""
    with st.container(horizontal=True):
        # No bounds of the field's own: a value out of bounds would be refused in silence,
        # the results left those of the value before. The one rule is `capacity recommend
        # --growth`'s: -100 % and below refused, outside the plausible range a warning.
        growth = st.number_input(
            "Growth above the forecast (%)",
            value=0.0,
            step=5.0,
            key="growth",
            bind="query-params",
        )
        risk = st.slider(
            "Highest chance of overage (%)",
            0,
            100,
            round(100 * DEFAULT_RISK),
            key="risk",
            bind="query-params",
        )
        term = st.selectbox(
            "Term (months)", TERMS, TERMS.index(DEFAULT_TERM), key="term", bind="query-params"
        )
    planned = st.text_area(
        "Planned workloads, one a line",
        key="add",
        bind="query-params",
        placeholder="2026-06:2000000 characters\nspeech pilot 500 minutes a month",
    )
    return Asked(WhatIf(growth_share(growth), planned_workloads(planned)), risk / 100, term)


def decision_section(
    source: Source, today: date, money: View, review: CapacityReview, plan: PlanSnapshot | None
) -> Decision:
    """The forecasts, the what-ifs and the option to buy: the organization's decision."""
    st.caption(
        "The forecasts of the organization's whole history, each from the model that did best on "
        "it, and the option to buy for the next term, priced across the forecast's range. The "
        "what-ifs below stay in the page's address: a copied link shows the same view."
    )
    asked = what_ifs()
    with service_errors(source):
        limits = None if plan is None else plan.limits  # today's plan: the Plan card's
        decision = deciding.decision(source, today, money, asked, review.year_start, limits)
    st.caption(f"What-ifs: {decision.what_if}.")
    for warning in decision.warnings:
        st.warning(f"{warning[:1].upper()}{warning[1:]}.", icon=":material/warning:")
    decision_panel.show_forecasts(decision, review.year_start)
    if decision.recommendation.options and money.currency:
        decision_panel.show_recommendation(decision, money.currency)
    else:
        st.caption(
            f"No options to weigh: {settings_name('pricing', source)} lists none. Add "
            "`[[option]]` entries (base fee, included volume, prices beyond, term, discount) to "
            "the pricing file for a recommendation: see *The catalogue* on the manual's "
            "Capacity review page (docs/capacity.md) and pricing.example.toml."
        )
    return decision


def comparisons(review: CapacityReview) -> None:
    """The range against the previous period and last year, and the keys that drove the
    change: one at a time, its tab in the address."""
    comparison = review.comparison
    changes = change_columns()
    st.subheader("Comparison")
    against, drivers = st.tabs(list(COMPARISON_TABS), key="compare", bind="query-params")
    if against.open:
        with against:
            st.caption(comparison_text(comparison).capitalize())
            st.dataframe(
                with_changes_shown(comparison.services.rename(index=METRIC_LABELS).round(2)),
                column_config=changes,
            )
    if drivers.open:
        with drivers:
            st.caption("Keys whose total characters changed most against the previous period.")
            st.dataframe(
                with_changes_shown(
                    review.drivers(10)[["api_key_label", "api_key", *DRIVER_VALUES]]
                ),
                hide_index=True,
                column_config={**key_name_columns(), **changes},
            )
