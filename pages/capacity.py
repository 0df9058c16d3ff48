"""Capacity: forecasts with bands and budget lines, budget status, period comparison, growth
drivers, and the meeting report to download."""

from pathlib import Path

import streamlit as st

from analytics import state, views
from analytics.budgets import (
    BudgetFile,
    BudgetFileError,
    evaluate,
    evaluation_frame,
    load_budgets,
    parse_budgets,
)
from analytics.compare import compare, growth_drivers
from analytics.forecast import YearStart, key_forecasts
from analytics.report import build_report, forecast_figures, forecast_note, report_range

BUDGETS_FILE = Path("budgets.toml")
DRIVER_VALUES = ["previous", "current", "change", "change %"]

source = state.source()
period = state.period()
today = state.today()

st.title("Capacity")
st.caption(
    f"{views.range_text(period.start, period.end)} (UTC) against the previous period and "
    f"last year · forecasts as of {today:%Y-%m-%d}"
)

budgets: BudgetFile | None = None
with st.expander("Budgets", icon=":material/savings:"):
    uploaded = st.file_uploader("Budgets file (TOML)", type="toml", key="budgets_file")
    try:
        if uploaded is not None:
            budgets = parse_budgets(uploaded.getvalue().decode("utf-8"), uploaded.name)
        elif BUDGETS_FILE.is_file():
            budgets = load_budgets(BUDGETS_FILE)
    except (BudgetFileError, UnicodeDecodeError) as exc:
        st.error(str(exc), icon=":material/error:")
    st.caption(
        f"Read from {BUDGETS_FILE} in the dashboard's folder unless a file is chosen here; "
        "see budgets.example.toml for the format."
    )

year_start = budgets.year_start if budgets else YearStart()
first, last = report_range(period.start, period.end, today, year_start)
with state.service_errors(source):
    usage = state.usage(source, first, last)
key_day = usage.key_day

if budgets is not None:
    st.subheader("Budget status")
    status = evaluation_frame(evaluate(budgets, key_day, today, usage.start))
    st.dataframe(
        status.drop(columns=["scope", "metric"]),
        hide_index=True,
        column_config={
            "limit": st.column_config.NumberColumn("Limit", format="localized"),
            "used": st.column_config.NumberColumn("Used", format="localized"),
            "projected": st.column_config.NumberColumn("Projected", format="localized"),
            "used %": st.column_config.ProgressColumn("Used %", format="%.1f%%", max_value=100),
            "projected %": st.column_config.NumberColumn("Projected %", format="%.1f%%"),
            "overrun": st.column_config.DateColumn("Projected overrun"),
        },
    )

st.subheader("Forecasts")
st.caption(forecast_note(key_day, usage.start, today))
figures = forecast_figures(key_day, today, usage.start, year_start, budgets)
for left, right in zip(figures[::2], figures[1::2], strict=True):
    with st.container(horizontal=True):
        st.plotly_chart(left, width="stretch")
        st.plotly_chart(right, width="stretch")

by_key = key_forecasts(key_day, today, usage.start, year_start=year_start)
st.markdown("**Total characters this month, per key**")
st.dataframe(
    by_key[["api_key_label", "api_key", "actual", "projected", "low", "high"]].round(0),
    hide_index=True,
    column_config={
        "api_key_label": "Key",
        "api_key": "Masked key",
        **{
            c: st.column_config.NumberColumn(c.capitalize(), format="localized")
            for c in ("actual", "projected", "low", "high")
        },
    },
)

comparison = compare(key_day, period.start, period.end, covered_from=usage.start)
st.subheader("Period comparison")
st.caption(
    f"Previous period {views.range_text(*comparison.previous)} · "
    f"last year {views.range_text(*comparison.last_year)}"
)


def number(label: str) -> st.column_config.NumberColumn:
    return st.column_config.NumberColumn(label, format="localized")


def percent(label: str) -> st.column_config.NumberColumn:
    return st.column_config.NumberColumn(label, format="%+.1f%%")


changes = {
    "current": number("This period"),
    "previous": number("Previous period"),
    "change": number("Change"),
    "change %": percent("Change %"),
    "last_year": number("Last year"),
    "yoy change": number("Change on last year"),
    "yoy %": percent("Change on last year %"),
}
st.dataframe(comparison.services.rename(index=views.METRIC_LABELS).round(2), column_config=changes)

st.subheader("Growth drivers")
st.caption("Keys whose total characters changed most against the previous period.")
st.dataframe(
    growth_drivers(comparison, 10)[["api_key_label", "api_key", *DRIVER_VALUES]],
    hide_index=True,
    column_config={"api_key_label": "Key", "api_key": "Masked key", **changes},
)

st.download_button(
    "Download the meeting report (HTML)",
    data=lambda: build_report(usage, budgets, today, start=period.start, end=period.end),
    file_name=f"capacity-review-{period.start:%Y-%m-%d}-{period.end:%Y-%m-%d}.html",
    mime="text/html",
    icon=":material/download:",
    type="primary",
    on_click="ignore",
    key="download_report",
)
