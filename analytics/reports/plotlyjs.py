"""The report's charts, interactive offline in a file small enough to mail.

The full plotly.js is 4.8 MB, nearly all of a report that people send as an attachment. The
report carries instead plotly.js's basic bundle (`vendor/plotly-basic.min.js`: the bar, pie
and scatter traces, all the report draws), gzipped and in base64, once; the browser
decompresses it with its own `DecompressionStream` and then draws each chart from the figure
it holds as JSON. Nothing is fetched: the report opens with no network, and chromium prints it
once the charts are drawn (`pdf`).
"""

from __future__ import annotations

import base64
import functools
import gzip
from pathlib import Path

import plotly.graph_objects as go

BUNDLE = Path(__file__).with_name("vendor") / "plotly-basic.min.js"
# The plotly.js version of the bundle: the one the Python plotly package writes figures for.
BUNDLE_VERSION = "4.1.1"
# The trace types the basic bundle draws; a figure with another would be a blank box.
BUNDLED_TRACES = frozenset({"bar", "pie", "scatter"})
# Set on <html> once every chart is drawn: what a printer or a test waits for.
DRAWN = "data-charts-drawn"
# No toolbar, as before: a printed report has no use for it; resized with the window.
CONFIG = '{"displayModeBar": false, "responsive": true}'

# Decompress the library, run it, then draw every chart in document order.
LOADER = f"""
(async () => {{
  const packed = document.getElementById("plotly-gz").textContent;
  const bytes = Uint8Array.from(atob(packed), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const library = document.createElement("script");
  library.textContent = await new Response(stream).text();
  document.head.appendChild(library);
  for (const spec of document.querySelectorAll("script.chart-figure")) {{
    const figure = JSON.parse(spec.textContent);
    await Plotly.newPlot(spec.previousElementSibling, figure.data, figure.layout, {CONFIG});
  }}
  document.documentElement.setAttribute("{DRAWN}", "yes");
}})();
"""


@functools.cache
def _packed() -> str:
    """The bundle gzipped (a fixed timestamp, so a report is the same bytes every time) and in
    base64, read once per process."""
    return base64.b64encode(gzip.compress(BUNDLE.read_bytes(), mtime=0)).decode("ascii")


def library() -> str:
    """The packed plotly.js and the loader that draws every chart: once per report, after the
    charts (the loader finds them all in the page)."""
    return (
        f'<script type="application/octet-stream" id="plotly-gz">{_packed()}</script>'
        f"<script>{LOADER}</script>"
    )


def _json_in_html(text: str) -> str:
    """JSON safe inside a <script> element: no markup characters, each still the same JSON."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def chart(fig: go.Figure) -> str:
    """The figure's place and its JSON, drawn by `library`'s loader. A trace type outside the
    bundle is refused here rather than left blank in a mailed report."""
    foreign = {trace.type for trace in fig.data} - BUNDLED_TRACES
    if foreign:
        raise ValueError(f"the report's plotly.js draws no {', '.join(sorted(foreign))} traces")
    spec = fig.to_json()
    return (
        '<div class="plot"></div>'
        f'<script type="application/json" class="chart-figure">{_json_in_html(spec)}</script>'
    )
