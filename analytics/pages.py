"""The dashboard's pages, one table: the title, icon and address of each, in the order the
navigation lists them. app.py registers them with `st.navigation`, the pages link to each other
by them, the alerts link to them (`DashboardPage.link`), and the benchmark and the tests visit
them from here too, so a new page is a row here and its file in `app_pages/`.

A page's file is named by its address (`limits` is `app_pages/limits.py`): the address is what
shared links, the sign-in's return and alerts carry, so it stays when a title changes, and
Streamlit's AppTest finds a page by its file's name before the first run of a session.

Plain data, low in the layers (it reads only where the shipped files are, `analytics.storage`):
the alerts sit below the dashboard and never import Streamlit, yet link to the same addresses
the dashboard registers; the benchmark and the tests read the table without starting Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from analytics.storage.bundle import bundle_folder

# Not `pages/`: Streamlit would take a folder of that name beside app.py for its older
# convention and start a deep link on the page's file instead of app.py.
PAGES_FOLDER = bundle_folder() / "app_pages"
# The Keys & limits page's address parameter that opens its Guardrails section
# (`/limits?guardrails=true`): the section's expander is bound to it, and the Capacity page and
# the alerts link with it.
GUARDRAILS_SECTION = "guardrails"


@dataclass(frozen=True)
class DashboardPage:
    """One row: what app.py gives `st.Page`, as plain data: reading it starts no Streamlit."""

    title: str  # the navigation's link, and the heading the page shows
    icon: str  # a Material Symbols name, drawn from the font Streamlit serves itself
    url_path: str  # the page's address, and its file's name
    default: bool = False  # served at the dashboard's root
    # Of the whole organization only: a team's scope would see no more than that it is not
    # shown (the settings are every team's documents in one), so its navigation leaves it out.
    whole_only: bool = False

    @property
    def file(self) -> Path:
        """The page's script."""
        return PAGES_FOLDER / f"{self.url_path}.py"

    @property
    def address(self) -> str:
        """The path a browser opens the page at: the default page's is the root."""
        return "" if self.default else self.url_path

    def link(self, **query: str) -> str:
        """The page's path from the dashboard's root, with ``query`` in its address
        (``/limits?guardrails=true``): what an alert links to, after the dashboard's URL."""
        path = f"/{self.url_path}"
        return f"{path}?{urlencode(query)}" if query else path


PAGES = (
    DashboardPage("Overview", ":material/dashboard:", "overview", default=True),
    DashboardPage("Keys", ":material/key:", "keys"),
    DashboardPage("Keys & limits", ":material/vpn_key:", "limits"),
    DashboardPage("Trends", ":material/trending_up:", "trends"),
    DashboardPage("Tags", ":material/sell:", "tags"),
    DashboardPage("Language pairs", ":material/swap_horiz:", "pairs"),
    DashboardPage("Languages", ":material/translate:", "languages"),
    DashboardPage("Capacity", ":material/speed:", "capacity"),
    DashboardPage("Anomalies", ":material/troubleshoot:", "anomalies"),
    DashboardPage("Chargeback", ":material/payments:", "chargeback"),
    DashboardPage("Export", ":material/download:", "export"),
    DashboardPage("Settings", ":material/settings:", "settings", whole_only=True),
)


def listed(whole: bool) -> tuple[DashboardPage, ...]:
    """The pages a session's navigation lists and registers: every page for a scope of the
    whole organization (``whole``), a team's scope all but those of the whole organization
    only, which it could not open either."""
    return tuple(page for page in PAGES if whole or not page.whole_only)


def page_at(url_path: str) -> DashboardPage:
    """The page whose address is ``url_path`` (the default page's too, by its own name)."""
    return next(page for page in PAGES if page.url_path == url_path)
