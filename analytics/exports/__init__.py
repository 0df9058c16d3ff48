"""Exports: what an export can ask for (`vocabulary`, and one request's choices in `requests`),
the rows of each grouping (`shaping`), the file's bytes in CSV, Parquet or Excel, written
atomically (`formats`), the incremental, day-partitioned Parquet dataset a warehouse reads
(`dataset`), and the command and crontab lines that write the same file as a
dashboard download (`commands`)."""

from analytics.exports.commands import (
    EXPORT_EXIT_CODES,
    export_command,
    export_crontab,
)
from analytics.exports.dataset import Days, Destination
from analytics.exports.focus import billing_account, focus_file_table, focus_table
from analytics.exports.formats import (
    Format,
    Piece,
    export_bytes,
    export_pieces,
    format_for,
    write_export,
)
from analytics.exports.requests import ExportRequest
from analytics.exports.shaping import Costing, shape_export, shape_tag_export, unpriced_warning
from analytics.exports.vocabulary import (
    COST_COLUMNS_TEXT,
    GROUPINGS,
    REPORTS,
    SOURCES,
    CostNotOffered,
    ExportProblem,
    ExportSource,
    Field,
    FileNeeded,
    FormatUnknown,
    Grouping,
    GroupingNotOffered,
    Report,
)

__all__ = [
    "COST_COLUMNS_TEXT",
    "EXPORT_EXIT_CODES",
    "GROUPINGS",
    "REPORTS",
    "SOURCES",
    "CostNotOffered",
    "Costing",
    "Days",
    "Destination",
    "ExportProblem",
    "ExportRequest",
    "ExportSource",
    "Field",
    "FileNeeded",
    "Format",
    "FormatUnknown",
    "Grouping",
    "GroupingNotOffered",
    "Piece",
    "Report",
    "billing_account",
    "export_bytes",
    "export_command",
    "export_crontab",
    "export_pieces",
    "focus_file_table",
    "focus_table",
    "format_for",
    "shape_export",
    "shape_tag_export",
    "unpriced_warning",
    "write_export",
]
