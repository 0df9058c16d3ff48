"""The Export page laid out: the choices of an export (source, one row per, with cost), its
three files and their preview, the FOCUS 1.2 file, and the command and crontab line that write
the same file."""

from __future__ import annotations

from functools import partial

import streamlit as st

from analytics.dashboard import data, downloads, page, session
from analytics.dashboard.column_config import export_preview_columns
from analytics.dashboard.export.focus_file import focus_file
from analytics.dashboard.messages import service_errors
from analytics.dashboard.session import ChosenRange
from analytics.dashboard.settings_in_force import (
    NEEDS_PRICING,
    NEEDS_TEAMS,
    say_unpriced,
    settings_name,
)
from analytics.dashboard.source import Source
from analytics.dashboard.view import USAGE_BY_KEY, View
from analytics.exit_codes import exit_codes_text
from analytics.exports import (
    COST_COLUMNS_TEXT,
    EXPORT_EXIT_CODES,
    GROUPINGS,
    SOURCES,
    ExportRequest,
    ExportSource,
    Format,
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
FORMATS: dict[Format, str | None] = {"csv": "text/csv", "xlsx": None, "parquet": None}


def export_page(source: Source) -> None:
    """The page, for the visitor's `source`."""
    chosen = session.chosen_range()
    page.header("Export", chosen)
    money = page.money_settings(source)
    request, shown_money = chosen_request(source, money)
    if request.with_cost and money.pricing is not None:
        say_unpriced(money.pricing, chosen.start, chosen.end, "cost cells")
    export_files(source, chosen, request, shown_money)
    focus_section(source, chosen, money)
    command_lines(source, chosen, request)


def chosen_request(source: Source, money: View) -> tuple[ExportRequest, View]:
    """The export the controls choose (its source, one row per, with cost, the scope's team),
    and the view its rows are read in: `money` where they carry cost or teams."""
    controls = st.container(horizontal=True, vertical_alignment="bottom")
    labels: dict[str, str] = {name: choice.label for name, choice in SOURCES.items()}
    picked = page.segments(controls, "Source", labels, "usage", "source")
    export_source = next(s for s in SOURCES if s == picked)
    offered = SOURCES[export_source]
    groupings = [g for g in offered.groupings if money.by_team or not GROUPINGS[g].needs_teams]
    picked_group = page.segments(
        controls,
        "One row per",
        {g: GROUPINGS[g].label for g in groupings},
        groupings[0],
        GROUP_KEYS[export_source],
    )
    group_by = next(g for g in groupings if g == picked_group)
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
    if request.with_cost or GROUPINGS[group_by].needs_teams:
        return request, money
    return request, USAGE_BY_KEY


def export_files(
    source: Source, chosen: ChosenRange, request: ExportRequest, shown_money: View
) -> None:
    """The export's three download buttons, its row count and a preview of its first rows,
    read in `shown_money`."""
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
                partial(data.export, source, chosen, request, shown_money, fmt),
                file_name=request.file_name(chosen.start, chosen.end, fmt),
                mime=mime,
                kind="primary" if fmt == "csv" else "secondary",
                disabled=too_big,
                help="More rows than one Excel sheet holds; use CSV or Parquet."
                if too_big
                else None,
            )
    st.caption(f"{rows:,} rows · text cells are guarded against spreadsheet formulas.")
    if rows:
        with st.expander(f"Preview ({min(rows, 100):,} of {rows:,} rows)"):
            st.dataframe(
                table.head(100),
                hide_index=True,
                height=280,
                column_config=export_preview_columns(request.source == "tags"),
            )


def focus_section(source: Source, chosen: ChosenRange, money: View) -> None:
    """The range's FOCUS 1.2 file, for a FinOps tool."""
    st.subheader("FOCUS 1.2 for a FinOps tool")
    st.caption(
        "The range's cost as the FinOps Open Cost and Usage Specification lays it out "
        "(Parquet): a row per key, day and charged service, the plan's base fee a Purchase row "
        "of its month; BilledCost adds up to Chargeback's total. "
        + ("" if money.cost else NEEDS_PRICING)
    )
    downloads.button(
        page_at("export").download("download_focus"),
        lambda: focus_file(source, chosen, money, "parquet"),
        file_name=f"focus_{chosen.start:%Y-%m-%d}_{chosen.end:%Y-%m-%d}.parquet",
        disabled=not money.cost,
    )


def command_lines(source: Source, chosen: ChosenRange, request: ExportRequest) -> None:
    """The command and the crontab line that write the same file as CSV."""
    team = source.visible.scope.teams
    if team is not None and len(team) > 1:
        st.caption(
            "The command line exports one team at a time (`--team`): each line below writes "
            f"the file of {request.team} alone."
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
        "SERVICE_AUTH_KEY and SERVICE_BASE_URL from `/etc/usage-dashboard.env` (mode 0600), "
        f"even when this page shows the demo. {exit_codes_text(EXPORT_EXIT_CODES)}"
    )
