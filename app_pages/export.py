"""Export: any source, grouping and cost the command line's `export` offers, as CSV, Excel or
Parquet, and the command and crontab line that write the same file."""

from analytics.dashboard import visitor
from analytics.dashboard.export import export_page

export_page(visitor.current().source)
