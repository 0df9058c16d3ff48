"""How tables show their columns: people's numbers, shares as bars, and the columns that
name a row pinned.

The pinned rule is what keeps a wide table readable at a laptop's 1366 px: a table with more
figures than fit scrolls them sideways under the row's name (key, label, team, tag, pair,
budget, severity and key of an anomaly) instead of losing which row a figure belongs to.
Where a few columns decide (a budget's status, a team's cost), they come right after the
pinned ones, at widths that together fit the 900 px a table has beside the sidebar in a
1366 px window, so they are read without scrolling sideways."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from analytics.cost import BASE_FEE_SHARE, COST_LABELS, MINOR_UNITS, TOTAL_COST, USAGE_COST
from analytics.guardrails import COLUMN_HELP, LIMIT_COLUMNS
from analytics.languages import RESOURCE_LABELS
from analytics.usage import (
    METRIC_LABELS,
    METRICS,
    MINUTE_METRICS,
    MINUTES,
    PERCENT_DECIMALS,
    PERCENT_SIGN,
    SERVICE_CHARACTERS,
    SERVICE_LABELS,
    TABLE_ORDER,
    TAG_TABLE_ORDER,
    TEXT_CHARACTERS_LABEL,
    TOTAL_CHARACTERS,
    column_format,
    percent_text,
    unit_of,
)

# Column widths in px where they are set: enough for the header and the figures below it.
NAME_WIDTH, FIGURE_WIDTH, WORD_WIDTH = 220, 120, 80
BUDGET_FIGURE_WIDTH = 100  # a budget's figures narrower, so that its period fits beside them
PERIOD_WIDTH = 170  # a range of days, "2026-11-01 – 2026-11-30", whole in any font


def number(label: str, width: int | None = None) -> Any:
    return st.column_config.NumberColumn(label, format="localized", width=width)


def metric_number(label: str, metric: str, width: int | None = None) -> Any:
    """A column of one metric's figures with the digits every page, report and command shows
    (``metrics.column_format``: whole characters, minutes to the hundredth), never the
    browser's three decimals."""
    return st.column_config.NumberColumn(label, format=column_format(metric), width=width)


def key_name_columns() -> dict[str, Any]:
    """A key's label and masked form where a table lists keys, the label pinned."""
    return {
        "api_key_label": st.column_config.TextColumn("Key", pinned=True),
        "api_key": st.column_config.TextColumn("Masked key"),
    }


def _characters(total: str = METRIC_LABELS[TOTAL_CHARACTERS]) -> dict[str, Any]:
    """Character counts as whole numbers, `total` named so, each service under its short
    name."""
    labels = {TOTAL_CHARACTERS: total} | {
        metric: SERVICE_LABELS[metric] for metric in SERVICE_CHARACTERS
    }
    return {m: metric_number(label, m) for m, label in labels.items()}


def _usage() -> dict[str, Any]:
    """Every metric: characters as whole numbers, minutes to the hundredth."""
    minutes: dict[str, Any] = {
        metric: metric_number(f"{SERVICE_LABELS[metric]} minutes", metric)
        for metric in MINUTE_METRICS
    }
    return {**_characters(), **minutes}


def export_preview_columns(tags: bool) -> dict[str, Any]:
    """An export's first rows on the Export page: its metrics under the names the pages give
    them (a tag's total is its text characters), never a file's column name."""
    return _characters(TEXT_CHARACTERS_LABEL) if tags else _usage()


def chargeback_columns(currency: str) -> dict[str, Any]:
    """The Chargeback page's tables (the teams' rows, and the organization's Total row below
    them, column for column): who, then what it costs, then the usage it paid for."""
    return {
        "month": st.column_config.TextColumn("Month", pinned=True, width=WORD_WIDTH),
        "team": st.column_config.TextColumn("Team", pinned=True, width=NAME_WIDTH),
        "amount": money_column(f"{TOTAL_COST} ({currency})", currency, FIGURE_WIDTH),
        "usage_amount": money_column(f"{USAGE_COST} ({currency})", currency, FIGURE_WIDTH),
        "base_fee": money_column(f"{BASE_FEE_SHARE} ({currency})", currency, 150),
        **_usage(),
    }


CHARGEBACK_ORDER = ("month", "team", "amount", "usage_amount", "base_fee", *METRICS)


# A column of percentages (0–100) as ``metrics.percent_text`` writes them: one decimal and
# its ``PERCENT_SIGN``, never Streamlit's "percent" format, which writes "22.6%".
PERCENT_FORMAT = f"%.{PERCENT_DECIMALS}f{PERCENT_SIGN}%"


def _share(label: str, of: str | None = None) -> Any:
    """A share as a bar and its percentage (``PERCENT_FORMAT``), of a table shown through
    ``in_percent``. Headed `label`; where `of` says what the share is of, that is the heading's
    help, and the column keeps the width of a figure."""
    return st.column_config.ProgressColumn(
        label,
        help=of,
        width=None if of is None else FIGURE_WIDTH,
        format=PERCENT_FORMAT,
        min_value=0.0,
        max_value=100.0,
    )


def in_percent(table: pd.DataFrame) -> pd.DataFrame:
    """A table's ``share`` (a fraction of 1, as the tables hold it) in percent, as its column
    (``_share``) shows it; every table with a share goes through here before it is shown."""
    return table.assign(share=100 * table["share"]) if "share" in table else table


def key_table_columns(currency: str = "", by_team: bool = False) -> dict[str, Any]:
    """Per-key tables (Keys, Trends); per team with `by_team`, amounts in `currency` when
    given (a priced table: shares and trends are of the cost)."""
    values: dict[str, Any]
    if currency:
        values = {
            metric: money_column(f"{label} ({currency})", currency)
            for metric, label in COST_LABELS.items()
        }
    else:
        values = _usage()
    return {
        "api_key": st.column_config.TextColumn("Team" if by_team else "Key", pinned=True),
        "api_key_label": st.column_config.TextColumn("Label", pinned=True),
        "share": _share("Share of the cost" if currency else "Share"),
        "trend": st.column_config.LineChartColumn(
            "Cost over time" if currency else "Characters over time", y_min=0
        ),
        **values,
    }


def tag_table_order(priced: bool = False) -> tuple[str, ...]:
    """The columns of the tag table in order; priced, its team after the tag and its cost
    after the share."""
    if not priced:
        return TAG_TABLE_ORDER
    tag, share, *rest = TAG_TABLE_ORDER
    return (tag, "team", share, "cost", *rest)


def key_table_order(by_team: bool = False) -> tuple[str, ...]:
    """The columns of a per-key table in order; a team has no label."""
    return tuple(c for c in TABLE_ORDER if not (by_team and c == "api_key_label"))


def tag_table_columns(currency: str = "") -> dict[str, Any]:
    """Per-tag tables and one tag's days (Tags): shares are of the text characters; with a
    `currency`, each tag's cost at list prices and its team."""
    money = (
        {"cost": money_column(f"Cost at list prices ({currency})", currency)} if currency else {}
    )
    return {
        "custom_tag": st.column_config.TextColumn("Tag", pinned=True),
        "team": st.column_config.TextColumn("Team"),
        **money,
        "usage_date": st.column_config.DateColumn(
            "Day (UTC)", format="YYYY-MM-DD", pinned=True, width=WORD_WIDTH + 10
        ),
        "share": _share("Share", of="The tag's share of the text characters"),
        "trend": st.column_config.LineChartColumn("Characters over time", y_min=0),
        **_characters(TEXT_CHARACTERS_LABEL),
    }


def money_column(label: str, currency: str, width: int | None = None) -> Any:
    """Amounts to the currency's minor unit."""
    return st.column_config.NumberColumn(label, format=f"%,.{MINOR_UNITS[currency]}f", width=width)


def pair_table_columns(share: str) -> dict[str, Any]:
    """Per-pair tables and one pair's keys (Language pairs); `share` names what the share is
    of."""
    return {
        "pair": st.column_config.TextColumn("Pair", pinned=True),
        "key": st.column_config.TextColumn("Key", pinned=True),
        "source_language": st.column_config.TextColumn("Source"),
        "target_language": st.column_config.TextColumn("Target"),
        "share": _share(share),
        **_usage(),
    }


def budget_columns() -> dict[str, Any]:
    """Budget status (budgets and the keys' own limits): each row counts in its unit
    (characters, minutes or the currency); its status and shares first (`BUDGET_ORDER`)."""
    return {
        "budget": st.column_config.TextColumn("Budget", pinned=True, width=NAME_WIDTH),
        "status": st.column_config.TextColumn("Status", width=WORD_WIDTH),
        "used %": st.column_config.ProgressColumn(
            "Used %", format=PERCENT_FORMAT, max_value=100, width=FIGURE_WIDTH
        ),
        "projected %": st.column_config.NumberColumn(
            "Projected %", format=PERCENT_FORMAT, width=100
        ),
        "used": number("Used", BUDGET_FIGURE_WIDTH),
        "projected": number("Projected", BUDGET_FIGURE_WIDTH),
        "limit": number("Limit", FIGURE_WIDTH),
        "unit": st.column_config.TextColumn("Unit", width=WORD_WIDTH),
        "period": st.column_config.TextColumn("Period", width=PERIOD_WIDTH),
        "reached": st.column_config.TextColumn("Limit reached"),
        "note": st.column_config.TextColumn("Note"),
    }


# What a budget covers (its period) is read with its shares, in view in a 1366 px window.
BUDGET_ORDER = (
    "budget", "status", "used %", "projected %", "used", "projected", "period", "limit", "unit",
    "reached", "note",
)  # fmt: skip


def anomaly_columns() -> dict[str, Any]:
    """The anomaly table (Anomalies): who, what and when first, then the figures."""
    return {
        "severity": st.column_config.TextColumn("Severity", pinned=True),
        "status": st.column_config.TextColumn("Status"),
        "kind": st.column_config.TextColumn("Kind"),
        **key_name_columns(),
        "metric": st.column_config.TextColumn("Metric"),
        "first": st.column_config.DateColumn("From", format="YYYY-MM-DD"),
        "last": st.column_config.DateColumn("To", format="YYYY-MM-DD"),
        "observed": number("Observed"),
        "expected": number("Usual"),
        "bound": number("Bound"),
        "sentence": st.column_config.TextColumn("What happened", width="large"),
    }


def outlook_columns(metric: str) -> dict[str, Any]:
    """A metric's forecasts of the Capacity page, in half its width (the past forecasts'
    chart beside): each period, its use and projection in view, then the intervals; each
    figure names its unit."""
    unit = unit_of(metric)
    return {
        "period": st.column_config.TextColumn("Period", pinned=True, width=150),
        "used": metric_number(f"Used ({unit})", metric, FIGURE_WIDTH),
        "projected": metric_number(f"Projected ({unit})", metric, FIGURE_WIDTH + 20),
        "plain_projected": metric_number(f"Without what-ifs ({unit})", metric),
        "range_80": st.column_config.TextColumn(f"80 % interval ({unit})"),
        "range_95": st.column_config.TextColumn(f"95 % interval ({unit})"),
        "model": st.column_config.TextColumn("Model"),
    }


def option_columns(currency: str) -> dict[str, Any]:
    """The capacity decision's options: each option, what it commits to, its expected cost and
    its chance of overage, all in view."""
    return {
        "option": st.column_config.TextColumn("Option", pinned=True, width=NAME_WIDTH),
        "committed_characters": metric_number(
            "Characters a month", TOTAL_CHARACTERS, FIGURE_WIDTH + 20
        ),
        "committed_minutes": metric_number("Speech-to-text minutes a month", MINUTES, 200),
        "expected_cost": money_column(f"Expected cost ({currency})", currency, 150),
        "overage_chance": st.column_config.NumberColumn(
            "Chance of overage", format=PERCENT_FORMAT, width=FIGURE_WIDTH + 20
        ),
        "recommended": st.column_config.CheckboxColumn("Recommended"),
        "current": st.column_config.CheckboxColumn("Today's plan"),
    }


CHANGE_PERCENTS = ("change %", "yoy %")


def change_columns() -> dict[str, Any]:
    """Comparison tables (``with_changes_shown``): this range against the previous one and
    last year."""
    return {
        "current": number("This period"),
        "previous": number("Previous period"),
        "change": number("Change"),
        "change %": st.column_config.TextColumn("Change %"),
        "last_year": number("Same period last year"),
        "yoy change": number("Change on last year"),
        "yoy %": st.column_config.TextColumn("Year on year %"),
    }


def with_changes_shown(frame: pd.DataFrame) -> pd.DataFrame:
    """A comparison table's percentages as the report writes them (signed, N/A where there
    was nothing to compare against), never a blank or "None"."""
    shown = {c: frame[c].map(percent_text) for c in CHANGE_PERCENTS if c in frame}
    return frame.assign(**shown)


# Every column of the Languages page's tables, by name: flags are check boxes, the rest text.
LANGUAGE_FLAGS = {
    "source": "Source",
    "target": "Target",
    "available": "Available",
    "v2_supports_formality": "v2 supports_formality",
    "v3_formality_feature": "v3 formality feature",
    "casing_differs": "Casing differs",
    "formality_agrees": "Formality agrees",
}
LANGUAGE_HEADINGS = {
    "lang": "Code",
    "language": "Code",
    "name": "Language",
    "status": "Status",
    "features": "Features",
    "feature": "Feature",
    "needs": "Needed on",
    "why_not": "Why not",
    "source_lang": "Source",
    "source_name": "Source language",
    "target_lang": "Target",
    "target_name": "Target language",
    "v2_code": "v2 code",
    "v3_code": "v3 code",
    "v2_roles": "v2 role",
    "v3_roles": "v3 role",
    "text": "Text",
    "usable_as_source_in": "Usable as source in",
    **RESOURCE_LABELS,
}


def language_columns(frame: pd.DataFrame) -> dict[str, Any]:
    """The headings of a language table's columns; a column not named here (a feature of the
    feature matrix) keeps its own name."""
    checkbox = st.column_config.CheckboxColumn
    return {
        column: checkbox(LANGUAGE_FLAGS[column])
        if column in LANGUAGE_FLAGS
        else LANGUAGE_HEADINGS[column]
        for column in map(str, frame.columns)
        if column in LANGUAGE_FLAGS or column in LANGUAGE_HEADINGS
    }


def key_limit_columns() -> dict[str, Any]:
    """The Keys & limits table: each key named and pinned, its life, then this usage period's
    use against its limits."""
    day = "YYYY-MM-DD"
    return {
        "label": st.column_config.TextColumn("Key", pinned=True),
        "state": st.column_config.TextColumn("State"),
        "characters": st.column_config.NumberColumn("Characters", format="%,d"),
        "character limit": st.column_config.TextColumn("Character limit", alignment="right"),
        "character limit reached": st.column_config.TextColumn("Character limit reached"),
        "speech minutes": st.column_config.NumberColumn("Speech minutes", format="%,.2f"),
        "speech minute limit": st.column_config.TextColumn("Speech limit", alignment="right"),
        "speech limit reached": st.column_config.TextColumn("Speech limit reached"),
        "last used": st.column_config.DateColumn("Last used", format=day),
        "created": st.column_config.DateColumn("Created", format=day),
        "deactivated": st.column_config.DateColumn("Deactivated", format=day),
        "api_key": st.column_config.TextColumn("Masked key"),
        "joined by": st.column_config.TextColumn("Usage joined by"),
        **owner_columns(),
    }


def owner_columns() -> dict[str, Any]:
    """Each key's owner and purpose (the teams settings' ``[[key]]`` entries,
    `keys.limits.with_owners`), the last columns of the Keys and the Keys & limits tables."""
    return {
        "owner": st.column_config.TextColumn("Owner", help="Who to ask about the key."),
        "purpose": st.column_config.TextColumn("Purpose", help="What the key is for."),
    }


def rotation_columns() -> dict[str, Any]:
    """A rotation's days: both keys side by side, characters and speech-to-text minutes
    apart (never added)."""
    return {
        "day": st.column_config.DateColumn("Day (UTC)", format="YYYY-MM-DD", pinned=True),
        "old characters": st.column_config.NumberColumn("Old key: characters", format="%,d"),
        "old minutes": st.column_config.NumberColumn(
            "Old key: speech-to-text minutes", format="%,.2f"
        ),
        "new characters": st.column_config.NumberColumn("New key: characters", format="%,d"),
        "new minutes": st.column_config.NumberColumn(
            "New key: speech-to-text minutes", format="%,.2f"
        ),
    }


def audit_columns() -> dict[str, Any]:
    """The key audit log: when and who first, the time pinned."""
    return {
        "time": st.column_config.TextColumn("Time (UTC)", pinned=True),
        "who": st.column_config.TextColumn("Who"),
        "action": st.column_config.TextColumn("Action"),
        "label": st.column_config.TextColumn("Key"),
        "outcome": st.column_config.TextColumn("Outcome"),
        "before": st.column_config.TextColumn("Before"),
        "after": st.column_config.TextColumn("After"),
        "message": st.column_config.TextColumn("Message"),
        "masked key": st.column_config.TextColumn("Masked key"),
        "trace_id": st.column_config.TextColumn("Trace id"),
    }


def guardrail_columns(table: pd.DataFrame) -> dict[str, Any]:
    """A guardrails table's columns named as sentences name them, each with what it means
    (``guardrails.plan_tables.COLUMN_HELP``) as its header's help; counts with separators, limits
    as text right-aligned ("no limit" where there is none), the label pinned."""
    counts = set(table.select_dtypes("number").columns)

    def column(name: str) -> Any:
        label, help_text = name.replace("_", " ").capitalize(), COLUMN_HELP.get(name)
        if name in counts:
            return st.column_config.NumberColumn(label, format="localized", help=help_text)
        pinned = name in ("key", "budget")
        if name in LIMIT_COLUMNS:
            return st.column_config.TextColumn(label, help=help_text, alignment="right")
        return st.column_config.TextColumn(label, help=help_text, pinned=pinned)

    return {str(name): column(str(name)) for name in table.columns}


# The columns people act on, by heading: the row's name, its status and its main figures. In
# a 1366 × 768 window each table shows every one of these it has without scrolling sideways
# (tests/dashboard/test_browser.py measures the drawn grids). A heading is decisive as written
# here or followed by its unit in brackets ("Total cost (EUR)", "Used (characters)").
DECISIVE_HEADINGS = frozenset(
    {
        "Key", "Label", "Team", "Tag", "Pair", "Budget", "Month", "Day (UTC)", "Period", "Option",
        "Severity", "Status", "State", "Share", "Used %", "Projected %", "Used", "Projected",
        "Total characters", "Text characters", "Characters", "Character limit", "Total cost",
        "Usage cost", "Expected cost", "Chance of overage", "This period", "Change %",
    }
)  # fmt: skip


def is_decisive(heading: str) -> bool:
    """Whether a table's column `heading` is one people act on (`DECISIVE_HEADINGS`)."""
    return heading.split(" (", 1)[0] in DECISIVE_HEADINGS or heading in DECISIVE_HEADINGS
