"""Sign-in end to end: a real OpenID provider on loopback, the dashboard served by
`streamlit run` with an `[auth]` section pointing at it, and Debian's chromium driven through
Playwright across the whole round trip.

The provider is `oidc-provider-mock` (a test dependency): its authorization page asks for the
subject to sign in as, and signs that subject in with it as e-mail address. Screenshots of the
sign-in page, the not-allowed page and a signed-in page land in test-artifacts/screenshots/.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator
from urllib.parse import parse_qs, quote, urlencode, urlparse, urlsplit

import pytest
from itsdangerous import TimestampSigner, URLSafeTimedSerializer
from playwright.sync_api import BrowserContext, Page, expect
from support.browsers import WAIT_MS, fresh_context, said, settled, shoot
from support.builders import invoke
from support.faultserver import PASS, FaultServer, write_org_file
from support.headless import DEMO
from support.manual import dashboard_options
from support.servers import base_path
from support.signin import (
    ADMIN,
    COOKIE_SECRET,
    GUEST,
    KEY_ADMIN,
    SERVICE_KEY,
    assert_no_secrets,
    open_by_link,
    page_texts,
    received_frames,
    refusal,
    run_over,
    sign_in,
    signed_in_with_data,
    signin_dashboard,
)

from analytics import pages
from analytics.usage.calendar import utc_today
from bench.processes import free_port
from emulator import EmulatorConfig, create_app
from emulator.served import Emulator

pytestmark = pytest.mark.oidc

USER_COOKIE = "_streamlit_user"
RETURN_COOKIE = "dashboard_return_to"  # the asked-for address, kept through the sign-in
# Every page's address (deep links first, so a fresh server meets one before any other visit),
# the default page's at the root last.
PAGE_PATHS = [f"/{page.url_path}" for page in pages.PAGES if not page.default] + ["/"]
DATA_KINDS = ("stSidebar", "stMetric", "stDataFrame", "stPlotlyChart", "stDownloadButton")


# -- the provider, the dashboard, the browser ---------------------------------------------------


# -- what a page shows --------------------------------------------------------------------------


def only_sign_in(page: Page) -> None:
    """The sign-in page and nothing of the dashboard."""
    expect(page.get_by_role("button", name="Sign in")).to_be_visible(timeout=WAIT_MS)
    run_over(page)
    expect(page.get_by_role("heading", name="Usage dashboard", exact=True)).to_be_visible()
    no_dashboard(page)
    expect(page.get_by_role("button", name="Sign out")).to_have_count(0)


def no_dashboard(page: Page) -> None:
    for kind in DATA_KINDS:
        expect(page.get_by_test_id(kind)).to_have_count(0)
    expect(page.get_by_text("Demo data")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert_no_secrets(page.content(), f"the page at {page.url}")


def sign_out(page: Page, provider: str) -> None:
    """Sign out, confirming the end of the session at the provider."""
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(f"{provider}/oauth2/end_session?*", timeout=WAIT_MS)
    page.get_by_role("button", name="End session").click()


def user_cookie(context: BrowserContext) -> dict | None:
    return next((c for c in context.cookies() if c["name"] == USER_COOKIE), None)


def path_of(url: str) -> str:
    return urlsplit(url).path


# -- the cases ----------------------------------------------------------------------------------


def test_a_visitor_not_signed_in_sees_only_the_sign_in_page(dashboard, browser):
    page = browser().new_page()
    for path in PAGE_PATHS:
        page.goto(f"{dashboard}{path}?period=All+history")
        only_sign_in(page)
        assert path_of(page.url) == path  # the address stays; no "Page not found" notice
        expect(page.get_by_text("Page not found")).to_have_count(0)
    # An address that is no page: Streamlit's notice, over the sign-in page.
    page.goto(f"{dashboard}/no-such-page")
    only_sign_in(page)
    expect(page.get_by_text("Page not found")).to_be_visible()
    shoot(page, "sign-in.png")


def test_an_allowed_address_signs_in_and_sees_data(dashboard, others, provider, browser):
    context = browser()
    page = context.new_page()
    frames = received_frames(page)
    page.goto(f"{dashboard}/trends?period=Last+7+days")
    only_sign_in(page)
    sign_in(page, provider, "Admin@Example.org")  # the allow-list ignores case
    # Streamlit's callback returns to the app's root; the dashboard then goes on to the page
    # and range that were asked for.
    signed_in_with_data(page, "Trends", days=7)
    expect(page).to_have_url(f"{dashboard}/trends?period=Last+7+days", timeout=WAIT_MS)
    shoot(page, "signed-in.png")
    cookie = user_cookie(context)
    assert cookie is not None
    assert (cookie["httpOnly"], cookie["sameSite"], cookie["path"]) == (True, "Lax", "/")
    # The address is used once: the root, opened again, is the first page, default range.
    page.goto(f"{dashboard}/")
    signed_in_with_data(page, "Overview", days=30)
    assert not any(c["name"] == RETURN_COOKIE for c in context.cookies())
    # The organization viewer's Keys & limits lists every team's keys, as before roles.
    open_by_link(page, "Keys & limits")
    sent = "\n".join(frames)
    assert [label for label in others["labels"] if label not in sent] == []


# The configured organization's teams: one key each.
COUNTED_TEAMS = """[[team]]
name = "Marketing"
labels = ["Marketing launch"]

[[team]]
name = "Web shop"
labels = ["Team A"]
"""


@pytest.fixture(scope="module")
def counted(provider, tmp_path_factory) -> Iterator[tuple[str, FaultServer, Emulator]]:
    """A dashboard reading a service that counts every request: the emulator (three keys with
    usage on each of the last 60 days; Marketing's and Web shop's in its teams settings)
    behind a recording loopback server."""
    folder = tmp_path_factory.mktemp("counted")
    today = utc_today()
    days = [today - dt.timedelta(days=n) for n in range(60, 0, -1)]
    labels = {
        SERVICE_KEY: "Finance nightly",
        "team-key-000000000001": "Team A",
        "team-key-000000000002": "Marketing launch",
    }
    org = write_org_file(folder / "org.toml", labels, days, admin=SERVICE_KEY)
    app = create_app(EmulatorConfig(org_file=org, today=today))
    (folder / "teams.toml").write_text(COUNTED_TEAMS, encoding="utf-8")
    with FaultServer(app, [PASS]) as service:
        env = {
            "SERVICE_BASE_URL": service.base_url,
            "SERVICE_AUTH_KEY": SERVICE_KEY,
            "SERVICE_HISTORY_PATH": str(folder / "history"),
        }
        imported = invoke("settings", "import", str(folder / "teams.toml"), "--yes", env=env)
        assert imported.exit_code == 0, imported.stderr
        # Settings are the state store's: the service is only read, for the names the teams
        # settings are checked against (its keys, tags and usage labels), never changed.
        assert service.seen and {seen.method for seen in service.seen} == {"GET"}
        with signin_dashboard(folder, provider, env) as base:
            yield base, service, app.state.emulator
    app.state.emulator.store.close()


def test_an_address_not_on_the_list_sees_only_not_allowed_and_reaches_no_service(
    counted, provider, browser
):
    base, service, _ = counted
    before = len(service.seen)  # what the module's other sessions asked for
    page = browser().new_page()
    page.goto(f"{base}/keys?period=All+history")
    only_sign_in(page)
    sign_in(page, provider, GUEST)
    expect(page.get_by_text(f"{GUEST} is not allowed")).to_be_visible(timeout=WAIT_MS)
    run_over(page)
    no_dashboard(page)
    expect(page.get_by_role("button", name="Sign in")).to_have_count(0)
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    shoot(page, "not-allowed.png")
    for path in PAGE_PATHS:
        page.goto(f"{base}{path}?period=All+history")
        expect(page.get_by_text(f"{GUEST} is not allowed")).to_be_visible(timeout=WAIT_MS)
        run_over(page)
        no_dashboard(page)
    assert service.seen[before:] == [], (
        "a session that is not allowed made the dashboard ask the service"
    )
    # The control: the same browser, signed in as a listed address, does reach the service.
    sign_out(page, provider)
    only_sign_in(page)
    sign_in(page, provider, ADMIN)
    expect(page.get_by_role("heading", name="Overview", exact=True)).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_test_id("stMetric").first).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("Organization at http://127.0.0.1")).to_be_visible()
    assert service.seen[before:]


def test_signing_out_ends_the_session(dashboard, provider, browser):
    context = browser()
    page = context.new_page()
    page.goto(f"{dashboard}/")
    sign_in(page, provider, ADMIN)
    signed_in_with_data(page, "Overview")
    sign_out(page, provider)
    only_sign_in(page)
    assert user_cookie(context) is None
    # Back to the signed-in page in the history, past the provider's sign-out page.
    page.go_back()
    page.go_back()
    assert page.url == f"{dashboard}/"
    only_sign_in(page)
    page.reload()
    only_sign_in(page)
    # A new tab of the same browser is not signed in either.
    other = context.new_page()
    other.goto(f"{dashboard}/keys")
    only_sign_in(other)


# -- refused: forged or expired cookies, a wrong state, a replayed callback ---------------------


class Backdated(TimestampSigner):
    """Signs as of 32 days ago: past the identity cookie's 30 days and Streamlit's day of grace."""

    def get_timestamp(self) -> int:
        return int((dt.datetime.now(dt.UTC) - dt.timedelta(days=32)).timestamp())


def signed_cookie(
    payload: dict, secret: str, signer: type[TimestampSigner] = TimestampSigner
) -> str:
    """An identity cookie as Streamlit writes it: the JSON text, signed with `secret`."""
    serializer = URLSafeTimedSerializer(secret, salt=USER_COOKIE, signer=signer)
    return serializer.dumps(json.dumps(payload))


def tampered(cookie: str, email: str) -> str:
    """A real cookie with its e-mail changed and its signature kept."""
    serializer = URLSafeTimedSerializer("unknown", salt=USER_COOKIE)
    _, text = serializer.loads_unsafe(cookie)
    claims = json.loads(text)
    claims["email"] = claims["sub"] = email
    *_, timestamp, signature = cookie.split(".")
    payload = serializer.dump_payload(json.dumps(claims)).decode()
    return f"{payload}.{timestamp}.{signature}"


def admin_claims(base: str) -> dict:
    origin = "{0.scheme}://{0.netloc}".format(urlparse(base))
    return {
        "sub": ADMIN,
        "email": ADMIN,
        "origin": origin,
        "is_logged_in": True,
        "provider": "default",
    }


COOKIES: dict[str, Callable[[str, str], str]] = {
    "signed with another secret": lambda base, _: signed_cookie(
        admin_claims(base), "another-secret-of-the-same-length-0123456789"
    ),
    "expired": lambda base, _: signed_cookie(admin_claims(base), COOKIE_SECRET, Backdated),
    "a real cookie with another address": lambda _, guest_cookie: tampered(guest_cookie, ADMIN),
}


@pytest.fixture(scope="module")
def guest_cookie(dashboard, provider, chromium) -> str:
    """A real identity cookie, of an address not on the list."""
    context = fresh_context(chromium)
    try:
        page = context.new_page()
        page.goto(f"{dashboard}/")
        sign_in(page, provider, GUEST)
        expect(page.get_by_text(f"{GUEST} is not allowed")).to_be_visible(timeout=WAIT_MS)
        cookie = user_cookie(context)
        assert cookie is not None
        return cookie["value"]
    finally:
        context.close()


def visit_with_cookie(context: BrowserContext, base: str, value: str) -> Page:
    context.add_cookies([{"name": USER_COOKIE, "value": value, "url": f"{base}/"}])
    page = context.new_page()
    page.goto(f"{base}/keys")
    return page


@pytest.mark.parametrize("kind", list(COOKIES))
def test_a_forged_or_expired_cookie_is_refused(dashboard, browser, guest_cookie, kind):
    page = visit_with_cookie(browser(), dashboard, COOKIES[kind](dashboard, guest_cookie))
    only_sign_in(page)


def test_cookies_made_like_the_forged_ones_are_accepted_when_genuine(
    dashboard, browser, guest_cookie
):
    """The controls: the cookies above fail for their secret, age or edit alone."""
    fresh = signed_cookie(admin_claims(dashboard), COOKIE_SECRET)
    signed_in_with_data(visit_with_cookie(browser(), dashboard, fresh), "Keys")
    # The real cookie taken apart and put together again, its address unchanged.
    page = visit_with_cookie(browser(), dashboard, tampered(guest_cookie, GUEST))
    expect(page.get_by_text(f"{GUEST} is not allowed")).to_be_visible(timeout=WAIT_MS)


def callback_of(context: BrowserContext, authorize_url: str, email: str) -> str:
    """Sign in at the provider without following its answer: the callback address it sends
    the browser to (with the code and the state)."""
    answer = context.request.post(authorize_url, form={"sub": email}, max_redirects=0)
    assert answer.status == 302
    return answer.headers["location"]


def with_state(callback: str, state: str) -> str:
    parts = urlsplit(callback)
    query = {name: values[0] for name, values in parse_qs(parts.query).items()}
    return parts._replace(query=urlencode(query | {"state": state})).geturl()


def test_a_callback_with_a_wrong_state_or_replayed_is_refused(dashboard, provider, browser):
    context = browser()
    page = context.new_page()
    page.goto(f"{dashboard}/")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{provider}/oauth2/authorize?*", timeout=WAIT_MS)
    callback = callback_of(context, page.url, ADMIN)
    assert callback.startswith(f"{dashboard}/oauth2callback?")
    # A valid code with a state this browser was not given.
    page.goto(with_state(callback, "a-state-the-dashboard-never-issued"))
    only_sign_in(page)
    assert user_cookie(context) is None
    # The genuine callback still works (the control), once.
    page.goto(callback)
    signed_in_with_data(page, "Overview")
    # Replayed in another browser (a leaked address): refused.
    thief = browser().new_page()
    thief.goto(callback)
    only_sign_in(thief)
    assert user_cookie(thief.context) is None
    # Replayed after signing out in the same browser: refused too.
    sign_out(page, provider)
    only_sign_in(page)
    page.goto(callback)
    only_sign_in(page)
    assert user_cookie(context) is None


# -- deployment: the manual's options, under a base path ----------------------------------------


def test_the_manuals_deployment_serves_under_its_base_path(provider, browser, tmp_path):
    """The manual's dashboard unit's `usage-dashboard serve` options (on a free port instead
    of 8501): pages, the websocket and the sign-in callback all under the base path."""
    options = dashboard_options()
    del options[options.index("--server.port") : options.index("--server.port") + 2]
    with signin_dashboard(tmp_path, provider, DEMO, *options, port=free_port()) as base:
        path = base_path(options)
        assert path and urlparse(base).path == path
        context = browser()
        page = context.new_page()
        sockets: list[str] = []
        page.on("websocket", lambda socket: sockets.append(socket.url))
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        for name in ("", "keys"):
            page.goto(f"{base}/{name}")
            only_sign_in(page)
            assert page.url == f"{base}/{name}"
        sign_in(page, provider, ADMIN)
        # The page asked for last, its figures over the websocket.
        signed_in_with_data(page, "Keys")
        expect(page).to_have_url(f"{base}/keys", timeout=WAIT_MS)
        origin = base.removesuffix(path)
        assert set(sockets) == {f"{origin.replace('http', 'ws', 1)}{path}/_stcore/stream"}
        # Every request to the dashboard stayed under the base path, the callback's included.
        paths = [urlsplit(url).path for url in requested if url.startswith(f"{origin}/")]
        assert all(p.startswith(f"{path}/") for p in paths), paths
        assert f"{path}/oauth2callback" in paths
        cookie = user_cookie(context)
        assert cookie is not None and cookie["path"] == path
        page.goto(f"{base}/trends")
        signed_in_with_data(page, "Trends")
        sign_out(page, provider)
        only_sign_in(page)
        assert page.url == f"{base}/"


# -- team scopes: a key administrator by its group (a team lead's is in test_team_walk.py) ------


def test_a_teams_key_administrator_changes_its_keys_only(counted, provider, browser):
    """Marketing's key administrator, by the token's `groups` claim, on the configured
    service: a Marketing key's limit changes; Web shop's key is not listed, and its address is
    refused in one line (the page goes on with the team's own key)."""
    base, _, emulator = counted
    ids = {key.label: key.published_id for key in emulator.store.developer_keys()}
    page = browser().new_page()
    page.goto(f"{base}/limits")
    sign_in(page, provider, KEY_ADMIN)
    expect(page.get_by_role("heading", name="Keys & limits", exact=True)).to_be_visible(
        timeout=WAIT_MS
    )
    expect(page.get_by_text("Marketing launch: nothing to change")).to_have_count(
        2, timeout=WAIT_MS
    )
    run_over(page)
    assert "Team A" not in "\n".join(page_texts(page))
    page.get_by_text("No character limit").click()
    settled(page)
    page.get_by_label("Characters", exact=True).fill("2000000")
    page.get_by_role("button", name="Save limits").click()
    saved = "Saved: Marketing launch: characters no limit → 2,000,000."
    expect(said(page, saved)).to_be_visible(timeout=WAIT_MS)
    assert emulator.store.developer_key(ids["Marketing launch"]).character_limit == 2_000_000
    # Web shop's key by its id, in the address: refused, and left as it was.
    asked = ids["Team A"]
    page.goto(f"{base}/limits?key={quote(asked, safe='')}")
    refused = page.get_by_test_id("stAlertContentError").get_by_test_id("stMarkdownContainer")
    expect(refused).to_have_text([refusal(asked)])
    run_over(page)
    assert "Team A" not in "\n".join(page_texts(page))
    assert emulator.store.developer_key(asked).character_limit is None
