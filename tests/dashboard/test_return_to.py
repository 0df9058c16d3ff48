"""The address asked for before signing in: only a dashboard page is ever a destination."""

import pytest

from analytics.dashboard.access import asked_page

PAGES = ["keys", "trends", "capacity"]


@pytest.mark.parametrize(
    ("cookie", "expected"),
    [
        ("/trends?period=Last+7+days", ("trends", {"period": "Last 7 days"})),
        ("%2Ftrends%3Fperiod%3DLast%2B7%2Bdays", ("trends", {"period": "Last 7 days"})),
        ("/usage/keys?q=web&period=custom", ("keys", {"q": "web", "period": "custom"})),
        ("/capacity/", ("capacity", {})),
    ],
)
def test_a_dashboard_page_and_its_query(cookie, expected):
    assert asked_page(cookie, PAGES) == expected


@pytest.mark.parametrize(
    "cookie",
    [None, "", "/", "/no-such-page", "https://elsewhere.example/keys", "//elsewhere.example/keys"],
)
def test_anything_else_is_ignored(cookie):
    assert asked_page(cookie, PAGES) is None
