"""A team lead sees the team, whole and only: signed in as Marketing's lead through the OpenID
provider, one browser walks every page of the page table by its sidebar link, opens every tab
and folded section and clicks every download the table declares, and everything the dashboard
sent (every websocket frame) and every file downloaded holds nothing of another team and no
figure of the organization's; the meeting report bills the team what the administrator's
Chargeback bills it, to the cent.

The oracles are independent of the dashboard's code: the demo organization built again from
its settings (its ledger and its plan), the example files as written (teams, budgets, prices),
money computed here from the ledger and the price list, and the Chargeback page as the
administrator's browser shows it.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Locator, Page, expect
from support.browsers import WAIT_MS, fresh_context, grid_texts, settled, shoot
from support.builders import invoke, shown_arguments
from support.headless import DEMO, DEMO_KEYS
from support.signin import (
    ADMIN,
    LEAD,
    MARKETING_LABELS,
    MARKETING_TAGS,
    downloaded,
    file_text,
    open_by_link,
    page_texts,
    received_frames,
    refusal,
    run_over,
    sign_in,
    signed_in_with_data,
)

from analytics import pages
from analytics.usage.calendar import DEFAULT_PRESET, resolve, utc_today

pytestmark = pytest.mark.oidc

ROOT = Path(__file__).resolve().parents[2]
MARKETING = "Marketing"
CENT = Decimal("0.01")
# The ledger's metrics as the price list names them; characters are priced per million.
CHARACTERS = (
    "text_translation_characters",
    "document_translation_characters",
    "text_improvement_characters",
)
MINUTES = ("speech_to_text_minutes", "speech_to_speech_minutes")
# What the page shows of the widgets the table declares, found by their widget keys.
FOUND = """() => {
  const key = (el) => {
    const holder = el.closest('[class*="st-key-"]');
    const name = holder && [...holder.classList].find((c) => c.startsWith("st-key-"));
    return name ? name.slice("st-key-".length) : null;
  };
  const label = (el) =>
    (el.querySelector('[data-testid="stMarkdownContainer"]') || el).innerText.trim();
  return {
    downloads: [...document.querySelectorAll('[data-testid="stDownloadButton"]')].map(
      (el) => [key(el), label(el)]),
    tabs: [...document.querySelectorAll('[data-testid="stTabs"]')].map((el) => [
      key(el), [...el.querySelectorAll('[role="tab"]')].map(label)]),
    sections: [...document.querySelectorAll('[data-testid="stExpander"]')].map(
      (el) => [key(el), label(el.querySelector("summary"))]),
  };
}"""


@dataclass
class Walk:
    """What the walk met: per page, the download buttons (key → label), the tab groups (key →
    labels) and the keyed folded sections (key → label) found; the texts shown, sent and
    downloaded, each named by where it was met; the meeting report's files."""

    downloads: dict[str, dict[str | None, str]] = field(default_factory=dict)
    tabs: dict[str, dict[str | None, list[str]]] = field(default_factory=dict)
    sections: dict[str, dict[str | None, str]] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    report: dict[str, str] = field(default_factory=dict)  # the HTML and the PDF's text


# -- the walk -----------------------------------------------------------------------------------


def opened(page: Page, target: Locator, drawn: Locator) -> None:
    """Click `target` (a tab, a section's heading) and wait until what it opens is drawn (a
    lazily drawn tab or section is empty until the run the click starts draws it) and the
    run has ended."""
    target.click()
    expect(drawn.locator('[data-testid="stElementContainer"]').first).to_be_attached()
    run_over(page)


def drawn(page: Page, row: pages.DashboardPage) -> None:
    """Wait a while for what `row` declares for a team to be drawn (a page's first run may be
    followed at once by another, its end shown before its widgets): what is not drawn by then
    is what the walk finds missing."""
    keys = [d.key for d in row.downloads if not d.organization_only]
    keys += [g.key for g in row.tabs if not g.organization_only]
    keys += [key for key, _ in row.sections]
    try:
        for key in keys:
            expect(page.locator(f".st-key-{key}").first).to_be_attached(timeout=20_000)
    except AssertionError:
        pass
    run_over(page)


def walk_page(page: Page, row: pages.DashboardPage, walk: Walk) -> None:
    """On `row`'s page: every tab and keyed section opened once, every download clicked once."""
    drawn(page, row)
    found = page.evaluate(FOUND)
    walk.tabs[row.url_path] = dict(found["tabs"])
    walk.sections[row.url_path] = dict(found["sections"])
    walk.downloads[row.url_path] = dict(found["downloads"])
    walk.texts[row.title] = "\n".join(page_texts(page))
    for key, labels in walk.tabs[row.url_path].items():
        for label in labels:
            group = page.locator(f".st-key-{key}") if key else page.get_by_test_id("stTabs")
            opened(
                page,
                group.get_by_role("tab", name=label, exact=True),
                group.get_by_role("tabpanel"),
            )
            walk.texts[f"{row.title}, tab {label}"] = "\n".join(page_texts(page))
    for key, label in walk.sections[row.url_path].items():
        if key:
            section = page.locator(f".st-key-{key}")
            opened(page, section.locator("summary"), section.get_by_test_id("stExpanderDetails"))
            walk.texts[f"{row.title}, section {label}"] = "\n".join(page_texts(page))
    for key, label in walk.downloads[row.url_path].items():
        settled(page)
        button = page.locator(f".st-key-{key}").get_by_role("button")
        with page.expect_download(timeout=WAIT_MS) as info:
            button.click()
        name = info.value.suggested_filename
        text = file_text(Path(info.value.path()), name)
        walk.texts[f"{row.title}, {label} ({name})"] = text
        if row.url_path == "capacity":
            walk.report[Path(name).suffix] = text


@pytest.fixture(scope="module")
def lead(dashboard, provider, chromium) -> Iterator[tuple[Page, list[str]]]:
    """Marketing's lead signed in, in one browser, on the Overview: the page, and every
    websocket frame it receives from the start."""
    context = fresh_context(chromium)
    page = context.new_page()
    frames = received_frames(page)
    page.goto(f"{dashboard}/")
    sign_in(page, provider, LEAD)
    signed_in_with_data(page, "Overview")
    yield page, frames
    context.close()


@pytest.fixture(scope="module")
def walk(lead) -> Walk:
    """The lead's walk of every page, and every frame received."""
    page, frames = lead
    walked = Walk()
    for row in pages.listed(whole=False):
        if not row.default:
            open_by_link(page, row.title)
        walk_page(page, row, walked)
    walked.texts["every frame received"] = "\n".join(frames)
    return walked


# -- the oracles --------------------------------------------------------------------------------


def shown_range() -> tuple[dt.date, dt.date]:
    """The range the walk's pages show: the default one."""
    return resolve(DEFAULT_PRESET, utc_today())


def days(start: dt.date, end: dt.date) -> Iterable[dt.date]:
    return (start + dt.timedelta(n) for n in range((end - start).days + 1))


def price_list() -> dict:
    return tomllib.loads((ROOT / "pricing.example.toml").read_text(encoding="utf-8"))


def price_on(day: dt.date, prices: dict) -> dict:
    """The `[[price]]` period in force on `day`."""
    return [p for p in prices["price"] if dt.date.fromisoformat(str(p["from"])) <= day][-1]


def cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def organization_money(ledger: list, start: dt.date, end: dt.date) -> tuple[Decimal, Decimal]:
    """The organization's cost of `start`–`end` and its base fee, from the price list as
    written: per month and price period, the fee's share of the month's days, and each
    metric's usage above its share of the month's included volume at its price, each line
    rounded to the cent."""
    prices = price_list()
    lines: dict[tuple, dict[str, Decimal]] = {}
    for day in days(start, end):
        price = price_on(day, prices)
        line = lines.setdefault((day.year, day.month, str(price["from"])), {})
        month_days = Decimal(calendar.monthrange(day.year, day.month)[1])
        line["fee"] = line.get("fee", Decimal(0)) + Decimal(str(price["monthly_fee"])) / month_days
        for metric in (*CHARACTERS, *MINUTES):
            included = Decimal(str(price.get("included_per_month", {}).get(metric, 0)))
            line[f"free {metric}"] = line.get(f"free {metric}", Decimal(0)) + included / month_days
            line[f"price {metric}"] = Decimal(str(price["unit_prices"].get(metric, 0)))
            line[metric] = line.get(metric, Decimal(0))
    for row in ledger:
        if start <= row.usage_date <= end:
            price = price_on(row.usage_date, prices)
            line = lines[(row.usage_date.year, row.usage_date.month, str(price["from"]))]
            for metric in (*CHARACTERS, *MINUTES):
                line[metric] += Decimal(str(getattr(row, metric)))
    fee = sum((cents(line["fee"]) for line in lines.values()), Decimal(0))
    usage = Decimal(0)
    for line in lines.values():
        for metric in (*CHARACTERS, *MINUTES):
            charged = max(Decimal(0), line[metric] - line[f"free {metric}"])
            per = Decimal(1_000_000) if metric in CHARACTERS else Decimal(1)
            usage += cents(charged * line[f"price {metric}"] / per)
    return usage + fee, fee


def money_texts(amount: Decimal) -> set[str]:
    """An amount as the pages and files write it, and a cent either side (the lines may be
    cut otherwise than here)."""
    near = (amount - CENT, amount, amount + CENT)
    return {f"{value:,.2f}" for value in near} | {f"{value:.2f}" for value in near}


def count_texts(value: float, minutes: bool = False) -> set[str]:
    """A count as `format_value` writes it (whole characters, minutes to the hundredth, with
    thousands separators), and as a file's cell holds it."""
    if minutes:
        exact = cents(Decimal(str(value)))
        return {f"{exact:,.2f}", f"{exact:.2f}"}
    return {f"{round(value):,}", str(round(value))}


@pytest.fixture(scope="module")
def organization_figures(demo_org) -> dict[str, set[str]]:
    """The organization's own figures, each as it would be written: the plan's character limit,
    its key count, the base fee (a month's, and the range's), its cost and usage over the range
    shown, over each period a forecast counts so far, and over the billing period so far. A
    figure of nothing (a billing period begun today) is left out: a zero is written for many
    things, none of them the organization's alone."""
    today = utc_today()
    start, end = shown_range()
    ledger = demo_org.ledger(today - dt.timedelta(days=400), today)
    yesterday = today - dt.timedelta(days=1)
    quarter = dt.date(yesterday.year, 3 * ((yesterday.month - 1) // 3) + 1, 1)
    budgets = tomllib.loads((ROOT / "budgets.example.toml").read_text(encoding="utf-8"))
    month, day = map(int, budgets["contract_year_start"].split("-"))
    year = dt.date(yesterday.year, month, day)
    year = year if year <= yesterday else year.replace(year=year.year - 1)
    figures: dict[str, set[str]] = {}

    def put(name: str, amount: Decimal | float, texts: set[str]) -> None:
        if amount:
            figures[name] = texts

    for name, (first, last) in {
        "the range shown": (start, end),
        "this month so far": (yesterday.replace(day=1), yesterday),
        "this quarter so far": (quarter, yesterday),
        "this contract year so far": (year, yesterday),
    }.items():
        cost, fee = organization_money(ledger, first, last)
        put(f"the organization's cost of {name}", cost, money_texts(cost))
        put(f"the organization's base fee of {name}", fee, money_texts(fee))
    monthly = Decimal(str(price_on(yesterday, price_list())["monthly_fee"]))
    put("the organization's base fee a month", monthly, {f"{monthly:,.2f}"})
    rows = [row for row in ledger if start <= row.usage_date <= end]
    for metric in CHARACTERS:
        total = sum(getattr(row, metric) for row in rows)
        put(f"the organization's {metric} of the range", total, count_texts(total))
    characters = sum(getattr(row, m) for row in rows for m in CHARACTERS)
    put("the organization's characters of the range", characters, count_texts(characters))
    for metric in MINUTES:
        total = sum(getattr(row, metric) for row in rows)
        put(f"the organization's {metric} of the range", total, count_texts(total, True))
    period_start = demo_org.plan.period(today)[0]
    for last in (yesterday, today):
        used = sum(
            getattr(row, m)
            for row in ledger
            if period_start <= row.usage_date <= last
            for m in CHARACTERS
        )
        put(
            f"the organization's characters of the billing period to {last}",
            used,
            count_texts(used),
        )
    limit = demo_org.plan.character_limit
    if limit is not None:
        put("the plan's character limit", limit, count_texts(limit))
    figures["the organization's number of keys"] = {
        f" {n} keys" for n in {DEMO_KEYS, len(demo_org.keys)}
    }
    return figures


def budget_names() -> set[str]:
    """budgets.example.toml's budgets' names: none is Marketing's (the organization's, or of
    another team's key)."""
    text = (ROOT / "budgets.example.toml").read_text(encoding="utf-8")
    return {budget["name"] for budget in tomllib.loads(text)["budget"] if "name" in budget}


# -- what the walk met --------------------------------------------------------------------------


def test_every_download_tab_and_section_met_is_declared_and_every_declared_one_is_met(walk):
    """The page table is the walk's map: what a team's pages show is what it declares for a
    team, and only that (the organization's tabs and files are not shown)."""
    for row in pages.listed(whole=False):
        ours = [d for d in row.downloads if not d.organization_only]
        assert walk.downloads[row.url_path] == {d.key: d.text(paper="A4") for d in ours}, (
            row.url_path
        )
        groups = walk.tabs[row.url_path]
        assert set(groups) == {g.key for g in row.tabs if not g.organization_only}, row.url_path
        for group in row.tabs:
            if group.labels and group.key in groups:
                assert groups[group.key] == list(group.labels), (row.url_path, group.key)
        keyed = {key: label for key, label in walk.sections[row.url_path].items() if key}
        assert keyed == dict(row.sections), row.url_path


def test_nothing_of_another_team_is_sent_shown_or_downloaded(walk, others):
    """No label, masked key, key id or tag of another team's, nor a budget that is not the
    team's, in any frame, page, tab or file."""
    forbidden = others["things"] | budget_names()
    leaks = {
        where: sorted(thing for thing in forbidden if thing in text)
        for where, text in walk.texts.items()
    }
    leaked = {where: found for where, found in leaks.items() if found}
    assert leaked == {}, "\n".join(
        f"{where}: {'; '.join(found)}" for where, found in leaked.items()
    )
    # Not vacuous: the team's own keys were there to see, in the frames and the files.
    assert "Marketing launch" in walk.texts["every frame received"]
    assert any(label in walk.report[".html"] for label in MARKETING_LABELS)


def numbers(text: str) -> set[str]:
    """Every number standing alone in `text` (not part of a longer one), as written, and
    without a decimal part of zeros (a chart's data writes 1000000.0)."""
    found = set(NUMBER.findall(text))
    return found | {re.sub(r"\.0+$", "", number) for number in found}


NUMBER = re.compile(r"(?<![\d.,])\d(?:[\d,]*\d)?(?:\.\d+)?")


def test_no_organization_figure_is_sent_shown_or_downloaded(walk, organization_figures):
    """No figure of the organization's, written as the pages and files write it, stands alone
    (not the end or start of a longer number) in any frame, page, tab or file."""
    leaks = {}
    for where, shown in walk.texts.items():
        written = numbers(shown)
        found = sorted(
            f"{name}: {text.strip()}"
            for name, texts in organization_figures.items()
            for text in texts
            if (text in written if NUMBER.fullmatch(text) else text in shown)
        )
        if found:
            leaks[where] = found
    assert leaks == {}, "\n".join(f"{where}: {'; '.join(found)}" for where, found in leaks.items())


class Tables(HTMLParser):
    """The report's tables, each a list of rows of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None and self.tables:
            self.tables[-1][-1].append("".join(self.cell).strip())
            self.cell = None


def report_team_cost(report: str) -> str:
    """The Total cost of Marketing's row of the report's Spend by team (as ``1,234.56``)."""
    parser = Tables()
    parser.feed(report)
    for table in parser.tables:
        head, *rows = table
        if head and head[0] == "Team" and "Total cost" in head:
            [row] = [row for row in rows if row[0] == MARKETING]
            return row[head.index("Total cost")].split()[0]
    raise AssertionError("the report has no Spend by team")


def grid_rows(grid: Locator) -> tuple[list[str], list[list[str]]]:
    """A table's headings and its rows' cells, as drawn."""
    head = grid_texts(grid, "columnheader")
    rows = [
        [cell.text_content() or "" for cell in row.locator("[role=gridcell]").all()]
        for row in grid.locator("[role=row]").all()
    ]
    return head, [row for row in rows if row]


def total_cost(head: list[str], row: list[str]) -> Decimal:
    column = next(i for i, name in enumerate(head) if name.startswith("Total cost"))
    return Decimal(row[column].replace(",", ""))


def chargeback_costs(page: Page) -> tuple[str, str]:
    """Marketing's Total cost over the range on the Chargeback page (its months' rows added),
    and the organization's (the Total row below the teams')."""
    teams, total = page.get_by_test_id("stDataFrame").all()
    head, rows = grid_rows(teams)
    months = [row for row in rows if row[head.index("Team")] == MARKETING]
    start, end = shown_range()
    assert len(months) == len({(day.year, day.month) for day in days(start, end)}), rows
    team = sum(total_cost(head, row) for row in months)
    head, [organization] = grid_rows(total)
    return f"{team:,.2f}", f"{total_cost(head, organization):,.2f}"


def test_the_report_bills_the_team_as_the_administrators_chargeback(
    walk, dashboard, provider, chromium, demo_org
):
    context = fresh_context(chromium)
    try:
        page = context.new_page()
        page.goto(f"{dashboard}/chargeback")
        sign_in(page, provider, ADMIN)
        expect(page.get_by_role("heading", name="Chargeback", exact=True)).to_be_visible(
            timeout=WAIT_MS
        )
        expect(page.get_by_test_id("stDataFrame")).to_have_count(2)
        run_over(page)
        expected, organization = chargeback_costs(page)
    finally:
        context.close()
    # The oracle of the organization's cost is the administrator's too (within the cent either
    # side its lines may round to), so the check of the walk above is not vacuous.
    cost, _ = organization_money(demo_org.ledger(*shown_range()), *shown_range())
    assert organization in money_texts(cost)
    assert report_team_cost(walk.report[".html"]) == expected
    assert f"{expected} EUR" in walk.report[".pdf"]


# -- what the lead sees beside the walk: the scope, the commands, an address refused ------------


def export_files(page: Page, history: Path, tmp_path: Path) -> list[str]:
    """Every format of the Export page's current choice, downloaded; the CSV must equal, byte
    for byte, the file the command the page shows writes over the same demo history."""
    texts = []
    for label in ("CSV", "Excel", "Parquet"):
        path = downloaded(page, f"Download {label}")
        texts.append(file_text(path, {"CSV": ".csv", "Excel": ".xlsx"}.get(label, ".parquet")))
        if label == "CSV":
            command = page.get_by_test_id("stCode").first.locator("code").inner_text()
            assert "--team Marketing" in command and command.endswith("--demo"), command
            words = shown_arguments(command)
            out = tmp_path / f"command-{len(list(tmp_path.iterdir()))}.csv"
            words[words.index("--output") + 1] = str(out)
            env = {"SERVICE_HISTORY_PATH": str(history), **DEMO}
            assert invoke(*words, env=env).exit_code == 0
            assert path.read_bytes() == out.read_bytes(), command
    return texts


def test_a_team_lead_sees_the_scope_the_teams_commands_and_one_refusal(
    lead, dashboard, demo_folder, demo_org, others, tmp_path
):
    """Marketing's lead, by the token's `groups` claim, in the walk's browser (the walk checks
    every page, tab, frame and download): the sidebar names the team's keys and tags; the
    Export page's files of two groupings, in every format, hold nothing of another team and
    its CSV is, byte for byte, the file the command it shows writes; another team's key by
    its id in the address is answered with the one refusal line."""
    page, _ = lead
    open_by_link(page, "Overview")
    signed_in_with_data(page, "Overview")
    start, end = resolve("last-30-days", utc_today())
    ours = [spec for spec in demo_org.keys if spec.label in MARKETING_LABELS]
    used = {row.custom_tag for row in demo_org.store.tag_ledger(start, end)} & MARKETING_TAGS
    # One of a thing is written singular, several plural (the range's tags vary by day).
    keys_text = "1 key" if len(ours) == 1 else f"{len(ours)} keys"
    tags_text = "1 tag" if len(used) == 1 else f"{len(used)} tags"
    line = f"Team Marketing: {keys_text}, {tags_text}"
    scope_line = page.get_by_test_id("stSidebar").get_by_text(line)
    expect(scope_line).to_be_visible()
    scope_line.scroll_into_view_if_needed()  # the sidebar scrolls on its own, below the range
    shoot(page, "team-lead-overview.png")

    open_by_link(page, pages.page_at("export").title)
    history = demo_folder / "history"
    shown = {"Export, key and day": export_files(page, history, tmp_path)}
    grouping = page.get_by_role("radiogroup", name="One row per")
    grouping.get_by_role("radio", name="Key", exact=True).click()
    settled(page)
    page.get_by_text("With cost", exact=True).click()
    command = page.get_by_test_id("stCode").first
    expect(command).to_contain_text("--group-by key --with-cost --team Marketing")
    run_over(page)
    shown["Export, key with cost"] = export_files(page, history, tmp_path)
    assert others["things"] and ours
    for where, texts in shown.items():
        text = "\n".join(texts)
        leaked = sorted(thing for thing in others["things"] if thing in text)
        assert leaked == [], f"{where} shows {leaked}"
    # The file with cost names the team's own key (the check above is not vacuous).
    assert "Marketing launch" in "\n".join(shown["Export, key with cost"])

    # Another team's key by its id, in the address: the one refusal line.
    asked = sorted(others["ids"])[0]
    page.goto(f"{dashboard}/limits?key={quote(asked, safe='')}")
    refused = page.get_by_test_id("stAlertContentError").get_by_test_id("stMarkdownContainer")
    expect(refused).to_have_text([refusal(asked)])
    run_over(page)
    text = "\n".join(page_texts(page)).replace(refusal(asked), "")
    assert not [thing for thing in others["things"] if thing in text]
