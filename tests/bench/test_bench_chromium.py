"""The benchmark's pages timed in chromium, the sessions' memory and a team lead's pages against
the organization viewer's, at 1/20 scale: a smoke run of its own, beside
tests/bench/test_bench.py's, opening Overview and Trends (Overview alone for the team lead; the
full run opens every page; tests/dashboard/test_browser.py draws each in chromium). As there,
timings are not checked; what the pages showed is, against the emulator's ledger."""

import re

import pytest
from support.bench import IN_CHROMIUM, KEYS, SCALE, Smoke, assert_reported, by_name, run_smoke
from support.builders import ledger_totals

from analytics import pages
from bench import browser, synthetic_orgs

pytestmark = pytest.mark.smoke


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Smoke:
    return run_smoke(tmp_path_factory.mktemp("bench"), *IN_CHROMIUM)


def test_every_target_is_reported_once_with_a_finite_positive_ratio(smoke):
    assert_reported(
        smoke,
        {
            "browser_pages_warm",
            "browser_pages_cold",
            "overview_vs_pages",
            "session_memory",
            "scoped_pages",
        },
    )


def test_the_full_run_opens_every_page_and_the_smoke_run_two():
    every = {page.address: page.title for page in pages.PAGES}
    assert browser.opened(synthetic_orgs.Scale(1.0).browser_pages) == every
    assert browser.opened(synthetic_orgs.Scale(SCALE).browser_pages) == {
        "": "Overview",
        "trends": "Trends",
    }


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


# teams.example.toml's Marketing team, as written there; the benchmark's teams settings let each
# label claim its numbered copies too ("Email assistant 2").
MARKETING_LABELS = ("Marketing launch", "Sales enablement", "Email assistant", "CRM connector")
MARKETING_TAGS = ("launch-campaign", "newsletter", "email-drafts")


def test_the_team_lead_and_the_viewer_are_timed_on_the_same_pages(smoke, five_years):
    """Both people were signed in to one dashboard and shown Overview warm and cold; the
    lead's sidebar named the team with its keys as the ledger has them, the viewer's no team;
    the figure is the largest of the lead's seconds over the viewer's."""
    line = by_name(smoke.printed)["scoped_pages"]
    assert line["pages_render_their_data"] is True
    assert line["lead_sees_the_team"] is True
    latest = {row.api_key: row.api_key_label for row in five_years}  # the ledger is by day
    copies = re.compile(f"({'|'.join(map(re.escape, MARKETING_LABELS))})( [0-9]+)?")
    ours = {key for key, label in latest.items() if copies.fullmatch(label)}
    assert (line["team"], line["team_keys"], line["team_tags"]) == (
        "Marketing",
        len(ours),
        len(MARKETING_TAGS),
    )
    assert len(ours) < KEYS / 2  # a share of the organization, not all of it
    seconds = line["seconds"]
    people = ("organization viewer", "team lead of Marketing")
    assert {kind: tuple(by_person) for kind, by_person in seconds.items()} == {
        "warm": people,
        "cold": people,
    }
    ratios = [
        lead / viewer
        for by_person in seconds.values()
        for viewer, lead in zip(*(by_person[p].values() for p in people), strict=True)
    ]
    assert list(seconds["warm"][people[0]]) == ["Overview"]
    assert line["ratio"] == pytest.approx(max(ratios), rel=0.01)
