"""The dashboard as `streamlit run app.py` serves it, plus what the browser benchmark needs:
one bare page (`/bare`) that only writes a line, the reference each page's load time is divided
by, served by the same server through the same sidebar and range control; and, before every
page, an invisible mark naming the run, so the browser knows the run it sees is one it started
(and, once Streamlit says no run is going on, that it has ended). The mark goes first: a page
that ends with `st.stop()` (a team lead's Settings page, which is the organization's) would
end without one drawn last, since Streamlit draws nothing more in a run once it is stopped."""

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
    """A page whose run starts with the mark, however it ends (`st.stop()` included)."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def run(self) -> None:
        st.html(f'<span data-bench-run="{uuid.uuid4().hex}"></span>')
        self.page.run()


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
