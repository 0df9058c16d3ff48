"""One name, one number: every figure docs/glossary.md names, read where people read it (the
pages' tiles, captions and table cells in the headless dashboard, the meeting report
downloaded from the Capacity page and written by `report`, the output of `check-budgets`,
`check-anomalies`, `capacity backtest`, `capacity recommend` and `guardrails plan`, and the
files of `export`) has the same value, to the cent, for the same range on every surface that
shows it.

The one forecast of total characters is read on each of them too: this month's and the
contract year's projected total and 80 % interval, the month-ahead error (the one accuracy
figure), the contract year and today's plan, with the emulator's plan and the budgets file's
`contract_year_start` as the oracles of the plan's billing period and limit and of the year.

The figures are collected per range as name → surface → value and compared at the end, so a
failure lists every surface of the figure that disagrees. In demo mode the pages, the commands
and the served dashboard all read the shipped example pricing, teams and budgets files.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import re
from collections import defaultdict
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path
from tomllib import loads

import httpx
import pandas as pd
import pytest
import websockets
from streamlit.proto.BackMsg_pb2 import BackendOperationRequest, BackMsg, DeferredFileRequestPayload
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.testing.v1 import AppTest
from support.headless import DEMO, DEMO_DAYS, TODAY, one_run, open_clean_page
from support.servers import running_dashboard
from typer.testing import CliRunner

from analytics.cli import app

RANGES = {"Last 30 days": "last-30-days", "All history": "all-history"}
TEAMS = ["Web shop", "Customer support", "Marketing", "Documents", "Internal tools", "Unassigned"]
CENT = Decimal("0.01")
# What a range is compared with (docs/glossary.md), as the comparison tables' columns.
COMPARED = ("Previous period", "Same period last year")
DECIDED = ("Total characters", "Speech-to-text minutes")  # the decision's metrics, in order
# The forecast's periods read on every surface, as the tables name them ("Month to 2026-11-30").
FORECAST_PERIODS = {"month": "Month", "contract year": "Contract year"}
ROOT = Path(__file__).parents[2]
runner = CliRunner()

Seen = dict[str, dict[str, object]]


def number(text: str) -> Decimal:
    """A figure as people read it ("2,779,846", "339.15 EUR", "1,046.51") as an exact
    decimal, to the cent."""
    found = re.search(r"-?[\d,]+(?:\.\d+)?", text)
    assert found, f"no number in {text!r}"
    return Decimal(found.group().replace(",", "")).quantize(CENT)


def accuracy(text: str) -> str:
    """The Forecasts section's stated accuracy of the characters' forecast, with its window,
    its models and its intervals' coverage: the decision's one sentence of it."""
    found = re.search(r"Total characters: (Month-ahead error .*?\.)(?= |$)", text)
    assert found, f"no forecast accuracy in {text[:200]!r}…"
    return found[1]


def compared_value(value: object) -> Decimal | str:
    """A comparison cell: a number, or N/A where there is nothing to compare with."""
    return "N/A" if pd.isna(value) else cell(value)


def month_ahead_error(sentence: str) -> str:
    """The figure of a "Month-ahead error (WAPE) over … : 5.5 %" sentence, as "5.5 %"."""
    found = re.search(r"Month-ahead error \(WAPE\) over [^:]*: ([\d.]+\u202f%)", sentence)
    assert found, f"no month-ahead error in {sentence!r}"
    return found[1]


def share(value: float) -> str:
    """A share from a JSON answer, written as the sentences write it ("5.5 %")."""
    return f"{value * 100:.1f}\u202f%"


def bounds(low: object, high: object) -> tuple[Decimal, Decimal] | str:
    """An 80 % interval as two numbers, or N/A where too few past errors give none (the
    demo's short history: JSON's null, the tables' "N/A")."""
    if low in (None, "N/A") or high in (None, "N/A"):
        return "N/A"
    return number(str(low)), number(str(high))


def forecast_table(seen: Seen, rows: list[dict[str, str]], surface: str) -> None:
    """The total characters' forecast of each period of ``FORECAST_PERIODS`` from a table
    as the page and the report show it: "Period" ("Month to 2026-11-30"), "Projected" and
    "80 % interval" ("2,865,212 – 2,916,112")."""
    for period, title in FORECAST_PERIODS.items():
        [row] = [r for r in rows if r["Period"].startswith(f"{title} to ")]
        seen[f"Projected · {period} · Total characters"][surface] = number(row["Projected"])
        low, high = row["80 % interval"].split(" – ")
        seen[f"80 % interval · {period} · Total characters"][surface] = bounds(low, high)
        if period == "contract year":
            seen["Contract year · end"][surface] = row["Period"].removeprefix(f"{title} to ")


def cell(value: object) -> Decimal:
    """A table cell (an exact decimal, an integer or a float the page rounds to the cent)."""
    return Decimal(str(value)).quantize(CENT)


def shown_table(at: AppTest, index: int = 0) -> pd.DataFrame:
    """A dataframe of the page with its columns named as the page names them."""
    element = at.dataframe[index]
    config = json.loads(element.proto.columns or "{}")
    names = {
        column: spec["label"] for column, spec in config.items() if spec.get("label") is not None
    }
    return element.value.rename(columns=names)


def run(*args: str) -> str:
    """A command of the command line on the demo organization, as its standard output."""
    done = runner.invoke(app, [*args, "--demo"])
    assert done.exit_code in (0, 10, 11, 12), done.output
    return done.stdout


# --- the pages ---------------------------------------------------------------------------------


def pages(seen: Seen, period: str) -> None:
    at = open_clean_page("overview", period=period)
    tiles = {m.label: m for m in at.metric}
    seen["Total characters"]["Overview"] = number(tiles["Total characters"].value)
    before = tiles["Total characters"].help.split("previous period: ")[1]
    seen["Previous period · Total characters"]["Overview"] = (
        "N/A" if before == "N/A" else number(before)
    )
    [link] = at.get("page_link")
    new, total = re.match(
        r"([\d,]+) new anomal\w+ in this range \(([\d,]+) in all\)", link.proto.label
    ).groups()
    seen["New anomalies"]["Overview"] = number(new)
    seen["Anomalies"]["Overview"] = number(total)

    at = open_clean_page("overview", period=period, show="Cost")
    tiles = {m.label: m.value for m in at.metric}
    seen["Total cost"]["Overview"] = number(tiles["Total cost"])
    [said] = [c.value for c in at.caption if c.value.startswith("Total cost")]
    total_cost, usage_cost, base_fee = re.match(
        r"Total cost (.+?) EUR = usage cost (.+?) EUR \+ base fee (.+?) EUR", said
    ).groups()
    seen["Total cost"]["Overview caption"] = number(total_cost)
    seen["Usage cost"]["Overview"] = number(usage_cost)
    seen["Base fee"]["Overview"] = number(base_fee)

    at = open_clean_page("keys", period=period)
    [counted] = [c.value for c in at.caption if "keys used in this range" in c.value]
    seen["Keys used in range"]["Keys"] = number(counted.split(" of ")[1])
    at = open_clean_page("keys", period=period, show="Cost", group="Team")
    for row in shown_table(at).to_dict("records"):
        seen[f"Usage cost · {row['Team']}"]["Keys by team"] = cell(row["Usage cost (EUR)"])

    at = open_clean_page("tags", period=period)
    tiles = {m.label: m.value for m in at.metric}
    seen["Text characters"]["Tags"] = number(tiles["Text characters"])

    at = open_clean_page("chargeback", period=period)
    bill = pd.concat([shown_table(at, i) for i in range(len(at.dataframe))])  # teams, Total
    total = bill[bill["Team"] == "Total"].iloc[0]
    seen["Total cost"]["Chargeback"] = cell(total["Total cost (EUR)"])
    seen["Usage cost"]["Chargeback"] = cell(total["Usage cost (EUR)"])
    seen["Base fee"]["Chargeback"] = cell(total["Base fee share (EUR)"])
    for team in TEAMS:
        rows = bill[bill["Team"] == team]
        seen[f"Usage cost · {team}"]["Chargeback"] = cell(rows["Usage cost (EUR)"].sum())
        seen[f"Base fee share · {team}"]["Chargeback"] = cell(rows["Base fee share (EUR)"].sum())

    at = open_clean_page("anomalies", period=period)
    seen["Anomalies"]["Anomalies"] = Decimal(len(at.dataframe[0].value)).quantize(CENT)

    at = open_clean_page("capacity", period=period)
    [note] = [c.value for c in at.caption if c.value.startswith("Each projection is")]
    seen["Month-ahead error · total_characters"]["Capacity · Forecasts"] = accuracy(note)
    for metric in DECIDED:  # one metric's tab at a time
        shown = open_clean_page("capacity", period=period, outlook=metric)
        [said] = [c.value for c in shown.caption if c.value.startswith("Month-ahead error")]
        seen[f"Month-ahead error · {metric}"]["Capacity"] = said
        if metric == "Total characters":
            seen["Month-ahead error · WAPE"]["Capacity"] = month_ahead_error(said)
            [table] = [
                shown_table(shown, i)
                for i in range(len(shown.dataframe))
                if "80 % interval (characters)" in shown_table(shown, i).columns
            ]
            rows = table.rename(
                columns={
                    "Projected (characters)": "Projected",
                    "80 % interval (characters)": "80 % interval",
                }
            )
            forecast_table(seen, rows.astype(str).to_dict("records"), "Capacity")
    [plan] = [c.value for c in at.caption if c.value.startswith("Today's plan")]
    seen["Today's plan · characters"]["Capacity"] = plan_characters(plan)
    [success] = [s.value for s in at.success]
    seen["Recommended option"]["Capacity"] = success.split("**")[1]
    [chosen] = [m.value for m in at.metric if m.label == "Expected cost (EUR)"]
    seen["Recommended option · expected cost"]["Capacity"] = number(chosen)
    [compared] = [
        table.loc["Total characters"]
        for table in (shown_table(at, i) for i in range(len(at.dataframe)))
        if "Same period last year" in table.columns
    ]
    for name in COMPARED:
        seen[f"{name} · Total characters"]["Capacity"] = compared_value(compared[name])
    for table in (0, 1):  # the budgets' status, then the keys' against their own limits
        for row in shown_table(at, table).to_dict("records"):
            seen[f"Used · {row['Budget']}"]["Capacity"] = cell(row["Used"])


# --- the meeting report ------------------------------------------------------------------------


class _Tables(HTMLParser):
    """The report's text, and each table as rows of cell texts under the heading before it."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tables: dict[str, list[list[str]]] = {}
        self._heading = ""
        self._in: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in ("h2", "h3"):
            self._in, self._heading = "heading", ""
        elif tag == "table":
            self.tables[self._heading] = []
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._in, self._cell = "cell", []
        elif tag in ("script", "style"):
            self._in = "skip"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._row is not None:
            self._row.append("".join(self._cell).strip())
        elif tag == "tr" and self._row is not None:
            self.tables[self._heading].append(self._row)
            self._row = None
        if tag in ("h2", "h3", "td", "th", "script", "style"):
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "skip":
            return
        self.text.append(data)
        if self._in == "heading":
            self._heading += data
        elif self._in == "cell":
            self._cell.append(data)


def report(seen: Seen, page: str, surface: str) -> None:
    parsed = _Tables()
    parsed.feed(page)
    text = " ".join(parsed.text)
    seen["Contract year"][surface] = re.search(r"contract year starts (\d\d-\d\d)", text)[1]
    seen["Month-ahead error · total_characters"][f"{surface} · Forecasts"] = accuracy(text)
    seen["Month-ahead error · WAPE"][surface] = month_ahead_error(accuracy(text))
    seen["Today's plan · characters"][surface] = plan_characters(text)
    header, *forecasts = parsed.tables["Forecasts and their accuracy"]
    rows = [dict(zip(header, row, strict=True)) for row in forecasts]
    forecast_table(seen, [r for r in rows if r["Metric"] == "Total characters"], surface)
    for metric in DECIDED:
        said = re.search(rf"{metric}: (Month-ahead error .*?\.)(?= |$)", text)
        assert said, f"no month-ahead error of {metric}"
        seen[f"Month-ahead error · {metric}"][surface] = said[1]
    option, cost = re.search(
        r"Recommended for .*?: (.+?) \(.*?expected cost ([\d,.]+ EUR)", text
    ).groups()
    seen["Recommended option"][surface] = option
    seen["Recommended option · expected cost"][surface] = number(cost)
    header, *services = parsed.tables["Summary"]
    summary = {row[0]: dict(zip(header, row, strict=True)) for row in services}
    seen["Total characters"][surface] = number(summary["Total characters"]["This period"])
    for name in COMPARED:
        shown = summary["Total characters"][name]
        seen[f"{name} · Total characters"][surface] = "N/A" if shown == "N/A" else number(shown)
    spend = {row[0]: row[1] for row in parsed.tables["Spend (EUR)"][1:]}
    for name in ("Total cost", "Usage cost", "Base fee"):
        seen[name][surface] = number(spend[name])
    header, *teams = parsed.tables["Spend by team"]
    for row in teams:
        team = dict(zip(header, row, strict=True))
        if team["Team"] in TEAMS:
            seen[f"Usage cost · {team['Team']}"][surface] = number(team["Usage cost"])
            seen[f"Base fee share · {team['Team']}"][surface] = number(team["Base fee share"])
    for table in ("Budget status", "Keys against their own limits"):
        header, *budgets = parsed.tables.get(table, [[]])  # none without budgets or limits
        for row in budgets:
            budget = dict(zip(header, row, strict=True))
            seen[f"Used · {budget['Budget']}"][surface] = number(budget["Used"])


def plan_characters(text: str) -> Decimal:
    """Today's plan's character limit in the sentence that names it on the page and in the
    report: "Today's plan, as the service reports it: 5,000,000 characters, …"."""
    found = re.search(r"Today's plan, as the service reports it: ([\d,]+) characters", text)
    assert found, "no plan in the text"
    return number(found[1])


def downloaded_report(base: str, period: str) -> str:
    """The meeting report as the Capacity page's HTML button gives it on a served dashboard:
    the page's run, then the file its button asks the server for."""
    stream = base.replace("http://", "ws://") + "/_stcore/stream"

    async def fetch() -> str:
        async with websockets.connect(stream, max_size=None) as session:
            said: list[ForwardMsg] = []
            query = f"period={period.replace(' ', '+')}"
            elements = await one_run(session, query, "capacity", said)
            hello = next(m for m in said if m.WhichOneof("type") == "new_session")
            [button] = [
                e.download_button
                for e in elements
                if e.WhichOneof("type") == "download_button" and "(HTML)" in e.download_button.label
            ]
            ask = BackMsg()
            ask.backend_operation_request.CopyFrom(
                BackendOperationRequest(
                    request_id="report",
                    session_id=hello.new_session.initialize.session_id,
                    deferred_file=DeferredFileRequestPayload(file_id=button.deferred_file_id),
                )
            )
            await session.send(ask.SerializeToString())
            while True:
                answer = ForwardMsg()
                answer.ParseFromString(await asyncio.wait_for(session.recv(), timeout=120))
                if answer.WhichOneof("type") == "backend_operation_response":
                    response = answer.backend_operation_response
                    assert response.deferred_file.url, response
                    return response.deferred_file.url

    url = asyncio.run(fetch())
    return httpx.get(base + url, timeout=60).raise_for_status().text


# --- the commands ------------------------------------------------------------------------------


def commands(seen: Seen, preset: str, folder: Path) -> None:
    days = ["--period", preset]
    usage = pd.read_csv(
        io.StringIO(run("export", *days, "--group-by", "none", "--with-cost", "-o", "-"))
    ).iloc[0]
    seen["Total characters"]["export"] = Decimal(int(usage["total_characters"])).quantize(CENT)
    seen["Text characters"]["export"] = Decimal(
        int(usage["text_translation_characters"] + usage["text_improvement_characters"])
    ).quantize(CENT)
    seen["Total cost"]["export"] = cell(usage["total_cost_eur"])
    seen["Usage cost"]["export"] = cell(usage["usage_cost_eur"])
    seen["Base fee"]["export"] = cell(usage["base_fee_eur"])
    teams = pd.read_csv(
        io.StringIO(run("export", *days, "--group-by", "team", "--with-cost", "-o", "-"))
    ).set_index("team")
    for team in TEAMS:
        seen[f"Usage cost · {team}"]["export"] = cell(teams.loc[team, "usage_cost_eur"])
        seen[f"Base fee share · {team}"]["export"] = cell(teams.loc[team, "base_fee_share_eur"])
    keys = pd.read_csv(io.StringIO(run("export", *days, "--group-by", "key", "-o", "-")))
    used = keys.drop(columns=["api_key", "api_key_label"]).gt(0).any(axis=1)
    seen["Keys used in range"]["export"] = Decimal(int(used.sum())).quantize(CENT)

    written = folder / f"report-{preset}.html"
    run("report", *days, "-o", str(written))
    report(seen, written.read_text(encoding="utf-8"), "report command")

    for line in run("check-budgets").splitlines()[1:]:
        budget, period, used, limit, _, _, projected, *_ = re.split(r"\s{2,}", line)
        seen[f"Used · {budget}"]["check-budgets"] = number(used)
        # The example budgets' characters of the month and of the contract year, and the
        # plan's own limit over its billing period.
        if budget == "All characters, monthly":
            seen["Projected · month · Total characters"]["check-budgets"] = number(projected)
        elif budget == "All characters, contract year":
            seen["Projected · contract year · Total characters"]["check-budgets"] = number(
                projected
            )
            seen["Contract year · end"]["check-budgets"] = period.split(" – ")[1]
        elif budget == "Plan characters":
            seen["Today's plan · characters"]["check-budgets"] = number(limit)
            seen["Today's plan · billing period"]["check-budgets"] = period

    said = run("capacity", "backtest").splitlines()[-2]
    seen["Month-ahead error · Total characters"]["capacity backtest"] = said.removeprefix(
        "Total characters: "
    )
    tested = json.loads(run("capacity", "backtest", "--format", "json"))
    [served] = [
        row["wape"]
        for row in tested
        if (row["metric"], row["candidate"], row["horizon"])
        == ("total_characters", "forecast", "month")
    ]
    seen["Month-ahead error · WAPE"]["capacity backtest"] = share(served)

    decided = json.loads(run("capacity", "recommend", "--format", "json"))
    for row in decided["forecasts"]:
        period = {"month": "month", "year": "contract year"}.get(row["period"])
        if row["metric"] != "total_characters" or period is None:
            continue
        named = f"{period} · Total characters"
        seen[f"Projected · {named}"]["capacity recommend"] = number(str(row["projected"]))
        seen[f"80 % interval · {named}"]["capacity recommend"] = bounds(
            row["low_80"], row["high_80"]
        )
        seen["Month-ahead error · WAPE"]["capacity recommend"] = share(row["month_wape"])
        if period == "contract year":
            seen["Contract year · end"]["capacity recommend"] = row["end"]
    limit = decided["todays_plan"]["limits"]["characters"]
    seen["Today's plan · characters"]["capacity recommend"] = number(str(limit))

    planned = json.loads(run("guardrails", "plan", "--format", "json"))["usage_period"]
    seen["Today's plan · billing period"]["guardrails plan"] = (
        f"{planned['start']} – {planned['end']}"
    )

    # The Anomalies page's range: the dashboard's default (Last 30 days) without an option.
    window = [] if preset == "last-30-days" else ["--days", str(DEMO_DAYS)]
    anomalies = run("check-anomalies", *window).splitlines()
    seen["New anomalies"]["check-anomalies"] = Decimal(len(anomalies)).quantize(CENT)
    every = run("check-anomalies", *window, "--all").splitlines()
    seen["Anomalies"]["check-anomalies --all"] = Decimal(len(every)).quantize(CENT)


def oracles(seen: Seen, emulator) -> None:
    """What the figures must be where an independent source says it: the plan the demo's
    emulator serves, and the contract year the example budgets file starts."""
    plan = emulator.plan
    start, stop = plan.period(TODAY)
    seen["Today's plan · characters"]["emulator"] = number(f"{plan.effective_character_limit}")
    seen["Today's plan · billing period"]["emulator"] = f"{start} – {stop - dt.timedelta(days=1)}"
    budgets = loads((ROOT / "budgets.example.toml").read_text(encoding="utf-8"))
    month, day = map(int, budgets["contract_year_start"].split("-"))
    starts = dt.date(TODAY.year, month, day)
    ends = dt.date(starts.year + (starts <= TODAY), month, day) - dt.timedelta(days=1)
    seen["Contract year · end"]["budgets.example.toml"] = f"{ends}"


# --- the test ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The dashboard served on the headless demo organization, as a team would open it."""
    history = tmp_path_factory.mktemp("served") / "history"
    with running_dashboard({**DEMO, "SERVICE_HISTORY_PATH": str(history)}) as base:
        yield base


@pytest.mark.parametrize("period", list(RANGES))
def test_every_named_figure_has_one_value_on_every_surface(
    demo_env, demo_ledger, served, monkeypatch, tmp_path, period
):
    monkeypatch.chdir(tmp_path)  # no money or budgets files here: the demo's examples
    seen: Seen = defaultdict(dict)
    pages(seen, period)
    report(seen, downloaded_report(served, period), "report download")
    commands(seen, RANGES[period], tmp_path)
    oracles(seen, demo_ledger)

    # Every name the glossary gives these figures is on at least two surfaces.
    glossary = (ROOT / "docs" / "glossary.md").read_text()
    for name in seen:
        assert f"**{name.split(' · ')[0]}**" in glossary, f"{name} is not in the glossary"
    differing = {name: values for name, values in seen.items() if len(set(values.values())) > 1}
    assert not differing, "\n".join(
        f"{name}: " + ", ".join(f"{surface} {value}" for surface, value in values.items())
        for name, values in differing.items()
    )
    lonely = [name for name, values in seen.items() if len(values) < 2]
    assert not lonely, f"read on one surface only: {lonely}"
    # Every budget and key limit check-budgets prints, plan budgets included, is listed on the
    # page and in both reports.
    listed = {"Capacity", "report download", "report command", "check-budgets"}
    partly = {n: set(v) for n, v in seen.items() if n.startswith("Used · ") and set(v) != listed}
    assert not partly, f"budgets missing from a surface: {partly}"
