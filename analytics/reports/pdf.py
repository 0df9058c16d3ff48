"""The meeting report as PDF, printed by Debian's headless chromium.

Chromium is the one renderer that draws the report's plotly charts exactly as the browser
does; it runs with a fresh profile in a temporary folder, no network services and no
first-run work, waits for the charts to be drawn, and prints the self-contained HTML file
without fetching anything.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

CHROMIUM = "chromium"  # Debian's package and program name
# The report draws its charts once the page has loaded (`plotlyjs`): chromium prints only when
# the page has been idle this long in its own virtual time, which passes at once while nothing
# runs and stands still while the charts are drawn. (Printing only: a browser a person or a
# test drives keeps real time.)
CHARTS_BUDGET_MS = 10_000
# Headless, and nothing running in the background that could reach the network.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
)
PRINT_TIMEOUT = 180.0  # seconds; a loaded two-core machine prints a report in well under that
MISSING = (
    f"{CHROMIUM} was not found on PATH: the PDF report is printed by Debian's headless chromium "
    "(apt-get install chromium)"
)


class PdfError(RuntimeError):
    """Chromium ran but gave no PDF; the message quotes the end of what it said."""


def find_chromium() -> str | None:
    """The chromium program on PATH, or None."""
    return shutil.which(CHROMIUM)


def html_to_pdf(html: str, chromium: str) -> bytes:
    """Print the HTML page to PDF with ``chromium`` (headless, a fresh profile)."""
    with tempfile.TemporaryDirectory(prefix="report-pdf-") as folder:
        page, pdf = Path(folder) / "report.html", Path(folder) / "report.pdf"
        page.write_text(html, encoding="utf-8")
        command = [
            chromium,
            *CHROMIUM_ARGS,
            f"--user-data-dir={Path(folder) / 'profile'}",
            "--no-pdf-header-footer",
            f"--virtual-time-budget={CHARTS_BUDGET_MS}",
            f"--print-to-pdf={pdf}",
            page.as_uri(),
        ]
        try:
            done = subprocess.run(command, capture_output=True, timeout=PRINT_TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            raise PdfError(
                f"chromium did not print the report within {PRINT_TIMEOUT:.0f} s"
            ) from None
        if done.returncode != 0 or not pdf.is_file() or pdf.stat().st_size == 0:
            said = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
            raise PdfError(
                f"chromium did not print the report (exit {done.returncode}): {' / '.join(said)}"
            )
        return pdf.read_bytes()
