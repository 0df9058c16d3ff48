"""The benchmark's pages timed in chromium and the sessions' memory, at 1/20 scale: a smoke run
of its own, beside tests/bench/test_bench.py's, opening Overview and Trends (the full run
opens every page; tests/dashboard/test_browser.py draws each in chromium). As there, timings
are not checked; what the pages showed is, against the emulator's ledger."""

import pytest
from support.bench import IN_CHROMIUM, KEYS, SCALE, Smoke, assert_reported, by_name, run_smoke
from support.builders import ledger_totals

from analytics.dashboard import navigation
from bench import browser, org

pytestmark = pytest.mark.smoke


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Smoke:
    return run_smoke(tmp_path_factory.mktemp("bench"), *IN_CHROMIUM)


def test_every_target_is_reported_once_with_a_finite_positive_ratio(smoke):
    assert_reported(
        smoke, {"browser_pages_warm", "browser_pages_cold", "overview_vs_pages", "session_memory"}
    )


def test_the_full_run_opens_every_page_and_the_smoke_run_two():
    assert browser.opened(org.Scale(1.0)) == {page.address: page.title for page in navigation.PAGES}
    assert browser.opened(org.Scale(SCALE)) == {"": "Overview", "trends": "Trends"}


def test_every_page_loaded_in_chromium_shows_the_ledgers_usage(smoke, five_years):
    """Each page opened was timed warm and cold over All history (the smoke run's one range)
    and showed its title, the demo organization and the range; Overview's total characters are
    the ledger's, read off the page as the browser drew it."""
    lines = by_name(smoke.printed)
    for name in ("browser_pages_warm", "browser_pages_cold", "overview_vs_pages"):
        assert lines[name]["pages_render_their_data"] is True, name
    warm = lines["browser_pages_warm"]
    assert set(warm["seconds"]) == set(warm["shown"]) == {"All history"}
    for period, shown in warm["shown"].items():
        assert {page: seen["heading"] for page, seen in shown.items()} == {
            "Overview": "Overview",
            "Trends": "Trends",
            "Bare": "",
        }, period
        assert all(seen["errors"] == 0 for seen in shown.values()), period
    trends = warm["shown"]["All history"]["Trends"]  # one chart and one table
    assert (trends["charts"], trends["tables"]) == (1, 1)
    total = ledger_totals(five_years)["total_characters"]
    shown = (smoke.kept / "browser_pages" / "all-history-overview.txt").read_text()
    assert f"Total characters\n\n{total:,}\n" in shown


def test_session_memory_is_read_with_every_session_open(smoke):
    line = by_name(smoke.printed)["session_memory"]
    assert line["every_session_shown"] is True
    assert (line["sessions"], line["keys"]) == (2, KEYS)
    assert set(line["rss_mb"]) == set(line["peak_rss_mb"]) == {"1", "2"}
    assert line["ratio"] == pytest.approx(line["rss_mb"]["2"] / line["rss_mb"]["1"], rel=0.01)
