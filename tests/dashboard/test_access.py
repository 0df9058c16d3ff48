"""Who can reach the dashboard: only this machine unless configured otherwise, and with sign-in
configured only signed-in addresses on the allow-list.

A session that may not see the dashboard gets the sign-in page and nothing else: no sidebar,
no page it asks for by name, and not a single request to the service.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tomllib
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
import websockets
from streamlit.testing.v1 import AppTest
from support.faultserver import FaultServer, Reply
from support.headless import app_test, one_run
from support.servers import ROOT, running_dashboard

from analytics.access import rights, role_settings
from analytics.dashboard import visitor
from analytics.dashboard.access import MIN_COOKIE_SECRET, Access, access_decision, sign_in_error
from analytics.pages import page_at

PAGES = ["overview", "keys", "trends", "languages", "export"]
COOKIE_SECRET = "cookie-secret-for-the-gate-tests-0001"
LEAD = "lead@example.org"
AUTH = {
    "auth": {
        "redirect_uri": "http://localhost:8501/oauth2callback",
        "cookie_secret": COOKIE_SECRET,
        "client_id": "dashboard",
        "client_secret": "not-used",
        "server_metadata_url": "https://login.example.org/.well-known/openid-configuration",
    }
}
ALLOWED = ["admin@example.org"]


def test_config_keeps_the_server_on_this_machine():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "127.0.0.1"
    assert config["browser"]["gatherUsageStats"] is False
    # What Streamlit itself makes of the file (run from the checkout, as `make run` does).
    names = ["server.address", "server.enableCORS", "server.enableXsrfProtection"]
    script = (
        "import json, streamlit.config as c; c.get_config_options(force_reparse=True); "
        f"print(json.dumps({{n: c.get_option(n) for n in {names!r}}}))"
    )
    shown = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(shown.stdout.strip().splitlines()[-1]) == {
        "server.address": "127.0.0.1",
        "server.enableCORS": True,
        "server.enableXsrfProtection": True,
    }


def listening_addresses(port: int) -> set[str]:
    """Local addresses with a socket listening on `port`, from the kernel's tables."""
    found = set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            lines = open(table).read().splitlines()[1:]  # noqa: SIM115
        except FileNotFoundError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port and len(address) == width:
                found.add(address)
    return found


def test_running_dashboard_listens_on_loopback_only(tmp_path):
    env = {
        "SERVICE_DEMO_KEYS": "4",
        "SERVICE_DEMO_DAYS": "30",
        "SERVICE_HISTORY_PATH": str(tmp_path),
    }
    with running_dashboard(env) as base:
        port = int(base.rsplit(":", 1)[1])
        # 127.0.0.1 in the kernel's little-endian hex; nothing on 0.0.0.0 or ::.
        assert listening_addresses(port) == {"0100007F"}


# -- the sign-in gate --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("configured", "logged_in", "email", "allow", "expected"),
    [
        (False, False, None, [], Access.OPEN),
        (True, False, None, ["a@x.org"], Access.SIGN_IN),
        (True, True, "A@X.org", ["a@x.org"], Access.ALLOWED),
        (True, True, " a@x.org ", [" A@x.org", ""], Access.ALLOWED),
        (True, True, "b@x.org", ["a@x.org"], Access.DENIED),
        (True, True, "a@x.org", [], Access.DENIED),
        (True, True, "a@x.org", ["", "  "], Access.DENIED),
        (True, True, None, ["a@x.org"], Access.DENIED),
    ],
)
def test_access_decision(configured, logged_in, email, allow, expected):
    held = rights(role_settings({"ADMIN_EMAILS": allow}).grants(email, {}))
    assert access_decision(configured, logged_in, held) is expected


@pytest.mark.parametrize(
    ("user", "allowed", "shown"),
    [
        ({"is_logged_in": False}, ["admin@example.org"], "Sign in"),
        (
            {"is_logged_in": True, "email": "guest@example.org"},
            ["admin@example.org"],
            "not allowed",
        ),
        ({"is_logged_in": True, "email": "Admin@Example.org"}, ["admin@example.org"], "Overview"),
    ],
)
def test_sign_in_gate_on_the_demo_organization(demo_env, user, allowed, shown):
    at = app_test()
    at.secrets.update(AUTH | {"ADMIN_EMAILS": allowed})
    at.user = user
    at.run()
    assert not at.exception
    text = " ".join([t.value for t in at.title] + [w.value for w in at.warning])
    text += " ".join(b.label for b in at.button)
    assert shown in text
    if shown != "Overview":
        assert not at.metric  # no usage is shown before the gate opens
    else:
        assert [b.label for b in at.sidebar.button] == ["Sign out"]


@pytest.fixture
def service(monkeypatch, tmp_path):
    """A configured service that records every request (and refuses every one)."""
    for name in list(os.environ):
        if name.startswith("SERVICE_"):
            monkeypatch.delenv(name)
    with FaultServer(None, [Reply(status=403, body=b'{"message": "refused"}')]) as server:
        monkeypatch.setenv("SERVICE_BASE_URL", server.base_url)
        monkeypatch.setenv("SERVICE_AUTH_KEY", "gate-test-admin-key-0001")
        monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path))
        yield server


def gated_app(user: dict[str, object], allowed: object = ALLOWED) -> AppTest:
    at = app_test(timeout=60)
    at.secrets.update(AUTH | {"ADMIN_EMAILS": allowed})
    at.user = user
    return at


def only_the_sign_in_page(at: AppTest) -> None:
    assert not at.exception
    assert [t.value for t in at.title] == ["Usage dashboard"]
    assert {b.label for b in at.button} <= {"Sign in", "Sign out"}
    assert not at.sidebar.children
    for kind in ("metric", "dataframe", "plotly_chart", "selectbox", "download_button", "code"):
        assert not at.get(kind), f"a signed-out session sees a {kind}"


OUTSIDERS = [
    pytest.param({"is_logged_in": False}, ALLOWED, id="not signed in"),
    pytest.param({"is_logged_in": True, "email": "guest@example.org"}, ALLOWED, id="not listed"),
    pytest.param({"is_logged_in": True}, ALLOWED, id="signed in without an address"),
    pytest.param({"is_logged_in": True, "email": "admin@example.org"}, [], id="empty list"),
    pytest.param(
        {"is_logged_in": True, "email": "admin@example.org.evil.test"}, ALLOWED, id="look-alike"
    ),
]


@pytest.mark.parametrize(("user", "allowed"), OUTSIDERS)
@pytest.mark.parametrize("page", PAGES)
def test_outsiders_see_only_the_sign_in_page(service, user, allowed, page):
    at = gated_app(user, allowed)
    at.query_params["period"] = "All history"
    at.run()
    only_the_sign_in_page(at)
    # The dashboard's pages are not even registered for this session: their addresses lead
    # to the sign-in page, and no page file is known (it would be listed by its path).
    with pytest.raises(ValueError, match=r"Known pages: \['Sign in'(, '[a-z-]+')*\]"):
        at.switch_page(str(page_at(page).file))
    assert service.seen == []  # the gate stands before any request to the service


@contextmanager
def dashboard_with_secrets(tmp_path, sign_in: bool) -> Iterator[tuple[str, FaultServer]]:
    """A running dashboard whose secrets name a service (a recording fault server that refuses
    everything) and, with `sign_in`, an OIDC provider. Its address and the service."""
    with FaultServer(None, [Reply(status=403, body=b'{"message": "refused"}')]) as service:
        secrets = tmp_path / "secrets.toml"
        text = (
            "ADMIN_EMAILS = ['admin@example.org']\n"
            f"SERVICE_BASE_URL = '{service.base_url}'\n"
            "SERVICE_AUTH_KEY = 'gate-test-admin-key-0001'\n"
        )
        if sign_in:
            text += (
                "[auth]\nredirect_uri = 'http://localhost:8501/oauth2callback'\n"
                f"cookie_secret = '{COOKIE_SECRET}'\nclient_id = 'dashboard'\n"
                "client_secret = 'not-used'\n"
                "server_metadata_url = 'https://login.example.org/.well-known/openid-configuration'\n"
            )
        secrets.write_text(text)
        env = {"SERVICE_HISTORY_PATH": str(tmp_path / "history")}
        with running_dashboard(env, "--secrets.files", str(secrets)) as base:
            yield base, service


def visit(base: str, page: str) -> tuple[list[str], list[str]]:
    """Open /<page> in a new session, not signed in: the kinds and texts of what it shows."""
    stream = base.replace("http://", "ws://") + "/_stcore/stream"

    async def run() -> list:
        async with websockets.connect(stream, max_size=None) as session:
            return await one_run(session, "period=All+history", page_name=page)

    elements = asyncio.run(run())
    return [e.WhichOneof("type") for e in elements], [str(e) for e in elements]


def test_pages_asked_for_by_url_show_only_sign_in_on_a_real_server(tmp_path):
    with dashboard_with_secrets(tmp_path, sign_in=True) as (base, service):
        for page in PAGES[1:]:
            kinds, texts = visit(base, page)
            assert "heading" in kinds and "button" in kinds
            assert not set(kinds) & {"metric", "dataframe", "plotly_chart", "selectbox"}, page
            assert any("Usage dashboard" in text for text in texts)
            assert any("Sign in" in text for text in texts)
        assert service.seen == []


def test_without_sign_in_configured_the_same_url_opens_the_page(tmp_path):
    """The control: the check above would see the page if the gate let it through."""
    with dashboard_with_secrets(tmp_path, sign_in=False) as (base, service):
        kinds, texts = visit(base, "keys")
        assert service.seen  # the page asked the service (which refused the key)
    assert "selectbox" in kinds  # the sidebar's date range
    assert any("refused the API key" in text for text in texts)


def test_a_listed_address_gets_through_and_can_sign_out(service):
    at = gated_app({"is_logged_in": True, "email": " Admin@Example.org "})
    at.run()
    assert not at.exception
    assert "Sign out" in {b.label for b in at.sidebar.button}
    assert service.seen  # now the dashboard asks the service


# -- sign-in settings that would not be safe close the dashboard -------------------------------


def with_auth(**changes: object) -> dict[str, object]:
    """The test's sign-in settings with `[auth]` entries changed (None removes one)."""
    auth = {k: v for k, v in (AUTH["auth"] | changes).items() if v is not None}
    return {"auth": auth, "ADMIN_EMAILS": ALLOWED}


UNSAFE = [
    pytest.param(with_auth(cookie_secret=None), "no cookie_secret", id="no cookie secret"),
    pytest.param(with_auth(cookie_secret=""), "no cookie_secret", id="empty cookie secret"),
    pytest.param(
        with_auth(cookie_secret="s" * (MIN_COOKIE_SECRET - 1)),
        f"shorter than {MIN_COOKIE_SECRET} characters",
        id="short cookie secret",
    ),
    pytest.param(
        {"auth": AUTH["auth"]},
        "ADMIN_EMAILS or [roles], who is allowed in, is missing",
        id="no allow-list",
    ),
    pytest.param(
        {**AUTH, "roles": {"emails": {"lead@example.org": ["team lead"]}}},
        "[roles.emails] 'lead@example.org': 'team lead': name the team",
        id="a team lead of no team",
    ),
    pytest.param(
        {**AUTH, "roles": {"groups": {"web": ["finance"]}}},
        "[roles.groups] needs [roles] claim",
        id="groups without their claim",
    ),
    pytest.param(
        {**AUTH, "ADMIN_EMAILS": "admin@example.org"}, "must be a list", id="allow-list a string"
    ),
    pytest.param(
        {**AUTH, "ADMIN_EMAILS": ["admin@example.org", 7]}, "must be a list", id="not strings"
    ),
    pytest.param({**AUTH, "ADMIN_EMAILS": {"admin": True}}, "must be a list", id="a table"),
    pytest.param(with_auth(client_id=None), "lacks client_id", id="no client id"),
    pytest.param(
        with_auth(redirect_uri="http://localhost:8501/"),
        "must end with /oauth2callback",
        id="redirect elsewhere",
    ),
    pytest.param({"auth": "on", "ADMIN_EMAILS": ALLOWED}, "must be a section", id="auth a string"),
]


@pytest.mark.parametrize(("given", "problem"), UNSAFE)
def test_unsafe_sign_in_settings_are_named(given, problem):
    error = sign_in_error(given)
    assert error is not None
    assert problem in error
    assert COOKIE_SECRET not in error and "s" * (MIN_COOKIE_SECRET - 1) not in error


def test_every_problem_is_in_the_one_message():
    error = sign_in_error({"auth": {"cookie_secret": "tiny-cookie-secret"}})
    assert error is not None
    assert "shorter than" in error
    assert "lacks redirect_uri, client_id, client_secret, server_metadata_url" in error
    assert "ADMIN_EMAILS" in error
    assert "tiny-cookie-secret" not in error  # the secret's value is never shown


@pytest.mark.parametrize(
    "given",
    [
        pytest.param({}, id="no sign-in"),
        pytest.param({"ADMIN_EMAILS": ALLOWED}, id="allow-list alone"),
        pytest.param({**AUTH, "ADMIN_EMAILS": ALLOWED}, id="complete"),
        pytest.param({**AUTH, "ADMIN_EMAILS": []}, id="empty list admits nobody"),
        pytest.param(
            {**AUTH, "roles": {"claim": "groups", "groups": {"web": ["team lead of Web shop"]}}},
            id="roles alone",
        ),
        pytest.param(
            with_auth(cookie_secret="s" * MIN_COOKIE_SECRET), id="secret just long enough"
        ),
    ],
)
def test_safe_settings_pass(given):
    assert sign_in_error(given) is None


@pytest.mark.parametrize(
    "user",
    [
        pytest.param({"is_logged_in": True, "email": "admin@example.org"}, id="listed"),
        pytest.param({"is_logged_in": False}, id="not signed in"),
    ],
)
@pytest.mark.parametrize(("given", "problem"), UNSAFE)
def test_unsafe_sign_in_settings_close_the_dashboard(service, given, problem, user):
    at = app_test(timeout=60)
    at.secrets.update(given)
    at.user = user
    at.query_params["period"] = "All history"
    at.run()
    assert not at.exception
    [error] = at.error
    assert error.value.startswith("The dashboard is closed: its sign-in settings")
    assert problem in error.value
    assert not at.title and not at.button and not at.sidebar.children
    for kind in ("metric", "dataframe", "plotly_chart", "selectbox", "download_button", "code"):
        assert not at.get(kind), f"a closed dashboard shows a {kind}"
    assert service.seen == []


def test_a_runs_visitor_is_worked_out_once_whoever_asks(demo_env, monkeypatch):
    """The rights a lead's roles give and the teams settings the scope is resolved over are
    read once a run, however many surfaces ask: the gate, the navigation, the sidebar, the
    page, and on Keys & limits the permission of each action."""
    asked: Counter[str] = Counter()

    def counting(name: str) -> Callable[..., object]:
        real = getattr(visitor, name)

        def call(*args: object) -> object:
            asked[name] += 1
            return real(*args)

        return call

    for name in ("rights", "scoped"):
        monkeypatch.setattr(visitor, name, counting(name))
    at = app_test()
    at.secrets.update(AUTH | {"roles": {"emails": {LEAD: ["team lead of Marketing"]}}})
    at.user = {"is_logged_in": True, "email": LEAD}
    for runs, page in enumerate(("overview", "limits", "keys"), start=1):
        at.switch_page(str(page_at(page).file)).run()
        assert not at.exception
        assert any("Team Marketing" in box.value for box in at.sidebar.info)  # the lead's scope
        assert asked == {"rights": runs, "scoped": runs}
