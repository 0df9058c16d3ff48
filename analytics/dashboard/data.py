"""The dashboard's cached data, at the boundary where it comes in.

The client and fetched key-day frames are shared resources (never copied per rerun, never
mutated); derived tables are cached small data keyed by the source's fingerprint, the range
and the table's arguments, so a widget that does not change the range recomputes nothing that
is already known. The capacity review is a shared resource keyed by range, day and budgets
(the capacity decision's, in `capacity.deciding`).
The plan is asked at most every five minutes: the service's counts move during the day.
`Cached` reads usage and the plan from these caches for the questions the library answers
(anomalies, the plan snapshot, key limits), which their own modules cache in turn.
Tag-day frames are shared like key-day frames. No cache key holds the API key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Final, TypeVar

import msgspec
import pandas as pd
import streamlit as st

from analytics.access import ScopedMoney, scoped_review
from analytics.capacity import BudgetSettings, CapacityReview
from analytics.connection import service_client
from analytics.cost import (
    NO_TEAMS,
    PricesInForce,
    Pricing,
    RangeCost,
    chargeback_rows,
    price_key_day,
    team_day,
)
from analytics.dashboard.session import ChosenRange
from analytics.dashboard.source import Source
from analytics.dashboard.view import USAGE_BY_KEY, View
from analytics.exports import (
    REPORTS,
    Costing,
    ExportRequest,
    ExportSource,
    Format,
    export_bytes,
    shape_tag_export,
)
from analytics.service import PlanUsage, Policy, ServiceClient
from analytics.settings import Texts
from analytics.usage import FetchedRange, HistoryStore, tables, totals

T = TypeVar("T")
USAGE_TTL = "30m"
PLAN_TTL = "5m"
# The tables pages may ask for by name, so that the cache key is the name, not the function.
_TABLES: dict[str, Callable[..., Any]] = {
    func.__name__: func
    for func in (
        totals,
        tables.usage_over_time,
        tables.top_n_over_time,
        tables.top_n_totals,
        tables.key_table,
        tables.bucket_breakdown,
    )
}
# The same for tables of custom tags, which also read the key-day frame (the untagged rest).
_TAG_TABLES: dict[str, Callable[..., Any]] = {
    func.__name__: func
    for func in (tables.tag_summary, tables.tags_over_time, tables.tag_table, tables.tag_days)
}
_PAIR_TABLES: dict[str, Callable[..., Any]] = {
    func.__name__: func
    for func in (tables.pair_table, tables.pair_matrix, tables.top_n_over_time, tables.pair_keys)
}
# Only a pair's keys read the pair-key-day frame, several times the pair-day frame's rows.
_PAIR_TABLE_REPORTS: Final = {"pair_keys": "pair_keys"}
# A page should answer within about a minute, or say why; the CLI may wait longer.
PAGE_POLICY = Policy(timeout=20.0, max_attempts=3, retry_timeout=45.0)


@st.cache_resource(show_spinner="Starting the demo organization…")
def _client(fingerprint: str, place: str, _source: Source) -> ServiceClient:
    return service_client(_source.connection, _source.demo, PAGE_POLICY)


def client(src: Source) -> ServiceClient:
    """The source's client; a demo's is kept per store file too (`place`), since its keys
    live there, while its usage, the same in every place, is cached once."""
    files = src.connection.demo_files if src.demo else None
    return _client(src.origin, "" if files is None else str(files.store), src)


# The daily reports a page may read, by name: the cache key is the name, not the function.
_REPORTS: dict[str, Callable[..., FetchedRange]] = {
    name: read.fetch for name, read in REPORTS.items()
}


@st.cache_resource(ttl=USAGE_TTL, max_entries=18, show_spinner="Loading usage…")
def _days(origin: str, report: str, start: date, end: date, _source: Source) -> FetchedRange:
    # The demo organization is computed in-process: only a real account's days are stored.
    history = None if _source.demo else HistoryStore.from_connection(_source.connection)
    return _REPORTS[report](client(_source), start, end, history=history)


@st.cache_resource(ttl=USAGE_TTL, max_entries=18, show_spinner=False)
def _scoped_days(
    fingerprint: str, report: str, start: date, end: date, _source: Source
) -> FetchedRange:
    return _source.visible.report(
        report, lambda name: _days(_source.origin, name, start, end, _source)
    )


def _read(src: Source, report: str, start: date, end: date) -> FetchedRange:
    """A daily report of a range as the session's scope sees it (``Visible.report``): the one
    read of every page's figures; the organization's own frames are cached once for all."""
    if src.visible.scope.whole:
        return _days(src.origin, report, start, end, src)
    return _scoped_days(src.fingerprint, report, start, end, src)


def unseen_keys(src: Source, start: date, end: date) -> frozenset[str]:
    """The masked keys and labels of the organization's keys used in the range that the
    session's scope does not see: what an address may not name (said so, never shown)."""
    if src.visible.scope.whole:
        return frozenset()
    return _unseen_keys(src.fingerprint, start, end, src)


@st.cache_resource(ttl=USAGE_TTL, max_entries=18, show_spinner=False)
def _unseen_keys(fingerprint: str, start: date, end: date, _source: Source) -> frozenset[str]:
    # Kept per scope and range beside the scope's frames, which it is read from: worked out
    # on every run, it read every row of the organization's frame and of the team's (0.07 s a
    # run at 1,000 keys over five years, a fifth of a team lead's warm page).
    seen = set(usage(_source, start, end).frame["api_key"].astype(str))
    organization = _days(_source.origin, "usage", start, end, _source).frame
    rows = organization.drop_duplicates("api_key")
    rows = rows[~rows["api_key"].astype(str).isin(seen)]
    return frozenset(rows["api_key"].astype(str)) | frozenset(rows["api_key_label"].astype(str))


def usage(src: Source, start: date, end: date) -> FetchedRange:
    """The key-day frame of a range; shared between sessions, never to be modified."""
    return _read(src, "usage", start, end)


@st.cache_data(ttl=PLAN_TTL, max_entries=4, show_spinner="Loading the plan…")
def _plan(fingerprint: str, _source: Source) -> PlanUsage:
    return client(_source).usage()


@dataclass(frozen=True)
class Cached:
    """The dashboard's reader of what a question asks for (``analytics.capacity.budgets``'
    ``PlanReader``): usage from the shared frames (the scope's; the organization's with
    ``whole``, what money is priced over before a team's rows are taken from it), the plan
    asked at most every five minutes (the service's counts move during the day)."""

    source: Source
    whole: bool = field(default=False, kw_only=True)

    def usage(self, first: date, last: date) -> FetchedRange:
        if self.whole:
            return _days(self.source.origin, "usage", first, last, self.source)
        return usage(self.source, first, last)

    def plan(self) -> PlanUsage:
        return _plan(self.source.origin, self.source)


def tags(src: Source, start: date, end: date) -> FetchedRange:
    """The tag-day frame of a range; shared between sessions, never to be modified."""
    return _read(src, "tags", start, end)


@st.cache_data(ttl=USAGE_TTL, max_entries=64, show_spinner=False)
def _pairs_table(
    fingerprint: str,
    start: date,
    end: date,
    language: str,
    name: str,
    args: tuple[Any, ...],
    _source: Source,
) -> Any:
    report = _PAIR_TABLE_REPORTS.get(name, "pairs")
    frame = tables.pairs_of(_read(_source, report, start, end).frame, language)
    return _PAIR_TABLES[name](frame, *args)


def pairs_table(
    src: Source, chosen: ChosenRange, language: str, func: Callable[..., T], *args: Any
) -> T:
    """`func(frame, *args)` on the range's pair-day frame (pair-key-day for `pair_keys`) of
    the pairs of `language` (every pair when empty), cached by value; `func` is one of
    `_PAIR_TABLES`."""
    name = _named(func, _PAIR_TABLES)
    result: T = _pairs_table(src.fingerprint, chosen.start, chosen.end, language, name, args, src)
    return result


def _named(func: Callable[..., Any], registry: dict[str, Callable[..., Any]]) -> str:
    """The cache's name of a table function; one not in `registry` is refused."""
    if registry.get(func.__name__) is not func:
        raise ValueError(f"{func.__name__} is not a cached table")
    return func.__name__


@st.cache_resource(ttl=USAGE_TTL, max_entries=12, show_spinner="Pricing usage…")
def _viewed(
    fingerprint: str,
    start: date,
    end: date,
    settings: Texts,
    _source: Source,
    _view: View,
) -> pd.DataFrame:
    pricing, teams = _view.pricing, _view.teams
    if _source.visible.scope.whole or pricing is None:
        key_day = usage(_source, start, end).frame
        if teams is not None:
            key_day = team_day(key_day, teams)
        if pricing is not None:
            key_day = price_key_day(key_day, pricing, start, end)
        return key_day
    # A team's money is the organization's money of its keys: priced over every key (the
    # included volume is the organization's), then narrowed, then grouped.
    organization = _days(_source.origin, "usage", start, end, _source).frame
    priced = price_key_day(organization, pricing, start, end)
    shown = _source.visible.key_day(priced)
    return shown if teams is None else team_day(shown, teams)


def viewed(src: Source, chosen: ChosenRange, view: View) -> pd.DataFrame:
    """The range's key-day frame as ``view`` shows it (``teams.team_day``, ``priced``): shared
    between sessions, never to be modified."""
    return _viewed(src.fingerprint, chosen.start, chosen.end, view.key, src, view)


@st.cache_data(ttl=USAGE_TTL, max_entries=256, show_spinner=False)
def _table(
    fingerprint: str,
    start: date,
    end: date,
    name: str,
    keys: tuple[str, ...],
    args: tuple[Any, ...],
    settings: Texts,
    _source: Source,
    _view: View,
) -> Any:
    frame = _viewed(fingerprint, start, end, settings, _source, _view)
    return _TABLES[name](tables.restrict_keys(frame, keys), *args)


def table(
    src: Source,
    chosen: ChosenRange,
    func: Callable[..., T],
    *args: Any,
    keys: tuple[str, ...] = (),
    view: View = USAGE_BY_KEY,
) -> T:
    """`func(key_day, *args)` on the range's frame as `view` shows it (keys: masked keys, or
    teams by team), cached by value; `func` is one of `_TABLES`."""
    name = _named(func, _TABLES)
    result: T = _table(
        src.fingerprint, chosen.start, chosen.end, name, keys, args, view.key, src, view
    )
    return result


def wholly_priced(prices: Pricing, *ranges: ChosenRange) -> bool:
    """Whether every day of the ranges has a price."""
    return all(prices.unpriced(chosen.start, chosen.end) is None for chosen in ranges)


@st.cache_data(ttl=USAGE_TTL, max_entries=64, show_spinner=False)
def _tags_table(
    fingerprint: str, start: date, end: date, name: str, args: tuple[Any, ...], _source: Source
) -> Any:
    tag_day = tags(_source, start, end).frame
    return _TAG_TABLES[name](tag_day, usage(_source, start, end).frame, *args)


def tags_table(src: Source, chosen: ChosenRange, func: Callable[..., T], *args: Any) -> T:
    """`func(tag_day, key_day, *args)` on the range's frames, cached by value; `func` is one
    of `_TAG_TABLES`."""
    name = _named(func, _TAG_TABLES)
    result: T = _tags_table(src.fingerprint, chosen.start, chosen.end, name, args, src)
    return result


@st.cache_data(ttl=USAGE_TTL, max_entries=24, show_spinner="Pricing tags…")
def _priced_tags(
    fingerprint: str, start: date, end: date, settings: Texts, _source: Source, _view: View
) -> pd.DataFrame:
    table: pd.DataFrame = _tags_table(fingerprint, start, end, "tag_table", (start, end), _source)
    assert _view.pricing is not None
    costing = Costing(_view.pricing, _view.teams)
    rows = shape_tag_export(tags(_source, start, end).frame, start, end, "tag", costing)
    cost = rows.columns[-1]  # usage_cost_<currency>
    added = rows.set_index("custom_tag")[[c for c in ("team", cost) if c in rows.columns]]
    return table.join(added.rename(columns={cost: "cost"}), on="custom_tag")


def priced_tag_table(src: Source, chosen: ChosenRange, view: View) -> pd.DataFrame:
    """The tag table (``tables.tag_table``) with each tag's ``cost`` at list prices and, with
    teams, its ``team``: the tag export's amounts, cached by the documents and the range."""
    return _priced_tags(src.fingerprint, chosen.start, chosen.end, view.key, src, view)


@st.cache_data(ttl=USAGE_TTL, max_entries=6, show_spinner="Shaping the export…")
def _export_table(
    fingerprint: str,
    start: date,
    end: date,
    choices: tuple[ExportSource, str | None, bool],
    settings: Texts,
    _source: Source,
    _money: View,
) -> pd.DataFrame:
    request = ExportRequest(*choices)
    costing = Costing(_money.pricing, _money.teams)

    # The rows `export`, `export-dataset` and the API make, read from the cached reports.
    def read(name: str) -> FetchedRange:
        return _days(_source.origin, name, start, end, _source)

    return request.rows(read, _source.visible, (start, end), costing).table


def export_table(
    src: Source, chosen: ChosenRange, request: ExportRequest, money: View
) -> pd.DataFrame:
    """The rows of an export as the command line's `export` shapes them for the same choices
    (``ExportRequest``), priced and grouped by team with the settings in force."""
    choices = (request.source, request.grouping, request.with_cost)
    return _export_table(src.fingerprint, chosen.start, chosen.end, choices, money.key, src, money)


def export(
    src: Source, chosen: ChosenRange, request: ExportRequest, money: View, fmt: Format
) -> bytes:
    """The bytes of an export file, as the command line writes them."""
    return export_bytes(export_table(src, chosen, request, money), fmt)


@st.cache_resource(
    ttl=USAGE_TTL,
    max_entries=6,
    show_spinner="Preparing the capacity review…",
    # Streamlit cannot hash a msgspec struct itself: the file's content names it.
    hash_funcs={BudgetSettings: msgspec.json.encode},
)
def _review(
    fingerprint: str,
    days: tuple[date, date, date],
    budgets: BudgetSettings | None,
    settings: Texts,
    _source: Source,
    _view: View,
) -> tuple[CapacityReview, FetchedRange]:
    prices = None if _view.pricing is None else PricesInForce(_view.pricing, _view.teams)
    readers = (Cached(_source), Cached(_source, whole=True))
    return scoped_review(_source.visible, readers, budgets, days, prices)


def review(
    src: Source,
    chosen: ChosenRange,
    today: date,
    budgets: BudgetSettings | None,
    view: View = USAGE_BY_KEY,
) -> tuple[CapacityReview, FetchedRange]:
    """The capacity review of the range as the scope sees it (``scoped_review``, ``budgets``
    the document in force) and the usage it read, priced with `view`'s files: built once per
    range, day, budgets and files, so other widgets of the page recompute nothing."""
    days = (chosen.start, chosen.end, today)
    return _review(src.fingerprint, days, budgets, view.key, src, view)


@st.cache_data(ttl=USAGE_TTL, max_entries=24, show_spinner="Pricing usage…")
def _chargeback(
    fingerprint: str, start: date, end: date, settings: Texts, _source: Source, _view: View
) -> pd.DataFrame:
    assert _view.pricing is not None
    money = ScopedMoney(_source.visible, _view.pricing, _view.teams or NO_TEAMS)
    organization = Cached(_source, whole=True).usage(start, end).frame
    return chargeback_rows(money.chargeback(organization, start, end))


def chargeback_table(src: Source, chosen: ChosenRange, money: View) -> pd.DataFrame:
    """The Chargeback page's table as the session's scope sees it (``ScopedMoney``: a team's
    rows and their total) at ``money``'s prices and teams, cached by the documents and the
    range."""
    return _chargeback(src.fingerprint, chosen.start, chosen.end, money.key, src, money)


@st.cache_data(ttl=USAGE_TTL, max_entries=24, show_spinner="Pricing usage…")
def _range_cost(
    fingerprint: str, start: date, end: date, settings: Texts, _source: Source, _view: View
) -> RangeCost:
    organization = Cached(_source, whole=True).usage(start, end).frame
    assert _view.pricing is not None
    return ScopedMoney(_source.visible, _view.pricing).range_cost(organization, start, end)


def range_cost(src: Source, chosen: ChosenRange, view: View) -> RangeCost:
    """What the range cost the session's scope (``ScopedMoney.range_cost``): the
    organization's usage cost and base fee, or a team's rows of Chargeback (their teams are
    the scope's; the organization's total needs none)."""
    money = View(view.settings, cost=True, currency=view.currency)  # keyed by the prices alone
    return _range_cost(src.fingerprint, chosen.start, chosen.end, money.key, src, money)
