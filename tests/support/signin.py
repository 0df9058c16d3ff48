"""Sign-in end to end, shared by the browser tests that sign in: a real OpenID provider
(`oidc-provider-mock`) signs people in to a dashboard served by `streamlit run` with an
`[auth]` section pointing at it, and Debian's chromium drives the round trip. The addresses,
groups and roles they sign in with, how a dashboard with sign-in is started, and what a signed-in
page shows and sends (its text, its websocket frames, its downloads). The fixtures that start
them are in tests/dashboard/conftest.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
from playwright.sync_api import Page, WebSocket, expect
from pypdf import PdfReader

from bench.processes import free_port
from support.browsers import WAIT_MS, grid_texts, settled
from support.servers import base_path, running_dashboard

ADMIN = "admin@example.org"
GUEST = "guest@example.org"
COOKIE_SECRET = "cookie-secret-of-the-sign-in-tests-0123456789"
CLIENT_ID = "usage-dashboard"
CLIENT_SECRET = "client-secret-of-the-sign-in-tests-0001"
SERVICE_KEY = "service-key-of-the-sign-in-tests-0001:adm"
SECRETS = (COOKIE_SECRET, CLIENT_SECRET, SERVICE_KEY)
# Signed in through the token's `groups` claim, not an e-mail list: Marketing's lead, its key
# administrator, and the guest, whose group maps to no role.
LEAD = "lead@example.org"
KEY_ADMIN = "keys@example.org"
GROUPS = {LEAD: ["marketing-leads"], KEY_ADMIN: ["marketing-key-admins"], GUEST: ["interns"]}
ROLES = """[roles]
claim = "groups"

[roles.groups]
"marketing-leads" = ["team lead of Marketing"]
"marketing-key-admins" = ["key administrator of Marketing"]
"""
# teams.example.toml's Marketing team, as written there.
MARKETING_LABELS = {"Marketing launch", "Sales enablement", "Email assistant", "CRM connector"}
MARKETING_TAGS = {"launch-campaign", "newsletter", "email-drafts"}


def secrets_text(base: str, provider: str) -> str:
    """The dashboard's secrets: the allow-list, the roles of the token's groups and an
    `[auth]` section naming the provider."""
    return (
        f"ADMIN_EMAILS = [{ADMIN!r}]\n\n{ROLES}\n[auth]\n"
        f"redirect_uri = '{base}/oauth2callback'\n"
        f"cookie_secret = '{COOKIE_SECRET}'\n"
        f"client_id = '{CLIENT_ID}'\n"
        f"client_secret = '{CLIENT_SECRET}'\n"
        f"server_metadata_url = '{provider}/.well-known/openid-configuration'\n"
    )


@contextmanager
def signin_dashboard(
    folder: Path, provider: str, env: dict[str, str], *options: str, port: int | None = None
) -> Iterator[str]:
    """`streamlit run app.py` with sign-in through `provider`, its secrets in `folder`; its
    address. Afterwards, its log holds no traceback and none of the secrets."""
    port = port or free_port()
    secrets = folder / "secrets.toml"
    secrets.write_text(secrets_text(f"http://127.0.0.1:{port}{base_path(options)}", provider))
    log = folder / "streamlit.log"
    env = {"SERVICE_HISTORY_PATH": str(folder / "history"), **env}
    with running_dashboard(
        env, "--secrets.files", str(secrets), *options, log=log, port=port
    ) as base:
        yield base
    text = log.read_text()
    assert "Traceback" not in text
    assert_no_secrets(text, "the dashboard's log")


def refusal(asked: str) -> str:
    """The one line an address naming a key outside team Marketing is answered with."""
    return f"key {asked!r} is outside your scope (team Marketing): nothing of it is shown"


def assert_no_secrets(text: str, where: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"a secret appears in {where}"


def run_over(page: Page) -> None:
    """The app's run has finished and all it drew is shown (call once something of the run is
    visible): no status widget, and the run's end reached the page (`settled`)."""
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=WAIT_MS)
    settled(page)


def signed_in_with_data(page: Page, title: str, days: int = 30) -> None:
    """`title`'s page with its figures and the sidebar's sign-out button."""
    expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible(timeout=WAIT_MS)
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=WAIT_MS)
    run_over(page)
    expect(page.get_by_text(f"({days} days)")).to_be_visible()
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_role("button", name="Sign out")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert_no_secrets(page.content(), f"the page at {page.url}")


def authorize(page: Page, provider: str, email: str) -> None:
    """At the provider's page (after "Sign in"): sign in as `email`."""
    page.wait_for_url(f"{provider}/oauth2/authorize?*", timeout=WAIT_MS)
    page.get_by_placeholder("sub").fill(email)
    page.get_by_role("button", name="Authorize").click()


def sign_in(page: Page, provider: str, email: str) -> None:
    page.get_by_role("button", name="Sign in").click()
    authorize(page, provider, email)


def open_by_link(page: Page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible(timeout=WAIT_MS)
    run_over(page)
    expect(page.get_by_test_id("stException")).to_have_count(0)


def received_frames(page: Page) -> list[str]:
    """Every websocket frame the page receives from now on, as text: all the dashboard sends
    the browser (each table's cells and each chart's data among it, whatever is drawn)."""
    frames: list[str] = []

    def listen(socket: WebSocket) -> None:
        socket.on(
            "framereceived",
            lambda payload: frames.append(
                payload if isinstance(payload, str) else payload.decode("utf-8", "replace")
            ),
        )

    page.on("websocket", listen)
    return frames


def page_texts(page: Page) -> list[str]:
    """What the page shows: its text as rendered (`innerText`) and every table's cells and
    headings as its grid's accessible table lists them (a table in a tab not open has none
    drawn: the frames received hold its cells)."""
    texts = [page.evaluate("document.body.innerText")]
    for grid in page.get_by_test_id("stDataFrame").all():
        if grid.is_visible():
            texts += grid_texts(grid, "columnheader") + grid_texts(grid, "gridcell")
    return texts


def downloaded(page: Page, button: str) -> Path:
    """The file that clicking `button` downloads."""
    settled(page)
    with page.expect_download(timeout=WAIT_MS) as info:
        page.get_by_role("button", name=button).click()
    return Path(info.value.path())


def file_text(path: Path, name: str) -> str:
    """A downloaded file's text, whatever its format: cells and headings, or the report's
    words (a PDF's read with pypdf)."""
    if name.endswith(".xlsx"):
        return pd.read_excel(path, dtype=str).to_csv()
    if name.endswith(".parquet"):
        return pd.read_parquet(path).astype(str).to_csv()
    if name.endswith(".pdf"):
        return "\n".join(page.extract_text() for page in PdfReader(path).pages)
    return path.read_text(encoding="utf-8-sig")
