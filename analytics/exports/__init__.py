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
from analytics.exports.formats import export_bytes, format_for, write_export
from analytics.exports.requests import ExportRequest
from analytics.exports.shaping import Costing, shape_export, shape_tag_export
from analytics.exports.vocabulary import GROUPINGS, SOURCES, ExportProblem, ExportSource

__all__ = [
    "EXPORT_EXIT_CODES",
    "GROUPINGS",
    "SOURCES",
    "Costing",
    "ExportProblem",
    "ExportRequest",
    "ExportSource",
    "export_bytes",
    "export_command",
    "export_crontab",
    "format_for",
    "shape_export",
    "shape_tag_export",
    "write_export",
]
