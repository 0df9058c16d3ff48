"""What every page starts with: its title over the chosen range, the Usage / Cost switch and
the grouping by key or team, the per-key table that the Keys and Trends pages stand on, and the
searchable per-key and per-tag tables."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeVar, cast

import pandas as pd
import pyarrow as pa
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from analytics.cost import (
    COST_LABELS,
    MINOR_UNITS,
    PricingSettingsError,
    TeamSettingsError,
    as_decimals,
)
from analytics.dashboard import data, key_labels, session
from analytics.dashboard.column_config import (
    in_percent,
    key_table_columns,
    key_table_order,
    owner_columns,
    tag_table_columns,
    tag_table_order,
)
from analytics.dashboard.messages import service_errors
from analytics.dashboard.session import ChosenRange
from analytics.dashboard.settings_in_force import (
    NEEDS_PRICING,
    NEEDS_TEAMS,
    say_unpriced,
    settings_name,
    view_settings,
)
from analytics.dashboard.source import Source
from analytics.dashboard.view import USAGE_BY_KEY, View
from analytics.keys import OWNER_COLUMNS
from analytics.usage import (
    METRIC_LABELS,
    METRICS,
    Granularity,
    Metric,
    allowed_granularities,
    auto_granularity,
    range_text,
    tables,
)

M = TypeVar("M", bound=Metric)


def title_row(title: str) -> DeltaGenerator:
    """The page's title in a row that the page's own controls (the Usage / Cost switch) join
    on the right, so they cost no line of the screen."""
    row = st.container(
        horizontal=True, horizontal_alignment="distribute", vertical_alignment="bottom"
    )
    row.title(title)
    return row


def header(title: str, chosen: ChosenRange) -> DeltaGenerator:
    """The title row (``title_row``) over the chosen range."""
    row = title_row(title)
    st.caption(f"{range_text(chosen.start, chosen.end)} (UTC)")
    return row


SHOWN_LABELS = {"usage": "Usage", "cost": "Cost"}
GROUPED = {"key": "Key", "team": "Team"}


def view_select(
    where: DeltaGenerator, src: Source, chosen: ChosenRange, grouping: bool = False
) -> View:
    """The Usage / Cost switch, and with `grouping` the Group by key / team control; kept in
    the URL as `show` and `group`.

    Cost reads pricing.toml and teams read teams.toml beside the dashboard (in demo mode, the
    examples). Without the file the page says how to add it, and a file that cannot serve the
    range (unreadable, a key two teams claim) is named; either way the page goes on in usage
    units by key, so it never fails for a missing file. Days without a price are named and the
    money covers the others.
    """
    where = where.container(horizontal=True, width="content")  # the controls side by side
    shown = money_switch(where, src)
    grouped = "key"
    if grouping:
        teams_file = settings_name("teams", src)
        help_grouped = f"Each key, or each team of {teams_file} (keys no team claims: Unassigned)."
        grouped = segments(where, "Group by", GROUPED, "key", "group", help_grouped)
    settings = view_settings(src)
    view = View(
        settings,
        cost=shown == "cost" and settings.document("pricing") is not None,
        by_team=grouped == "team" and settings.document("teams") is not None,
    )
    if shown == "cost" and not view.cost:
        st.info(NEEDS_PRICING, icon=":material/payments:")
    if grouped == "team" and not view.by_team:
        st.info(NEEDS_TEAMS, icon=":material/groups:")
    try:
        view = replace(view, currency=view.pricing.currency if view.pricing is not None else "")
        if view.cost or view.by_team:
            with service_errors(src):
                data.viewed(src, chosen, view)  # the files against the range's keys and days
    except (PricingSettingsError, TeamSettingsError) as exc:
        st.warning(f"{exc}. Showing usage by key instead.", icon=":material/warning:")
        return USAGE_BY_KEY
    if view.pricing is not None:
        say_unpriced(view.pricing, chosen.start, chosen.end)
    return view


SWITCH_KEY = "show_switch"


def money_switch(where: DeltaGenerator, src: Source) -> str:
    """The Usage / Cost switch, showing the session's choice (``session.shown``) whichever
    page set it; a click makes the new choice the session's."""
    st.session_state[SWITCH_KEY] = session.shown()  # before the widget: no default to fight
    where.segmented_control(
        "Show",
        list(SHOWN_LABELS),
        format_func=SHOWN_LABELS.__getitem__,
        required=True,
        key=SWITCH_KEY,
        on_change=lambda: session.show(st.session_state[SWITCH_KEY]),
        help="Usage in characters and minutes, or its cost at the prices in force "
        f"({settings_name('pricing', src)}). One choice for every page of this session.",
    )
    return session.shown()


def money_settings(src: Source) -> View:
    """The prices and teams in force, for the pages that add money wherever there are prices
    (Tags, Capacity, Export). Prices that cannot be read are named and left out."""
    settings = view_settings(src)
    view = View(settings, by_team=settings.document("teams") is not None)
    if settings.document("pricing") is None:
        return view
    try:
        currency = settings.pricing.currency if settings.pricing is not None else ""
    except PricingSettingsError as exc:
        st.warning(f"{exc}. Costs are left out.", icon=":material/warning:")
        return view
    return replace(view, cost=True, currency=currency)


def key_table_or_stop(
    src: Source, chosen: ChosenRange, when_empty: str, view: View = USAGE_BY_KEY
) -> pd.DataFrame:
    """The range's per-key (or per-team) table as `view` shows it, each key under its label in
    the key list now (``key_labels``: a key renamed on Keys & limits is named anew at once);
    a page without any usage says `when_empty` and stops."""
    with service_errors(src):
        table: pd.DataFrame = data.table(
            src, chosen, tables.key_table, chosen.start, chosen.end, view=view
        )
    if table.empty:
        st.info(when_empty)
        st.stop()
    return table if view.by_team else key_labels.listed_labels(src, table)


def metric_select(
    where: DeltaGenerator,
    metrics: Sequence[M],
    width: int | Literal["stretch"] = "stretch",
    view: View = USAGE_BY_KEY,
    names: Mapping[str, str] = METRIC_LABELS,
) -> M:
    """The metric a chart shows, one of `metrics` named by `names` (in money, its cost); kept
    in the URL as `metric`."""
    labels = COST_LABELS if view.cost else names
    metric: M = where.selectbox(
        "Metric",
        metrics,
        format_func=labels.__getitem__,
        key="metric",
        bind="query-params",
        width=width,
    )
    return metric


def top_n_input(where: DeltaGenerator, width: int | Literal["stretch"] = "stretch") -> int:
    """How many keys or tags a chart names before folding the rest into Other; kept as
    `top`."""
    return int(where.number_input("Top N", 1, 50, 10, key="top", bind="query-params", width=width))


def key_choices(
    table: pd.DataFrame, src: Source, chosen: ChosenRange, param: str
) -> dict[str, Any]:
    """How a key (or team) widget offers them: masked ids shown by name, or teams by name;
    kept in the URL as ``param``, where another team's key (or a team outside the session's
    scope) is refused."""
    names = tables.key_names(table)
    unseen = data.unseen_keys(src, chosen.start, chosen.end)
    session.refuse_unseen(
        param,
        lambda asked: asked in unseen or src.visible.outside_team(asked),
        src.visible.scope,
    )
    return {"options": list(names), "format_func": names.__getitem__, "bind": "query-params"}


def in_currency(values: pd.DataFrame | pd.Series, view: View) -> Any:
    """A priced table's amounts (minor units) in currency units, for charts; usage as it is."""
    return values / 10 ** MINOR_UNITS[view.currency] if view.cost else values


def _arrow(table: pd.DataFrame) -> pa.Table:
    """The table as Arrow for `st.dataframe`, without pandas' metadata: its sparklines are an
    Arrow list column (see `tables.key_table`), whose dtype that metadata names in a form
    pandas cannot read back, and converting them is the table's one cost at 10,000 rows."""
    return pa.Table.from_pandas(table, preserve_index=False).replace_schema_metadata(None)


def shown_table(table: pd.DataFrame, view: View) -> pd.DataFrame:
    """A per-key table as a page shows it: a priced one's amounts as exact decimals."""
    if not view.cost:
        return table
    amounts = {m: as_decimals(table[m].to_numpy(), view.currency) for m in METRICS}
    return table.assign(**amounts)


def granularity_select(where: DeltaGenerator, chosen: ChosenRange) -> Granularity:
    """Days, weeks or months for a chart over the range (daily only up to a year); kept in
    the URL as `granularity`, the range's own bucket by default."""
    allowed = allowed_granularities(chosen.start, chosen.end)
    auto = auto_granularity(chosen.start, chosen.end)
    picked = segments(
        where, "Granularity", {g: g.capitalize() for g in allowed}, auto, "granularity"
    )
    return cast(Granularity, picked)


def segments(
    where: DeltaGenerator,
    label: str,
    options: Mapping[str, str],
    default: str,
    key: str,
    tip: str | None = None,
) -> str:
    """One of `options` (value → what it shows) as segments, always one chosen; kept in the URL
    as `key`, so a shared link shows the same."""
    picked: str | None = where.segmented_control(
        label,
        list(options),
        default=default,
        format_func=options.__getitem__,
        required=True,
        key=key,
        bind="query-params",
        help=tip,
    )
    return picked or default


@dataclass(frozen=True)
class _Searchable:
    search: Callable[[pd.DataFrame, str], pd.DataFrame]
    placeholder: str
    column_order: Sequence[str]
    column_config: Mapping[str, Any]


def _searchable(noun: Literal["keys", "tags"], view: View) -> _Searchable:
    """How the table of `noun` is searched and shown as `view` shows it (by team, in money)."""
    if noun == "tags":
        return _Searchable(
            tables.search_tags,
            "Tag",
            tag_table_order(view.cost),
            tag_table_columns(view.currency),
        )
    if view.by_team:
        return _Searchable(
            tables.search_keys,
            "Team",
            key_table_order(True),
            key_table_columns(view.currency, True),
        )
    # By key, the Keys page's table ends with each key's owner and purpose (`with_owners`).
    return _Searchable(
        tables.search_keys,
        "Label or masked key",
        (*key_table_order(), *OWNER_COLUMNS),
        key_table_columns(view.currency) | owner_columns(),
    )


def searchable_table(
    table: pd.DataFrame, noun: Literal["keys", "tags"], view: View = USAGE_BY_KEY
) -> pd.DataFrame:
    """The per-key (per-team) or per-tag table under a search box kept in the URL (`?q=`), so
    a filtered view can be shared; the rows shown are returned for what the page picks from
    them. A priced per-key table shows its amounts as exact decimals."""
    kind = _searchable(noun, view)
    words = "teams" if noun == "keys" and view.by_team else noun
    # Glossary: a table of keys counts the keys used in the range, not the key list's.
    counted = "keys used in this range" if words == "keys" else words
    query = st.text_input(
        f"Search {words}",
        key="q",
        bind="query-params",
        placeholder=kind.placeholder,
        icon=":material/search:",
    )
    shown = kind.search(table, query)
    st.dataframe(
        _arrow(in_percent(shown_table(shown, view) if noun == "keys" else shown)),
        hide_index=True,
        column_order=kind.column_order,
        height=min(38 + 35 * len(shown), 420),
        column_config=kind.column_config,
    )
    st.caption(f"{len(shown):,} of {len(table):,} {counted}. Click a column header to sort.")
    return shown
