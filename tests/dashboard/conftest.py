"""The sign-in tests' fixtures (tests/support/signin.py has what they share besides): the
OpenID provider, the demo dashboard behind sign-in, its organization built again as the oracle,
and one chromium whose fresh contexts are the browsers a test opens. A module that defines a
fixture of the same name (test_browser.py's dashboard and browser) uses its own."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, sync_playwright
from support.browsers import CHROMIUM, fresh_context, one_chromium, unavailable
from support.headless import DEMO, DEMO_DAYS, demo_config
from support.signin import (
    GROUPS,
    MARKETING_LABELS,
    MARKETING_TAGS,
    assert_no_secrets,
    signin_dashboard,
)

from analytics.usage.calendar import utc_today
from emulator import create_app
from emulator.served import Emulator


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    """`oidc-provider-mock` in a thread, on a free loopback port; its address."""
    try:
        import oidc_provider_mock
        from werkzeug.serving import WSGIRequestHandler, make_server
    except ImportError:
        unavailable("oidc-provider-mock is not installed (pip install -r requirements-dev.txt)")

    class Quiet(WSGIRequestHandler):
        def log_request(self, *args: object) -> None:
            """Request lines carry tokens; test output does not need them."""

    users = [
        oidc_provider_mock.User(sub=email, claims={"email": email, "groups": groups})
        for email, groups in GROUPS.items()
    ]
    app = oidc_provider_mock.app(user_claims=users)
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=Quiet)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory) -> Path:
    """The demo dashboard's folder: its secrets, its log and its history folder."""
    return tmp_path_factory.mktemp("dashboard")


@pytest.fixture(scope="module")
def dashboard(provider, demo_folder) -> Iterator[str]:
    """The demo organization behind sign-in."""
    with signin_dashboard(demo_folder, provider, DEMO) as base:
        yield base


@pytest.fixture(scope="module")
def demo_org() -> Iterator[Emulator]:
    """The dashboard's demo organization built again from its settings: its ledger is the
    oracle of what each team's keys and tags are."""
    app = create_app(demo_config(today=utc_today()))
    yield app.state.emulator
    app.state.emulator.store.close()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    if CHROMIUM is None:
        unavailable("chromium is not installed (apt-get install chromium)")
    with sync_playwright() as driver:
        started = one_chromium(driver)
        yield started
        started.close()


@pytest.fixture
def browser(chromium) -> Iterator[Callable[[], BrowserContext]]:
    """Opens browsers, each with a fresh profile; afterwards, no address any of them asked for
    held a secret."""
    opened: list[BrowserContext] = []
    urls: list[str] = []

    def open_browser() -> BrowserContext:
        context = fresh_context(chromium)
        context.on("request", lambda request: urls.append(request.url))
        opened.append(context)
        return context

    yield open_browser
    for context in opened:
        context.close()
    assert urls
    assert_no_secrets("\n".join(urls), "an address the browser asked for")


@pytest.fixture(scope="module")
def others(demo_org) -> dict[str, set[str]]:
    """Of the demo organization: every key's label, masked key and key id outside Marketing
    (whose keys are known by teams.example.toml's labels), and every tag outside it."""
    today = utc_today()
    tags = {
        row.custom_tag for row in demo_org.store.tag_ledger(today - dt.timedelta(DEMO_DAYS), today)
    }
    theirs = [spec for spec in demo_org.keys if spec.label not in MARKETING_LABELS]
    return {
        "things": {text for spec in theirs for text in (spec.label, spec.masked, spec.published_id)}
        | (tags - MARKETING_TAGS),
        "ids": {spec.published_id for spec in theirs if not spec.admin},
        "labels": {spec.label for spec in demo_org.keys if not spec.admin},
        "tags": tags,
    }
