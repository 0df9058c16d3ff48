"""A team lead's pages against the organization viewer's, on one signed-in dashboard in one run.

A team lead's pages read the organization's frames, cached once for every session, narrowed to
the team's keys and cached per scope (`analytics.access.scope`, `analytics.dashboard.data`);
the line holds that narrowing to a tenth of the page's time. Both people are signed in to the
same dashboard (`bench/dashboard.py` with sign-in configured and roles given by its secrets),
each in a browser context of one chromium that carries the identity cookie a sign-in through
the identity provider would have left: Streamlit's, signed with the secrets' cookie secret (a
fresh one each run), so no identity provider is asked and none needs to run.

The team is Marketing of the example teams settings, written for the benchmark's organization:
each label a team names claims its numbered copies too ("Email assistant 12"), as the example
would be written for an organization of a thousand keys, so that every team holds a share of
the keys (Marketing 176 of 1,000, and three custom tags) rather than the four keys the example
names. The settings are in force as a teams.toml beside the dashboard would be at its first
start: imported once into the demo's state store before the dashboard starts.
"""

from __future__ import annotations

import json
import re
import secrets
import statistics
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import tomlkit
from itsdangerous import URLSafeTimedSerializer

from analytics.service.service_connection import ServiceConnection
from analytics.settings.versions import import_once
from analytics.usage.calendar import utc_now
from analytics.usage.records import records_of
from bench import browser, synthetic_orgs
from bench.result_lines import Result, result

VIEWER = "viewer@example.org"
LEAD = "lead@example.org"
TEAM = "Marketing"
PEOPLE = {"organization viewer": VIEWER, f"team lead of {TEAM}": LEAD}
# Streamlit's identity cookie: its name is also the salt of its signature.
USER_COOKIE = "_streamlit_user"
# What every page of the lead's shows in the sidebar (`Scope.line`).
SCOPE_LINE = re.compile(rf"Team {TEAM}: ([\d,]+) keys?, ([\d,]+) tags?")
SCOPED_TARGET = 1.1
KINDS = ("warm", "cold")  # the loads timed, in the order of the figures


def teams_text() -> str:
    """The example teams settings with each label claiming its numbered copies as well."""
    settings = tomlkit.parse((synthetic_orgs.ROOT / "teams.example.toml").read_text())
    for team in settings["team"]:  # type: ignore[union-attr]
        copies = [f"{label} [0-9]*" for label in team.get("labels", [])]
        if copies:
            team.setdefault("label_patterns", tomlkit.array()).extend(copies)
    return tomlkit.dumps(settings)


def put_teams_in_force(history: Path, keys: int) -> None:
    """`teams_text` as the teams settings in force of the demo organization of `keys` keys
    whose history folder is `history`: imported into its state store, once, as a teams.toml
    found at the dashboard's first start would be."""
    connection = ServiceConnection(
        history_path=history,
        demo_keys=keys,
        demo_days=synthetic_orgs.DAYS,
        demo_seed=synthetic_orgs.SEED,
    )
    records = records_of(connection, demo=True)
    assert records is not None  # the demo with a history folder keeps records
    import_once(records, {"teams": (teams_text(), "teams.toml")}, utc_now())
    records.store.engine.dispose()  # the dashboard's process writes it from now on


def signin_secrets(cookie_secret: str) -> Callable[[str], str]:
    """The dashboard's secrets for its address: sign-in configured, the viewer by ADMIN_EMAILS
    and the lead by `[roles.emails]`. The provider's address is never reached: nobody signs
    in through it (see the module's docstring)."""

    def written(base_url: str) -> str:
        return (
            f"ADMIN_EMAILS = [{VIEWER!r}]\n\n"
            f"[roles.emails]\n{LEAD!r} = ['team lead of {TEAM}']\n\n"
            "[auth]\n"
            f"redirect_uri = '{base_url}/oauth2callback'\n"
            f"cookie_secret = '{cookie_secret}'\n"
            "client_id = 'usage-dashboard-bench'\n"
            "client_secret = 'never-sent'\n"
            "server_metadata_url = 'http://127.0.0.1:9/.well-known/openid-configuration'\n"
        )

    return written


def identity_cookie(email: str, base_url: str, cookie_secret: str) -> dict[str, Any]:
    """Streamlit's identity cookie for `email` signed in to the dashboard at `base_url`, as its
    sign-in callback writes it: the claims as JSON, signed with the cookie secret."""
    claims = {
        "sub": email,
        "email": email,
        "origin": base_url,
        "is_logged_in": True,
        "provider": "default",
    }
    value = URLSafeTimedSerializer(cookie_secret, salt=USER_COOKIE).dumps(json.dumps(claims))
    return {"name": USER_COOKIE, "value": value, "url": f"{base_url}/", "httpOnly": True}


@contextmanager
def signed_in(base_url: str, cookie_secret: str, emails: list[str]) -> Iterator[list[Any]]:
    """One chromium, with a browser context of its own (cookies, sessions) for each of
    `emails`, signed in to the dashboard at `base_url`; closed afterwards."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(**browser.launch_options())
        try:
            contexts = []
            for email in emails:
                context = chromium.new_context(viewport=browser.VIEWPORT)
                context.add_cookies([identity_cookie(email, base_url, cookie_secret)])
                contexts.append(context)
            yield contexts
        finally:
            chromium.close()


def scoped_pages(scale: synthetic_orgs.Scale) -> list[Result]:
    """The pages `Scale.scoped_pages` names, each warm and cold as `browser_pages` times them
    (the server's caches warm: each person has shown every page once), over All history, for
    the organization viewer and for the lead of Marketing on the same dashboard, alternated
    page by page, `Scale.scoped_visits` times. The figure: the largest, over pages and over
    warm and cold, of the lead's median seconds over the viewer's for the same page."""
    repeat, period = scale.scoped_visits, browser.ALL_HISTORY
    pages = browser.opened(scale.scoped_pages, whole=False)  # the pages both people have
    cookie_secret = secrets.token_urlsafe(32)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        put_teams_in_force(folder / "history", scale.keys)
        with (
            browser.dashboard(scale.keys, folder, signin_secrets(cookie_secret)) as served,
            signed_in(served.base_url, cookie_secret, list(PEOPLE.values())) as contexts,
        ):
            loads = browser.page_loads(
                contexts, served.base_url, [period], repeat, pages, bare=False
            )
    viewer, lead = loads
    ratios = _lead_over_viewer(viewer, lead, period, pages)
    kind, page = max(
        ((kind, page) for kind, by_page in ratios.items() for page in by_page),
        key=lambda chosen: ratios[chosen[0]][chosen[1]],
    )
    lines = scope_lines(lead)
    team = next(iter(lines)) if len(lines) == 1 else None  # every lead's page alike
    checks = {
        "pages_render_their_data": browser.rendered(viewer, browser.demo_line(scale.keys))
        and browser.rendered(lead, browser.team_demo_line()),
        # Every lead's page named the team in the sidebar; no viewer's page did.
        "lead_sees_the_team": team is not None and scope_lines(viewer) == {None},
    }
    seconds = _median_seconds(loads, period, pages)
    return [
        result(
            "scoped_pages",
            ratios[kind][page],
            SCOPED_TARGET,
            checks,
            slowest={"page": page, "kind": kind},
            ratios={
                k: {p: round(r, 4) for p, r in by_page.items()} for k, by_page in ratios.items()
            },
            median_ratio=round(
                statistics.median(r for by in ratios.values() for r in by.values()), 4
            ),
            seconds=seconds,
            team=TEAM,
            team_keys=team[0] if team else None,
            team_tags=team[1] if team else None,
            keys=scale.keys,
            repeat=repeat,
        )
    ]


def _lead_over_viewer(
    viewer: dict[str, browser.Visits],
    lead: dict[str, browser.Visits],
    period: str,
    pages: dict[str, str],
) -> dict[str, dict[str, float]]:
    """The lead's median seconds over the viewer's, warm and cold, by page title: the same
    page on the same dashboard, so the ratio is what the team's scope costs."""
    return {
        kind: {
            title: lead[kind].median(period, path) / viewer[kind].median(period, path)
            for path, title in pages.items()
        }
        for kind in KINDS
    }


def _median_seconds(
    loads: list[dict[str, browser.Visits]], period: str, pages: dict[str, str]
) -> dict[str, dict[str, dict[str, float]]]:
    """Each person's median seconds, warm and cold, by page title: the figures the ratios
    are read from, kept beside them."""
    return {
        kind: {
            person: {
                title: round(side[kind].median(period, path), 4) for path, title in pages.items()
            }
            for person, side in zip(PEOPLE, loads, strict=True)
        }
        for kind in KINDS
    }


def scope_lines(loads: dict[str, browser.Visits]) -> set[tuple[int, int] | None]:
    """The team's keys and tags as the sidebar's scope line of each of `loads` gave them (None:
    a load without the line)."""
    found = [
        SCOPE_LINE.search(seen["sidebar"])
        for visits in loads.values()
        for seen in visits.shown.values()
    ]
    return {None if m is None else (int(m[1].replace(",", "")), int(m[2])) for m in found}
