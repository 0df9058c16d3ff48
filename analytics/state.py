"""The dashboard's cached resources and data: the one analytics module that imports Streamlit.

The client is a shared resource; fetched key-day frames are shared resources too (never
copied per rerun, never mutated by views); derived tables are cached small data keyed by the
data source's fingerprint, the range and the view's arguments, so a widget that does not
change the range recomputes nothing that is already known. No cache key holds the API key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from typing import Any, NoReturn, TypeVar

import pandas as pd
import streamlit as st
from pydantic import ValidationError
from streamlit.runtime.pages_manager import PagesManager

from analytics import exports, languages, views
from analytics.client import ServiceClient
from analytics.demo import demo_client
from analytics.errors import (
    AuthorizationError,
    ConnectionFailedError,
    RateLimitError,
    ServiceError,
)
from analytics.history import HistoryStore
from analytics.models import DetectionResult, LanguageEntry, V2Language
from analytics.pipeline import Usage, fetch_usage, utc_today
from analytics.settings import Settings, setting_problems

T = TypeVar("T")
USAGE_TTL = "30m"
LANGUAGES_TTL = "1h"
SETTING_NAMES = ("auth_key", "base_url", "auth_scheme", "history_path")
DEMO_NAMES = ("demo_keys", "demo_days", "demo_seed")
# A page should answer within about a minute, or say why; the CLI may wait longer.
PAGE_CLIENT_OPTIONS = {"timeout": 20.0, "max_attempts": 3, "retry_timeout": 45.0}


@dataclass(frozen=True)
class Source:
    """Where the data comes from; `fingerprint` names it in caches without revealing the key."""

    settings: Settings
    fingerprint: str
    demo: bool

    @property
    def description(self) -> str:
        if self.demo:
            s = self.settings
            return f"Demo organization: {s.demo_keys} keys, {s.demo_days} days, seed {s.demo_seed}"
        return f"Organization at {self.settings.base_url}"


@dataclass(frozen=True)
class Period:
    """The range every page shows, inclusive UTC days, and the preset that produced it."""

    start: date
    end: date
    preset: str


def secrets() -> Mapping[str, Any]:
    """`st.secrets` as a plain mapping; empty when there is no secrets file."""
    try:
        return st.secrets.to_dict()
    except (FileNotFoundError, st.errors.StreamlitSecretNotFoundError):
        return {}


def load_settings() -> Settings:
    """Settings from `.streamlit/secrets.toml` (`SERVICE_*` names) where given, else from the
    environment."""
    given = secrets()
    values = {
        name: given[f"SERVICE_{name.upper()}"]
        for name in (*SETTING_NAMES, *DEMO_NAMES)
        if f"SERVICE_{name.upper()}" in given
    }
    try:
        return Settings(**values)
    except ValidationError as exc:
        st.error(f"Invalid setting — {setting_problems(exc)}.", icon=":material/settings:")
        st.stop()


ENTRY_MARK = "entry_script_ran"
ENTRY_RETRIED = "entry_script_retried"


def mark_entry() -> None:
    """Called by app.py on every run before any page."""
    st.session_state[ENTRY_MARK] = True


def _rerun_through_entry() -> NoReturn:
    """Restart a run that began on a page file instead of app.py.

    Until some run of the process has called `st.navigation`, Streamlit follows its older
    `pages/` folder convention and starts a deep link (say /trends, first after a server
    start) on the page file itself. Turning the convention off the way `st.navigation` does
    (declaring a navigation here would change the current page) makes the rerun go through
    app.py to the same page.
    """
    if st.session_state.get(ENTRY_RETRIED):
        st.error("This page is part of the dashboard: run `streamlit run app.py`.")
        st.stop()
    st.session_state[ENTRY_RETRIED] = True
    PagesManager.uses_pages_directory = False  # what any st.navigation call does
    st.rerun()


def source() -> Source:
    if ENTRY_MARK not in st.session_state:
        _rerun_through_entry()
    settings = load_settings()
    if settings.is_configured:
        secret = (
            f"{settings.base_url}\n{settings.auth_scheme}\n{settings.auth_key.get_secret_value()}"
        )
        return Source(settings, "org-" + hashlib.sha256(secret.encode()).hexdigest()[:16], False)
    s = settings
    return Source(settings, f"demo-{s.demo_seed}-{s.demo_keys}-{s.demo_days}", True)


@st.cache_resource(show_spinner="Starting the demo organization…")
def _client(fingerprint: str, _source: Source) -> ServiceClient:
    if _source.demo:
        return demo_client(_source.settings)
    return ServiceClient.from_settings(_source.settings, **PAGE_CLIENT_OPTIONS)


def client(src: Source) -> ServiceClient:
    return _client(src.fingerprint, src)


@st.cache_resource(ttl=USAGE_TTL, max_entries=6, show_spinner="Loading usage…")
def _usage(fingerprint: str, start: date, end: date, _source: Source) -> Usage:
    # The demo organization is computed in-process: only a real account's days are stored.
    history = None if _source.demo else HistoryStore.from_settings(_source.settings)
    return fetch_usage(client(_source), start, end, history=history)


def usage(src: Source, start: date, end: date) -> Usage:
    """The key-day frame of a range; shared between sessions, never to be modified."""
    return _usage(src.fingerprint, start, end, src)


@st.cache_data(ttl=USAGE_TTL, max_entries=256, show_spinner=False)
def _view(
    fingerprint: str,
    start: date,
    end: date,
    name: str,
    keys: tuple[str, ...],
    args: tuple[Any, ...],
    _source: Source,
) -> Any:
    key_day = views.restrict_keys(usage(_source, start, end).key_day, keys)
    return getattr(views, name)(key_day, *args)


def view(
    src: Source,
    period: Period,
    func: Callable[..., T],
    *args: Any,
    keys: tuple[str, ...] = (),
) -> T:
    """`func(key_day, *args)` from `analytics.views` on the period's frame, cached by value."""
    return _view(src.fingerprint, period.start, period.end, func.__name__, keys, args, src)


@st.cache_data(ttl=USAGE_TTL, max_entries=6, show_spinner=False)
def _export(
    fingerprint: str, start: date, end: date, group_by: str, fmt: str, _source: Source
) -> bytes:
    table = exports.shape_export(usage(_source, start, end), group_by)
    return exports.export_bytes(table, fmt)


def export(src: Source, period: Period, group_by: str, fmt: str) -> bytes:
    """The bytes of an export file, built once per range, grouping and format."""
    return _export(src.fingerprint, period.start, period.end, group_by, fmt, src)


@st.cache_data(ttl=USAGE_TTL, max_entries=24, show_spinner=False)
def _export_preview(
    fingerprint: str, start: date, end: date, group_by: str, rows: int, _source: Source
) -> tuple[pd.DataFrame, int]:
    table = exports.shape_export(usage(_source, start, end), group_by)
    return table.head(rows), len(table)


def export_preview(
    src: Source, period: Period, group_by: str, rows: int = 100
) -> tuple[pd.DataFrame, int]:
    """The first rows of an export and its full row count."""
    return _export_preview(src.fingerprint, period.start, period.end, group_by, rows, src)


@st.cache_data(ttl=LANGUAGES_TTL, show_spinner="Loading language lists…")
def _language_lists(fingerprint: str, _source: Source) -> dict[str, list[LanguageEntry]]:
    return {r: client(_source).languages(r) for r in languages.RESOURCES}


def language_lists(src: Source) -> dict[str, list[LanguageEntry]]:
    """The v3 list of every resource, refreshed at most hourly."""
    return _language_lists(src.fingerprint, src)


@st.cache_data(ttl=LANGUAGES_TTL, show_spinner=False)
def _v2_lists(fingerprint: str, _source: Source) -> tuple[list[V2Language], list[V2Language]]:
    c = client(_source)
    return c.languages_v2("source"), c.languages_v2("target")


def v2_lists(src: Source) -> tuple[list[V2Language], list[V2Language]]:
    """The v2 source and target lists, refreshed at most hourly."""
    return _v2_lists(src.fingerprint, src)


def detect(src: Source, texts: list[str]) -> list[DetectionResult]:
    """Not cached: detection is an explicit request with its own rate limit."""
    return client(src).detect(texts)


def today() -> date:
    return utc_today()


def set_period(period: Period) -> None:
    st.session_state["chosen_period"] = period


def period() -> Period:
    """The range chosen in the sidebar on this run."""
    return st.session_state["chosen_period"]


def key_table_columns() -> dict[str, Any]:
    """How per-key tables show their columns: people's numbers, shares as bars."""
    number = st.column_config.NumberColumn
    labels = {views.TOTAL_CHARACTERS: "Total characters"} | {
        metric: views.SERVICE_LABELS[metric] for metric in views.SERVICE_CHARACTERS
    }
    characters = {metric: number(label, format="%,d") for metric, label in labels.items()}
    return {
        "api_key": st.column_config.TextColumn("Key", pinned=True),
        "api_key_label": st.column_config.TextColumn("Label", pinned=True),
        "share": st.column_config.ProgressColumn(
            "Share", format="percent", min_value=0.0, max_value=1.0
        ),
        "trend": st.column_config.LineChartColumn("Characters over time", y_min=0),
        **characters,
        views.MINUTES: number("Speech minutes", format="%,.2f"),
    }


@contextmanager
def service_errors(src: Source) -> Iterator[None]:
    """Around a page's service calls: a failure becomes a message on the page, and the run
    stops there."""
    try:
        yield
    except ServiceError as exc:
        stop_with_error(exc, src)


def stop_with_error(exc: ServiceError, src: Source) -> NoReturn:
    """A clear message instead of a traceback, quoting the trace id where there is one."""
    if isinstance(exc, ConnectionFailedError):
        st.error(
            f"The service at {src.settings.base_url} cannot be reached. Check "
            f"SERVICE_BASE_URL and the network, then reload. ({exc})",
            icon=":material/cloud_off:",
        )
    elif isinstance(exc, AuthorizationError):
        st.error(
            "The service refused the API key (403). Check that SERVICE_AUTH_KEY is an "
            f"administrator key of this organization. ({exc})",
            icon=":material/lock:",
        )
    elif isinstance(exc, RateLimitError):
        st.error(
            "The service is limiting the rate of requests (429) and kept doing so through "
            f"every retry. Wait a minute, then reload. ({exc})",
            icon=":material/hourglass:",
        )
    else:
        st.error(f"The service could not answer: {exc}", icon=":material/error:")
    st.stop()
