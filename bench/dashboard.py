"""The dashboard as `streamlit run app.py` serves it, plus what the browser benchmark needs:
one bare page (`/bare`) that only writes a line, the reference each page's load time is divided
by, served by the same server through the same sidebar and range control; and, after every
run, an invisible mark naming the run, so the browser knows a run it started has ended."""

import runpy
import uuid
from pathlib import Path
from typing import Any

import streamlit as st

from bench.browser import BARE_LINE

APP = Path(__file__).resolve().parent.parent / "app.py"


def bare() -> None:
    st.write(BARE_LINE)


class Marked:
    """A page whose run ends with the mark, however it ends (`st.stop()` included)."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def run(self) -> None:
        try:
            self.page.run()
        finally:
            st.html(f'<span data-bench-run="{uuid.uuid4().hex}"></span>')


def navigation(pages: list[Any], **options: Any) -> Any:
    """`st.navigation` with the bare page after the dashboard's own; sign-in pages unchanged."""
    if not any(page.title == "Overview" for page in pages):
        return real_navigation(pages, **options)
    return Marked(
        real_navigation([*pages, st.Page(bare, title="Bare", url_path="bare")], **options)
    )


real_navigation = st.navigation
st.navigation = navigation  # type: ignore[assignment]
try:
    runpy.run_path(str(APP), run_name="__main__")
finally:
    st.navigation = real_navigation
