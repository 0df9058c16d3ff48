"""The dashboard's pages, one table: the title, icon and address of each, in the order the
navigation lists them. app.py registers them with `st.navigation`, the pages link to each other
by them, the alerts link to them (`DashboardPage.link`), and the benchmark and the tests visit
them from here too, so a new page is a row here and its file in `app_pages/`.

Each row also declares what a page offers beyond what it draws at once: its download buttons
(each by its widget key and label: the page reads the label here, and the tests find the
button by the key), its groups of tabs and the sections drawn only when opened (each by its
key). The tests walk every page by this table, opening every tab and section and downloading
every file, so a new download or tab is declared here and walked without editing them; and the
deployment guide's table of who sees what lists them from here.

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

from analytics.storage import bundle_folder

# Not `pages/`: Streamlit would take a folder of that name beside app.py for its older
# convention and start a deep link on the page's file instead of app.py.
PAGES_FOLDER = bundle_folder() / "app_pages"
# The Keys & limits page's address parameter that opens its Guardrails section
# (`/limits?guardrails=true`): the section's expander is bound to it, and the Capacity page and
# the alerts link with it.
GUARDRAILS_SECTION = "guardrails"


@dataclass(frozen=True)
class Download:
    """A download button: its widget key (stable, how a test finds the button) and its label,
    which the page shows; ``{paper}`` in it is the report's paper (A4, Letter)."""

    key: str
    label: str
    organization_only: bool = False  # left out of a team's scope: the organization's file

    def text(self, **parts: str) -> str:
        """The label as shown, its ``{…}`` parts filled in."""
        return self.label.format(**parts)


@dataclass(frozen=True)
class Tabs:
    """A group of tabs: its widget key, and its labels where the page writes them (none: one
    tab per measure or document, named by the data the page shows)."""

    key: str
    labels: tuple[str, ...] = ()
    organization_only: bool = False  # left out of a team's scope: the organization's figures


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
    downloads: tuple[Download, ...] = ()
    tabs: tuple[Tabs, ...] = ()
    # Sections folded away and drawn only once opened, each an expander: its key and label.
    sections: tuple[tuple[str, str], ...] = ()

    @property
    def file(self) -> Path:
        """The page's script."""
        return PAGES_FOLDER / f"{self.url_path}.py"

    @property
    def address(self) -> str:
        """The path a browser opens the page at: the default page's is the root."""
        return "" if self.default else self.url_path

    def download(self, key: str) -> Download:
        """The page's download button of widget key ``key``."""
        return next(download for download in self.downloads if download.key == key)

    def section(self, key: str) -> str:
        """The label of the page's folded section of widget key ``key``."""
        return dict(self.sections)[key]

    def link(self, **query: str) -> str:
        """The page's path from the dashboard's root, with ``query`` in its address
        (``/limits?guardrails=true``): what an alert links to, after the dashboard's URL."""
        path = f"/{self.url_path}"
        return f"{path}?{urlencode(query)}" if query else path


# The Capacity page's period comparison, its tabs in this order.
COMPARISON_TABS = ("Period comparison", "Growth drivers")
PER_KEY_TAB = "Per key this month"  # the forecast tab of the keys' total characters
LANGUAGE_TABS = (
    "By resource",
    "Feature matrix",
    "Pair check",
    "Availability",
    "Glossary pairs",
    "v2 → v3",
    "Detect language (beta)",
)

PAGES = (
    DashboardPage("Overview", ":material/dashboard:", "overview", default=True),
    DashboardPage("Keys", ":material/key:", "keys"),
    DashboardPage(
        "Keys & limits",
        ":material/vpn_key:",
        "limits",
        sections=((GUARDRAILS_SECTION, "Guardrails"),),
    ),
    DashboardPage("Trends", ":material/trending_up:", "trends"),
    DashboardPage("Tags", ":material/sell:", "tags"),
    DashboardPage("Language pairs", ":material/swap_horiz:", "pairs"),
    DashboardPage(
        "Languages",
        ":material/translate:",
        "languages",
        tabs=(Tabs("languages_view", LANGUAGE_TABS),),
    ),
    DashboardPage(
        "Capacity",
        ":material/speed:",
        "capacity",
        downloads=(
            Download("download_report", "Download the meeting report (HTML)"),
            Download("download_report_pdf", "Download the meeting report (PDF, {paper})"),
        ),
        tabs=(
            # One tab per measure forecast (characters, minutes, cost), then the keys' month.
            Tabs("forecast"),
            Tabs("outlook", organization_only=True),  # the decision's, one per measure
            Tabs("compare", COMPARISON_TABS),
        ),
    ),
    DashboardPage("Anomalies", ":material/troubleshoot:", "anomalies"),
    DashboardPage("Chargeback", ":material/payments:", "chargeback"),
    DashboardPage(
        "Export",
        ":material/download:",
        "export",
        downloads=(
            Download("download_csv", "Download CSV"),
            Download("download_xlsx", "Download Excel"),
            Download("download_parquet", "Download Parquet"),
            Download("download_focus", "Download FOCUS 1.2"),
        ),
    ),
    DashboardPage(
        "Settings",
        ":material/settings:",
        "settings",
        whole_only=True,
        # One tab per settings document; the organization's documents, so no team's.
        tabs=(Tabs("settings_document", organization_only=True),),
    ),
)


def listed(whole: bool) -> tuple[DashboardPage, ...]:
    """The pages a session's navigation lists and registers: every page for a scope of the
    whole organization (``whole``), a team's scope all but those of the whole organization
    only, which it could not open either."""
    return tuple(page for page in PAGES if whole or not page.whole_only)


def page_at(url_path: str) -> DashboardPage:
    """The page whose address is ``url_path`` (the default page's too, by its own name)."""
    return next(page for page in PAGES if page.url_path == url_path)
