"""Export: any source, grouping and cost the command line's `export` offers, as CSV, Excel or
Parquet, and the command and crontab line that write the same file."""

import streamlit as st

from analytics.dashboard import (
    NEEDS_PRICING,
    NEEDS_TEAMS,
    USAGE_BY_KEY,
    data,
    downloads,
    export_preview_columns,
    focus_file,
    page,
    say_unpriced,
    service_errors,
    session,
    settings_name,
    visitor,
)
from analytics.exit_codes import exit_codes_text
from analytics.exports import (
    COST_COLUMNS_TEXT,
    EXPORT_EXIT_CODES,
    GROUPINGS,
    SOURCES,
    ExportRequest,
    ExportSource,
    export_command,
    export_crontab,
)
from analytics.pages import page_at

EXCEL_MAX_ROWS = 1_048_575  # one sheet, below the header row
# Each source's grouping control keeps its own URL parameter (`group` is usage's, as before).
GROUP_KEYS: dict[ExportSource, str] = {
    "usage": "group",
    "tags": "tag_group",
    "language-pairs": "pair_group",
}
# Each format's file type; its button's key is `download_<format>`, its label the page table's.
FORMATS = {"csv": "text/csv", "xlsx": None, "parquet": None}

source = visitor.current().source
chosen = session.chosen_range()

page.header("Export", chosen)

money = page.money_settings(source)
controls = st.container(horizontal=True, vertical_alignment="bottom")
labels = {name: choice.label for name, choice in SOURCES.items()}
picked = page.segments(controls, "Source", labels, "usage", "source")
export_source = next(s for s in SOURCES if s == picked)
offered = SOURCES[export_source]
groupings = [g for g in offered.groupings if money.by_team or not GROUPINGS[g].needs_teams]
group_by = page.segments(
    controls,
    "One row per",
    {g: GROUPINGS[g].label for g in groupings},
    groupings[0],
    GROUP_KEYS[export_source],
)
priceable = offered.priced and money.cost
with_cost = controls.toggle(
    "With cost",
    value=session.shown() == "cost",  # the session's Usage / Cost choice, at first
    key="with_cost",
    disabled=not priceable,
    help=f"{COST_COLUMNS_TEXT} Prices of {settings_name('pricing', source)}."
    if priceable
    else f"{offered.label} carry no cost."
    if not offered.priced
    else NEEDS_PRICING,
)
if not money.by_team and export_source == "usage":
    st.caption(NEEDS_TEAMS)
team = source.visible.scope.teams
request = ExportRequest(
    export_source, group_by, with_cost and priceable, None if team is None else min(team)
)
if request.with_cost and money.pricing is not None:
    say_unpriced(money.pricing, chosen.start, chosen.end, "cost cells")

shown_money = money if request.with_cost or GROUPINGS[group_by].needs_teams else USAGE_BY_KEY
with service_errors(source):
    table = data.export_table(source, chosen, request, shown_money)
rows = len(table)

if rows == 0:
    st.info("No usage in this range: the files would only hold a header row.")

with st.container(horizontal=True):
    for fmt, mime in FORMATS.items():
        too_big = fmt == "xlsx" and rows > EXCEL_MAX_ROWS
        downloads.button(
            page_at("export").download(f"download_{fmt}"),
            lambda fmt=fmt: data.export(source, chosen, request, shown_money, fmt),
            file_name=request.file_name(chosen.start, chosen.end, fmt),
            mime=mime,
            kind="primary" if fmt == "csv" else "secondary",
            disabled=too_big,
            help="More rows than one Excel sheet holds; use CSV or Parquet." if too_big else None,
        )
st.caption(f"{rows:,} rows · text cells are guarded against spreadsheet formulas.")
if rows:
    with st.expander(f"Preview ({min(rows, 100):,} of {rows:,} rows)"):
        st.dataframe(
            table.head(100),
            hide_index=True,
            height=280,
            column_config=export_preview_columns(export_source == "tags"),
        )

st.subheader("FOCUS 1.2 for a FinOps tool")
st.caption(
    "The range's cost as the FinOps Open Cost and Usage Specification lays it out (Parquet): "
    "a row per key, day and charged service, the plan's base fee a Purchase row of its month; "
    "BilledCost adds up to Chargeback's total. " + ("" if money.cost else NEEDS_PRICING)
)
downloads.button(
    page_at("export").download("download_focus"),
    lambda: focus_file(source, chosen, money, "parquet"),
    file_name=f"focus_{chosen.start:%Y-%m-%d}_{chosen.end:%Y-%m-%d}.parquet",
    disabled=not money.cost,
)

if team is not None and len(team) > 1:
    st.caption(
        "The command line exports one team at a time (`--team`): each line below writes the "
        f"file of {request.team} alone."
    )
st.subheader("Same file from the command line")
st.code(
    export_command(request, chosen.start, chosen.end, "csv", source.demo),
    language="bash",
    wrap_lines=True,
)
st.subheader("On a schedule (crontab, UTC)")
st.code(
    export_crontab(request, chosen.start, chosen.end, "csv", chosen.preset),
    language="bash",
    wrap_lines=True,
)
st.caption(
    "Put `CRON_TZ=UTC` above the line. A scheduled job exports your organization: it reads "
    "SERVICE_AUTH_KEY and SERVICE_BASE_URL from `/etc/usage-dashboard.env` (mode 0600), even "
    f"when this page shows the demo. {exit_codes_text(EXPORT_EXIT_CODES)}"
)
