"""The meeting report (reports.meeting): sections, numbers, self-containment, the CLI, and a
real browser."""

from __future__ import annotations

import base64
import gzip
import html as html_text
import re
import tomllib
from datetime import date
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import plotly.offline
import pytest
from support.browsers import CHROMIUM, fresh_browser, unavailable
from support.builders import DEMO_TODAY, FIRST, budgets, demo_usage, pattern, usage_frame
from support.headless import DEMO
from typer.testing import CliRunner

from analytics.capacity.budgets.definitions import load_budgets, parse_budgets
from analytics.capacity.budgets.evaluation import evaluate
from analytics.capacity.capacity_review import Asked, build_review, decision_of
from analytics.capacity.forecasting import WhatIf, forecast_rows, outlooks
from analytics.cli import app
from analytics.cost.priced import PricesInForce
from analytics.cost.prices import parse_pricing
from analytics.cost.teams import parse_teams
from analytics.reports import blocks
from analytics.reports.meeting import render
from analytics.usage.calendar import CLOCK_VARIABLE
from analytics.usage.pipeline import FetchedRange

ROOT = Path(__file__).resolve().parents[2]
PLOTLY_JS = re.compile(
    r'<script type="application/octet-stream" id="plotly-gz">[A-Za-z0-9+/=]+</script>'
)
BUNDLE = ROOT / "analytics" / "reports" / "vendor" / "plotly-basic.min.js"
MAIL_LIMIT = 1_500_000  # bytes: a report people attach to a mail
runner = CliRunner()
TODAY = date(2025, 4, 20)
SECTIONS = ("Summary", "Usage by service", "Usage by key", "Growth drivers", "Forecasts")


@pytest.fixture(scope="module")
def key_day() -> pd.DataFrame:
    """Two keys: Website steady, "R&D <tools>" up from 200 to 500 a day in March 2025."""
    return usage_frame(
        {
            "aaaa****0001": [1000.0] * 120,
            "bbbb****0002": pattern(120, FIRST, lambda d, _: 500.0 if d.month >= 3 else 200.0),
        },
        labels={"aaaa****0001": "Website", "bbbb****0002": "R&D <tools>"},
        minutes={"aaaa****0001": [2.5] * 120},
    )


@pytest.fixture(scope="module")
def report(key_day) -> str:
    """The report on March 2025, as of 20 April."""
    usage = FetchedRange(frame=key_day, start=FIRST, end=date(2025, 4, 19))
    limits = parse_budgets(budgets('metric = "total_characters"\nperiod = "month"\nlimit = 50000'))
    review = build_review(usage, limits, TODAY, date(2025, 3, 1), date(2025, 3, 31))
    status = evaluate(limits, key_day, TODAY, FIRST)
    decision = decision_of(outlooks(key_day, FIRST, TODAY), (), Asked(), review.year_start)
    return render(key_day, review, title="Review <Q1>", budgets=status, decision=decision)


def outside_plotly(html: str) -> str:
    return PLOTLY_JS.sub("", html)


def test_sections_are_present(report):
    for title in (*SECTIONS, "Budget status"):
        assert f"<section><h2>{title}</h2>" in report
    assert "<title>Review &lt;Q1&gt;</title>" in report


def test_numbers_match_the_frames(report, key_day):
    # March: 31 × 1,000 + 31 × 500; its previous period, February: 28 × 1,200, 12,900 less.
    summary = report[report.index("<h2>Summary") : report.index("<h2>Usage by service")]
    assert "46,500" in summary and "33,600" in summary and "+38.4\u202f%" in summary
    assert "77.50" in summary  # 31 × 2.5 speech minutes
    assert "N/A vs last year" in summary  # the data starts in 2025: unknown, not zero
    drivers = report[report.index("<h2>Growth drivers") : report.index("<h2>Forecasts")]
    # R&D: 31 × 500 against 28 × 200, 9,900 more, +176.8 %.
    assert "R&amp;D &lt;tools&gt;" in drivers and "9,900" in drivers and "+176.8\u202f%" in drivers
    forecasts = report[report.index("<h2>Forecasts") : report.index("<h2>Budget status")]
    decided = report[report.index("<h2>Decision") : report.index("<h2>Budget status")]
    # April: 19 closed days of 1,500 used. The 11 days ahead (20–30 April: ten Sunday–Friday
    # days, one Saturday) run at 1,500 a day shaped by the weekday rhythm of 26 January –
    # 19 April: Sunday–Friday average (5 × 1,200 + 7 × 1,500) / 12 = 1,375 a day there,
    # Saturday (4 × 1,200 + 8 × 1,500) / 12 = 1,400; the mean weekday is 9,650 / 7.
    ahead = 1500 * 7 / 9650 * (10 * 1375 + 1 * 1400)
    assert round(28_500 + ahead) == 44_984
    row = "Month to 2025-04-30</td><td>28,500</td><td>44,984</td>"
    assert row in decided
    per_key = forecasts[forecasts.index("keys with the largest projections") :]
    assert per_key.index("Website") < per_key.index("R&amp;D &lt;tools&gt;")
    # Website: 19 days used; it used 1,000 of the 1,500 a day of the last four weeks, so it
    # takes two thirds of the organization's days ahead.
    assert f"<td>19,000</td><td>{round(19_000 + ahead * 2 / 3):,}</td>" in per_key
    status = report[report.index("<h2>Budget status") :]
    assert '<td class="status-warning">warning</td>' in status
    assert "57.0\u202f%" in status and "90.0\u202f%" in status


def test_the_report_has_one_forecast_table_headed_as_the_pages_with_each_periods_model(
    report, key_day
):
    """One table of forecasts, the decision's (``forecast_rows``, which the page and
    `capacity recommend` show): its interval headed "80 % interval" as the page heads it, and
    the model serving each period, the one ``forecast_rows`` names."""
    plain = re.sub(r' class="[^"]*"', "", outside_plotly(report))  # cells as their text
    headed = re.findall(r"<tr><th>Metric</th><th>Period</th>(.*?)</tr>", plain)
    assert len(headed) == 1, headed
    assert "<th>80 % interval</th>" in headed[0] and headed[0].endswith("<th>Model</th>")
    assert "Band" not in plain
    expected = forecast_rows(outlooks(key_day, FIRST, TODAY), WhatIf())
    names = {"month": "Month", "quarter": "Quarter", "year": "Contract year"}
    names["next 12 months"] = "Next 12 months"
    labels = {
        "total_characters": "Total characters",
        "speech_to_text_minutes": ("Speech-to-text minutes"),
    }
    table = plain[plain.index("<h3>Forecasts and their accuracy") :]
    for row in expected.itertuples():
        cells = re.search(
            rf"<tr><td>{labels[row.metric]}</td><td>{names[row.period]} to {row.end}</td>"
            r"(?:<td>[^<]*</td>)*?<td>([^<]*)</td></tr>",
            table,
        )
        assert cells and cells[1] == row.model, (row.metric, row.period)


def test_labels_are_escaped_everywhere(report):
    assert "<tools>" not in outside_plotly(report)
    assert "<Q1>" not in report


def test_self_contained_plotly_once_and_no_urls(report):
    assert len(PLOTLY_JS.findall(report)) == 1
    ours = outside_plotly(report)
    for needle in ("http://", "https://", "//cdn", "<link", "@import", "src="):
        assert needle not in ours
    # Every figure drawn by the one library: usage and forecasts eight, the decision's past
    # forecasts of each metric two (no catalogue: no cost curve).
    assert ours.count('class="chart-figure"') == 10
    assert ours.count("Plotly.newPlot") == 1


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory) -> str:
    """`report --demo` on the last twelve months, with the example budgets: the demo
    organization's largest report, every section, the Decision and the Spend among them."""
    folder = tmp_path_factory.mktemp("demo")
    output = folder / "report.html"
    args = ["report", "--period", "last-12-months", "-o", str(output), "--demo"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CLOCK_VARIABLE, "2026-11-15T12:00:00Z")
        patch.setenv("SERVICE_HISTORY_PATH", str(folder / "history"))  # a demo of its own
        result = runner.invoke(app, [*args, "--budgets", str(ROOT / "budgets.example.toml")])
    assert result.exit_code == 0, result.output
    return output.read_text(encoding="utf-8")


def test_the_demo_organizations_report_fits_in_a_mail(demo_report):
    assert "<h2>Decision" in demo_report and "<h2>Spend (EUR)" in demo_report
    assert len(demo_report.encode("utf-8")) <= MAIL_LIMIT


@pytest.mark.browser
def test_the_demo_organizations_report_draws_every_chart_offline(demo_report, tmp_path):
    """Chromium with no network: the packed library decompresses and runs, and every chart
    becomes a plotly plot (its div classed js-plotly-plot, an SVG drawn, a hover layer)."""
    if CHROMIUM is None:
        unavailable("chromium is not installed")
    from playwright.sync_api import sync_playwright

    page_file = tmp_path / "report.html"
    page_file.write_text(demo_report, encoding="utf-8")
    charts = demo_report.count('class="chart-figure"')
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = fresh_browser(playwright, tmp_path / "profile")
        try:
            browser.set_offline(True)
            page = browser.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(page_file.as_uri(), wait_until="load")
            page.wait_for_selector("html[data-charts-drawn]")
            assert page.locator(".chart .js-plotly-plot:has(.main-svg)").count() == charts == 13
            assert page.locator(".chart .js-plotly-plot .nsewdrag").count() >= charts
        finally:
            browser.close()
    assert errors == []


def test_the_packed_library_is_the_vendored_bundle_of_plotlys_own_version(demo_report):
    """What the report carries decompresses to the vendored file, byte for byte, and that file
    is the plotly.js the Python plotly writes its figures for."""
    packed = re.search(r'id="plotly-gz">([^<]+)<', demo_report).group(1)
    assert gzip.decompress(base64.b64decode(packed)) == BUNDLE.read_bytes()
    version = plotly.offline.get_plotlyjs_version()
    assert BUNDLE.read_text(encoding="utf-8").startswith(
        f"/**\n* plotly.js (basic - minified) v{version}\n"
    )


def test_a_trace_the_bundle_cannot_draw_is_refused():
    with pytest.raises(ValueError, match="draws no heatmap traces"):
        blocks.figure(go.Figure(go.Heatmap(z=[[1, 2], [3, 4]])))


def test_report_without_budgets_has_no_budget_section():
    usage = FetchedRange(usage_frame({"aaaa****0001": [10.0] * 60}), FIRST, date(2025, 3, 1))
    html = render(usage.frame, build_review(usage, None, date(2025, 3, 2), FIRST, usage.end))
    for title in SECTIONS:
        assert f"<h2>{title}</h2>" in html
    assert "Budget status" not in html


def small_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    """The small demo organization, on the pinned day: what a test checks of a report that
    any organization's has, without the default one's three years of forecasts."""
    monkeypatch.setenv(CLOCK_VARIABLE, "2026-11-15T12:00:00Z")
    for name, value in DEMO.items():
        monkeypatch.setenv(name, value)


def test_cli_writes_the_report(tmp_path, monkeypatch):
    small_demo(monkeypatch)
    folder = tmp_path / "reports"
    folder.mkdir()
    output = folder / "report.html"
    args = ["report", "--period", "last-month", "--output", str(output), "--demo"]
    result = runner.invoke(app, [*args, "--budgets", str(ROOT / "budgets.example.toml")])
    assert result.exit_code == 0, result.output
    html = output.read_text(encoding="utf-8")
    assert "<h2>Budget status</h2>" in html and len(PLOTLY_JS.findall(html)) == 1
    # Last month, October, against September: the calendar month before, not its 31 days.
    assert (
        "Period 2026-10-01 – 2026-10-31 (UTC days) · compared with the previous period "
        "2026-09-01 – 2026-09-30 · last year 2025-10-01 – 2025-10-31"
    ) in html
    assert [p.name for p in folder.iterdir()] == ["report.html"]  # no temporary left behind


def test_a_teams_report_bills_its_row_of_the_organizations_chargeback(tmp_path, monkeypatch):
    """`report --team Marketing`: its spend is Marketing's row of the organization's
    chargeback (the oracle: the unscoped `export --group-by team --with-cost`), never the
    organization's base fee; its contract year is the budgets document's; the cost forecasts,
    the organization's, are said to be left out rather than shown."""
    small_demo(monkeypatch)
    days = ["--period", "last-month", "--demo"]
    export = tmp_path / "teams.csv"
    written = runner.invoke(
        app, ["export", *days, "--group-by", "team", "--with-cost", "-o", str(export)]
    )
    assert written.exit_code == 0, written.output
    teams = pd.read_csv(export, dtype=str).set_index("team")
    output = tmp_path / "marketing.html"
    result = runner.invoke(app, ["report", *days, "--team", "Marketing", "-o", str(output)])
    assert result.exit_code == 0, result.output
    html = output.read_text(encoding="utf-8")
    spend = html[html.index("<h2>Spend (EUR)") :]
    ours = teams.loc["Marketing"]
    assert f'<td class="text">Total cost</td><td>{ours["total_cost_eur"]} EUR</td>' in spend
    assert f'<td class="text">Base fee share</td><td>{ours["base_fee_share_eur"]} EUR</td>' in spend
    assert (
        f'<td class="text">Marketing</td><td>{ours["usage_cost_eur"]} EUR</td>'
        f"<td>{ours['base_fee_share_eur']} EUR</td><td>{ours['total_cost_eur']} EUR</td>"
    ) in spend
    assert not [
        team
        for team in teams.index
        if f'<td class="text">{team}</td>' in spend
        if team != "Marketing"
    ]
    said = "The cost forecasts are the organization's: not shown to team Marketing."
    assert said in html_text.unescape(spend)
    year = tomllib.loads((ROOT / "budgets.example.toml").read_text())["contract_year_start"]
    assert f"contract year starts {year}" in html


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "SERVICE_AUTH_KEY and SERVICE_BASE_URL must be set"),
        (["--demo", "--start", "2025-03-05"], "give --start and --end"),
        (["--demo", "--budgets", "missing.toml"], "missing.toml: no such file"),
    ],
)
def test_cli_refuses_bad_input_with_exit_2(tmp_path, extra, message):
    output = tmp_path / "report.html"
    period = [] if "--start" in extra else ["--period", "last-month"]
    result = runner.invoke(app, ["report", *period, "-o", str(output), *extra])
    assert result.exit_code == 2
    assert message in result.output
    assert not output.exists()


def test_cli_refuses_a_missing_folder(tmp_path):
    output = tmp_path / "absent" / "report.html"
    result = runner.invoke(app, ["report", "--period", "last-month", "-o", str(output), "--demo"])
    assert result.exit_code == 2
    assert "existing folder" in result.output


@pytest.mark.browser
def test_report_renders_offline_in_chromium(tmp_path):
    if CHROMIUM is None:
        unavailable("chromium is not installed")
    from playwright.sync_api import sync_playwright

    usage = demo_usage()
    budget_settings = load_budgets(ROOT / "budgets.example.toml")
    review = build_review(usage, budget_settings, DEMO_TODAY, date(2026, 5, 1), date(2026, 5, 31))
    status = evaluate(budget_settings, usage.frame, DEMO_TODAY, usage.start)
    html = render(usage.frame, review, budgets=status)
    page_file = tmp_path / "report.html"
    page_file.write_text(html, encoding="utf-8")
    screenshots = ROOT / "test-artifacts" / "screenshots"
    screenshots.mkdir(parents=True, exist_ok=True)
    requests: list[str] = []
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = fresh_browser(
            playwright, tmp_path / "profile", viewport={"width": 1366, "height": 900}
        )
        try:
            page = browser.new_page()
            page.on("request", lambda request: requests.append(request.url))
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.context.set_offline(True)
            page.goto(page_file.as_uri(), wait_until="load")
            page.wait_for_selector("html[data-charts-drawn]")
            assert page.locator(".chart .js-plotly-plot:has(.main-svg)").count() == 8
            page.screenshot(path=str(screenshots / "report.png"), full_page=True)
            page.emulate_media(media="print")
            background = page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert background == "rgb(255, 255, 255)"
        finally:
            browser.close()
    assert errors == []
    assert [url for url in requests if not url.startswith("file://")] == []


# -- with prices --------------------------------------------------------------------------------

# 1 cent a text character, 0.10 a speech-to-text minute, a 31.00 monthly fee; Website is Web's.
REPORT_PRICES = (
    'currency = "EUR"\n[[price]]\nfrom = "2025-01-01"\nmonthly_fee = 31\n'
    "unit_prices = { text_translation_characters = 10_000, document_translation_characters = 0, "
    "text_improvement_characters = 0, speech_to_text_minutes = 0.10 }\n"
)


@pytest.fixture(scope="module")
def priced_report(key_day) -> str:
    usage = FetchedRange(frame=key_day, start=FIRST, end=date(2025, 4, 19))
    limits = parse_budgets(budgets('metric = "cost"\nperiod = "month"\nlimit = 500'))
    prices = PricesInForce(
        parse_pricing(REPORT_PRICES), parse_teams('[[team]]\nname = "Web"\nlabels = ["Website"]')
    )
    review = build_review(usage, limits, TODAY, date(2025, 3, 1), date(2025, 3, 31), prices)
    return render(key_day, review, budgets=evaluate(limits, key_day, TODAY, FIRST, prices))


def test_the_spend_section_by_service_team_and_period(priced_report):
    spend = priced_report[
        priced_report.index("<h2>Spend (EUR)") : priced_report.index("<h2>Budget status")
    ]
    # March: 46,500 characters (465.00), 77.5 minutes (7.75) and the fee (31.00); the
    # previous period, February: 33,600 characters (336.00), 70 minutes (7.00) and its fee.
    row = (
        '<td class="text">Total cost</td><td>503.75 EUR</td><td>374.00 EUR</td>'
        "<td>+34.7\u202f%</td>"
    )
    assert row in spend
    assert '<td class="text">Speech-to-text cost</td><td>7.75 EUR</td><td>7.00 EUR</td>' in spend
    # The fee shared pro rata to list prices, 317.75 : 155.00, the odd cent to Web's remainder.
    assert (
        '<td class="text">Web</td><td>317.75 EUR</td><td>20.84 EUR</td><td>338.59 EUR</td>' in spend
    )
    assert (
        '<td class="text">Unassigned</td><td>155.00 EUR</td><td>10.16 EUR</td>'
        "<td>165.16 EUR</td>" in spend
    )
    # April so far: 19 days of 152.50 and 0.25, and 19/30 of April's fee.
    assert '<td class="text">Month 2025-04-01 – 2025-04-30</td><td>309.38 EUR</td>' in spend


def test_cost_budgets_are_in_the_currency(priced_report):
    status = priced_report[priced_report.index("<h2>Budget status") :]
    assert "<td>500.00 EUR</td><td>309.38 EUR</td>" in status  # limit, used
    assert "(projected)</td>" in status or "not within the period" in status


def test_a_report_without_prices_has_no_spend_section(report):
    assert "<h2>Spend" not in report


def test_a_range_with_days_without_a_price_shows_the_spend_of_the_others(key_day):
    # Prices from March only: the first quarter's spend is March's (as above, 503.75 EUR), and
    # January and February are named rather than the whole spend dropped.
    usage = FetchedRange(frame=key_day, start=FIRST, end=date(2025, 4, 19))
    prices = PricesInForce(parse_pricing(REPORT_PRICES.replace("2025-01-01", "2025-03-01")))
    review = build_review(usage, None, TODAY, date(2025, 1, 1), date(2025, 3, 31), prices)
    html = render(key_day, review)
    spend = html[html.index("<h2>Spend (EUR)") :]
    assert (
        '<p class="note">No price in force on 2025-01-01..2025-02-28: the spend and its '
        "forecasts cover the priced days only.</p>"
    ) in spend
    assert '<td class="text">Total cost</td><td>503.75 EUR</td><td>N/A</td>' in spend
    assert "no spend" not in spend
