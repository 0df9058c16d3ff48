"""The meeting report: one self-contained HTML page (`meeting`, rendering only; its Spend and
Decision sections in `spend` and `decision`, the blocks they share in `blocks`, its charts
drawn by the one small plotly.js it carries in `plotlyjs`), the same
report printed as PDF by headless chromium (`pdf`), and its page size (`settings`)."""

from analytics.reports.meeting import render, team_note
from analytics.reports.paper import PageSize, ReportSettingsError, report_page_size
from analytics.reports.pdf import MISSING, PdfError, find_chromium, html_to_pdf

__all__ = [
    "MISSING",
    "PageSize",
    "PdfError",
    "ReportSettingsError",
    "find_chromium",
    "html_to_pdf",
    "render",
    "report_page_size",
    "team_note",
]
