"""Export: the range as CSV, Excel or Parquet, and the CLI command / crontab line for the same."""

import streamlit as st

from analytics.dashboard import data, page, session
from analytics.dashboard.messages import service_errors
from analytics.dashboard.source import source as data_source
from analytics.exports.commands import export_command, export_crontab, export_file_name
from analytics.exports.tables import USAGE_GROUPINGS

EXCEL_MAX_ROWS = 1_048_575  # one sheet, below the header row
GROUP_LABELS = {"key_and_day": "Key and day", "key": "Key", "none": "Range total"}
FORMATS = {"csv": ("CSV", "text/csv"), "xlsx": ("Excel", None), "parquet": ("Parquet", None)}

source = data_source()
chosen = session.chosen_range()

page.header("Export", chosen)

labels = {grouping: GROUP_LABELS[grouping] for grouping in USAGE_GROUPINGS}
group_by = page.segments(st.container(), "One row per", labels, "key_and_day", "group")

with service_errors(source):
    preview, rows = data.export_preview(source, chosen, group_by)

if rows == 0:
    st.info("No usage in this range: the files would only hold a header row.")

with st.container(horizontal=True):
    for fmt, (label, mime) in FORMATS.items():
        too_big = fmt == "xlsx" and rows > EXCEL_MAX_ROWS
        st.download_button(
            f"Download {label}",
            data=lambda fmt=fmt: data.export(source, chosen, group_by, fmt),
            file_name=export_file_name(group_by, chosen.start, chosen.end, fmt),
            mime=mime,
            icon=":material/download:",
            type="primary" if fmt == "csv" else "secondary",
            disabled=too_big,
            help="More rows than one Excel sheet holds; use CSV or Parquet." if too_big else None,
            on_click="ignore",
            key=f"download_{fmt}",
        )
st.caption(f"{rows:,} rows · text cells are guarded against spreadsheet formulas.")
if rows:
    with st.expander(f"Preview ({min(rows, len(preview)):,} of {rows:,} rows)"):
        st.dataframe(preview, hide_index=True, height=280)

st.subheader("Same file from the command line")
st.code(
    export_command(group_by, chosen.start, chosen.end, "csv", source.demo),
    language="bash",
    wrap_lines=True,
)
st.subheader("On a schedule (crontab, UTC)")
st.code(
    export_crontab(group_by, chosen.start, chosen.end, "csv", chosen.preset, source.demo),
    language="bash",
    wrap_lines=True,
)
st.caption(
    "Put `CRON_TZ=UTC` above the line. The command reads SERVICE_AUTH_KEY and SERVICE_BASE_URL "
    "from the environment (here `/etc/usage-dashboard.env`, mode 0600); exit codes: 0 done, "
    "2 bad arguments, 3 key refused (403), 4 service unreachable."
)
