"""The Export page: any source, grouping and cost the command line's `export` offers, as CSV,
Excel or Parquet, the FOCUS 1.2 file, and the command and crontab line that write the same
file. Its widgets are `page_layout`, whose `export_page` the page calls; `focus_file` is the
FOCUS file it offers, cached."""

from analytics.dashboard.export.page_layout import export_page

__all__ = ["export_page"]
