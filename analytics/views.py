"""Pure data shaping for the dashboard pages: KPIs, top-N + Other, resampling, key tables.

Every function takes a key-day frame (see docs/architecture.md) and returns a small table, so
pages only lay things out and the heavy lifting is unit-tested without Streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from enum import Enum
from typing import Literal

import pandas as pd

from analytics.frames import METRICS
from analytics.periods import PRESETS as NAMED_PRESETS
from analytics.periods import shift_years

Granularity = Literal["day", "week", "month"]

MINUTES = "speech_to_text_minutes"
TOTAL_CHARACTERS = "total_characters"
SERVICE_CHARACTERS = (
    "text_translation_characters",
    "document_translation_characters",
    "text_improvement_characters",
)
METRIC_LABELS = {
    TOTAL_CHARACTERS: "Total characters",
    "text_translation_characters": "Text translation characters",
    "document_translation_characters": "Document translation characters",
    "text_improvement_characters": "Text improvement characters",
    MINUTES: "Speech-to-text minutes",
}
SERVICE_LABELS = {
    "text_translation_characters": "Text translation",
    "document_translation_characters": "Documents",
    "text_improvement_characters": "Text improvement",
    MINUTES: "Speech-to-text",
}
OTHER = "Other"
# Per-key tables: who, how big a share, the trend, then every metric.
TABLE_ORDER = ("api_key", "api_key_label", "share", "trend", *METRICS)
# Resample automatically so a chart never carries more than a few hundred points per series.
DAILY_UP_TO_DAYS = 120
WEEKLY_UP_TO_DAYS = 730
DAILY_LIMIT_DAYS = 366
SPARKLINE_POINTS = 60
ALL_HISTORY_YEARS = 5


def is_minutes(metric: str) -> bool:
    """Minutes are a duration: they are charted and summed apart from characters."""
    return metric == MINUTES


def format_value(value: float | None, metric: str) -> str:
    """Thousands separators; minutes with two decimals."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "N/A"
    return f"{value:,.2f}" if is_minutes(metric) else f"{round(value):,}"


def format_change(change: float | None) -> str | None:
    """A relative change as `+12.3%`; None when there is nothing to compare against."""
    return None if change is None else f"{change:+.1%}"


def key_display(api_key: str, label: str) -> str:
    """How a key is named on pages: its label, with the masked id to tell equal labels apart."""
    return f"{label} ({api_key})" if label else api_key


# --- date ranges -------------------------------------------------------------------------------


def data_through(today: date) -> date:
    """The last complete UTC day: the service reports whole days, today is still open."""
    return today - timedelta(days=1)


def all_history_range(today: date, demo_days: int | None) -> tuple[date, date]:
    """The demo organization's whole span, or the last five years of a real organization."""
    end = data_through(today)
    if demo_days is not None:
        return end - timedelta(days=demo_days - 1), end
    return shift_years(end, -ALL_HISTORY_YEARS) + timedelta(days=1), end


def auto_granularity(start: date, end: date) -> Granularity:
    """Days for short ranges, weeks up to two years, months beyond."""
    days = (end - start).days + 1
    if days <= DAILY_UP_TO_DAYS:
        return "day"
    return "week" if days <= WEEKLY_UP_TO_DAYS else "month"


def allowed_granularities(start: date, end: date) -> list[Granularity]:
    """Daily points only up to a year, so a chart never carries thousands of bars per series."""
    days = (end - start).days + 1
    return ["day", "week", "month"] if days <= DAILY_LIMIT_DAYS else ["week", "month"]


def period_start(dates: pd.Series | pd.DatetimeIndex, granularity: Granularity) -> pd.Series:
    """The first day of each date's period (weeks start on Monday)."""
    values = pd.Series(pd.DatetimeIndex(dates)).dt.normalize()
    if granularity == "week":
        return values - pd.to_timedelta(values.dt.day_of_week, unit="D")
    if granularity == "month":
        return values.dt.to_period("M").dt.start_time
    return values


def period_bounds(first_day: date, granularity: Granularity) -> tuple[date, date]:
    """Inclusive first and last day of the period that begins on `first_day`."""
    if granularity == "week":
        return first_day, first_day + timedelta(days=6)
    if granularity == "month":
        month = pd.Timestamp(first_day).to_period("M")
        return month.start_time.date(), month.end_time.date()
    return first_day, first_day


def range_text(start: date, end: date) -> str:
    """An inclusive range of UTC days as every page writes it, so the format lives once."""
    return f"{start:%Y-%m-%d} – {end:%Y-%m-%d}"


def period_label(first_day: date, granularity: Granularity) -> str:
    if granularity == "week":
        return f"Week of {first_day:%Y-%m-%d}"
    if granularity == "month":
        return f"{first_day:%B %Y}"
    return f"{first_day:%Y-%m-%d} ({first_day:%a})"


# --- totals and KPIs ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Kpi:
    metric: str
    label: str
    value: float
    previous: float | None
    change: float | None  # relative change; None when the previous period has no usage

    @property
    def value_text(self) -> str:
        return format_value(self.value, self.metric)

    @property
    def change_text(self) -> str:
        return format_change(self.change) or "N/A"


def metric_totals(key_day: pd.DataFrame) -> dict[str, float]:
    """The five metrics summed over a frame (0 for an empty frame)."""
    sums = key_day[list(METRICS)].sum()
    return {m: float(sums[m]) for m in METRICS}


def kpis(current: Mapping[str, float], previous: Mapping[str, float] | None) -> list[Kpi]:
    """One tile per metric with its change against the previous period of equal length.

    The change is N/A when the previous period is empty or the metric was zero then: a
    percentage of nothing tells an admin nothing. A previous period without any usage (none,
    or all zeros) counts as no previous period at all.
    """
    if previous is not None and not any(previous.values()):
        previous = None
    tiles = []
    for metric in METRICS:
        before = None if previous is None else previous.get(metric)
        change = None if not before else (current[metric] - before) / before
        tiles.append(Kpi(metric, METRIC_LABELS[metric], current[metric], before, change))
    return tiles


# --- series over time --------------------------------------------------------------------------


def _calendar(start: date, end: date, granularity: Granularity) -> pd.DatetimeIndex:
    days = pd.date_range(start, end, freq="D")
    return pd.DatetimeIndex(period_start(days, granularity).drop_duplicates(), name="period")


def usage_over_time(
    key_day: pd.DataFrame,
    start: date,
    end: date,
    granularity: Granularity,
    metrics: Iterable[str] = METRICS,
) -> pd.DataFrame:
    """Metric sums per period over the whole range; periods without usage are zero, not gaps."""
    metrics = list(metrics)
    periods = period_start(key_day["usage_date"], granularity).to_numpy()
    summed = key_day[metrics].groupby(periods).sum()
    return summed.reindex(_calendar(start, end, granularity), fill_value=0)


def top_keys(key_day: pd.DataFrame, metric: str, n: int) -> list[str]:
    """The masked ids of the `n` keys with the most usage of `metric` (ties by id)."""
    sums = key_day.groupby("api_key", observed=True)[metric].sum()
    sums = sums[sums > 0].sort_index()
    return list(sums.sort_values(ascending=False, kind="stable").index[:n])


def key_names(key_day: pd.DataFrame, labels_only: bool = False) -> dict[str, str]:
    """Masked id -> display name (or bare label), from each key's latest label in the frame
    (a key-day frame or a one-row-per-key table, whose order it keeps)."""
    latest = key_day.drop_duplicates("api_key", keep="last")
    return {
        str(k): str(label) if labels_only else key_display(str(k), str(label))
        for k, label in zip(latest["api_key"], latest["api_key_label"], strict=True)
    }


def top_n_over_time(
    key_day: pd.DataFrame,
    metric: str,
    n: int,
    start: date,
    end: date,
    granularity: Granularity,
) -> pd.DataFrame:
    """Wide table: one column per top-N key (display name) plus `Other`, one row per period.

    `Other` holds every remaining key, so each row sums to the organization's total; it is
    omitted when no key falls outside the top N.
    """
    leaders = top_keys(key_day, metric, n)
    names = key_names(key_day)
    periods = period_start(key_day["usage_date"], granularity).to_numpy()
    # Sum per key and period first (small), then fold the tail into Other.
    per_key = key_day.groupby([periods, key_day["api_key"]], observed=True)[metric].sum()
    keys = per_key.index.get_level_values(1).astype(str)
    bucket = keys.where(keys.isin(leaders), OTHER)
    wide = per_key.groupby([per_key.index.get_level_values(0), bucket]).sum().unstack(fill_value=0)
    wide = wide.rename(columns=names)
    columns = [names[k] for k in leaders]
    if OTHER in wide.columns and (wide[OTHER] != 0).any():
        columns.append(OTHER)
    wide = wide.reindex(columns=columns, fill_value=0)
    wide = wide.reindex(_calendar(start, end, granularity), fill_value=0)
    wide.columns.name = "key"
    return wide


def top_n_totals(key_day: pd.DataFrame, metric: str, n: int) -> pd.Series:
    """Range totals of the top-N keys and `Other`, largest first (`Other` last)."""
    leaders = top_keys(key_day, metric, n)
    names = key_names(key_day)
    sums = key_day.groupby("api_key", observed=True)[metric].sum()
    sums.index = sums.index.astype(str)
    totals = pd.Series({names[k]: sums[k] for k in leaders}, dtype="float64")
    rest = sums.drop(leaders).sum()
    if rest:
        totals[OTHER] = rest
    totals.name = metric
    return totals


def restrict_keys(key_day: pd.DataFrame, api_keys: Iterable[str]) -> pd.DataFrame:
    """Only the chosen keys' rows; all rows when none are chosen."""
    chosen = list(api_keys)
    if not chosen:
        return key_day
    return key_day[key_day["api_key"].isin(chosen)]


def rolling_mean(wide: pd.DataFrame, days: int = 7) -> pd.DataFrame:
    """Trailing mean over `days` rows (shorter at the start of the range)."""
    return wide.rolling(days, min_periods=1).mean()


def cumulative(wide: pd.DataFrame) -> pd.DataFrame:
    return wide.cumsum()


# --- per-key tables ----------------------------------------------------------------------------


def key_table(key_day: pd.DataFrame, start: date, end: date) -> pd.DataFrame:
    """One row per key: label, every metric, share of total characters and a sparkline.

    The sparkline holds total characters per period, resampled so it has at most about
    sixty points whatever the range.
    """
    columns = ["api_key", "api_key_label", *METRICS, "share", "trend"]
    if key_day.empty:
        return pd.DataFrame(columns=columns)
    keys = key_day["api_key"]
    sums = key_day[list(METRICS)].groupby(keys, observed=True).sum()
    sums.index = sums.index.astype(str)
    sums["api_key_label"] = pd.Series(key_names(key_day, labels_only=True))
    total = sums[TOTAL_CHARACTERS].sum()
    sums["share"] = sums[TOTAL_CHARACTERS] / total if total else 0.0
    granularity = sparkline_granularity(start, end)
    periods = period_start(key_day["usage_date"], granularity).to_numpy()
    spark = key_day.groupby([keys, periods], observed=True)[TOTAL_CHARACTERS].sum()
    spark = spark.unstack(fill_value=0)
    spark.index = spark.index.astype(str)
    spark = spark.reindex(columns=_calendar(start, end, granularity), fill_value=0)
    sums["trend"] = pd.Series(spark.to_numpy().tolist(), index=spark.index)
    table = sums.rename_axis("api_key").reset_index()
    table = table.sort_values([TOTAL_CHARACTERS, "api_key"], ascending=[False, True])
    return table[columns].reset_index(drop=True)


def sparkline_granularity(start: date, end: date) -> Granularity:
    days = (end - start).days + 1
    if days <= SPARKLINE_POINTS:
        return "day"
    return "week" if days <= SPARKLINE_POINTS * 7 else "month"


def search_keys(table: pd.DataFrame, text: str) -> pd.DataFrame:
    """Rows whose label or masked id contains `text` (case-insensitive, plain text)."""
    needle = text.strip().lower()
    if not needle:
        return table
    haystack = table["api_key_label"].astype(str).str.lower() + " " + table["api_key"].str.lower()
    return table[haystack.str.contains(needle, regex=False)]


def period_breakdown(
    key_day: pd.DataFrame, first_day: date, granularity: Granularity, metric: str
) -> pd.DataFrame:
    """Per-key usage within one period, largest `metric` first; keys without usage left out."""
    first, last = period_bounds(first_day, granularity)
    dates = key_day["usage_date"]
    rows = key_day[(dates >= pd.Timestamp(first)) & (dates <= pd.Timestamp(last))]
    table = key_table(rows, first, last).drop(columns=["trend"])
    table = table[table[list(METRICS)].sum(axis=1) > 0]
    return table.sort_values([metric, "api_key"], ascending=[False, True]).reset_index(drop=True)


# --- sign-in gate ------------------------------------------------------------------------------


class Access(Enum):
    OPEN = "open"  # no sign-in configured
    SIGN_IN = "sign_in"  # configured, not logged in
    DENIED = "denied"  # logged in, e-mail not on the allow-list
    ALLOWED = "allowed"


def access_decision(
    auth_configured: bool, is_logged_in: bool, email: str | None, allow_list: Iterable[str]
) -> Access:
    """Who may see the dashboard when sign-in is configured.

    Fails closed: an empty allow-list admits nobody, and e-mails compare case-insensitively.
    """
    if not auth_configured:
        return Access.OPEN
    if not is_logged_in:
        return Access.SIGN_IN
    allowed = {entry.strip().lower() for entry in allow_list if entry.strip()}
    if email and email.strip().lower() in allowed:
        return Access.ALLOWED
    return Access.DENIED


# --- export commands ---------------------------------------------------------------------------

CRON_SCHEDULE = "15 6 * * *"  # daily at 06:15 (with CRON_TZ=UTC), after the UTC day has closed


def export_file_name(group_by: str, start: date, end: date, fmt: str) -> str:
    return f"usage_{group_by}_{start:%Y-%m-%d}_{end:%Y-%m-%d}.{fmt}"


def export_command(group_by: str, start: date, end: date, fmt: str, demo: bool) -> str:
    """The CLI call that writes the same file as the page's download button."""
    output = export_file_name(group_by, start, end, fmt)
    demo_flag = " --demo" if demo else ""
    return (
        f"python -m analytics export --start {start:%Y-%m-%d} --end {end:%Y-%m-%d} "
        f"--group-by {group_by} --output {output}{demo_flag}"
    )


def export_crontab(group_by: str, start: date, end: date, fmt: str, preset: str, demo: bool) -> str:
    """A crontab line producing the file on a schedule.

    A named preset is passed as `--period`, so each run covers the range as of that day and
    the file is named after it; any other range is exported as the same fixed days.
    """
    demo_flag = " --demo" if demo else ""
    if preset in NAMED_PRESETS:
        output = f"usage_{group_by}_{preset}_$(date -u +\\%Y-\\%m-\\%d).{fmt}"
        command = (
            f"python -m analytics export --period {preset} --group-by {group_by} "
            f"--output {output}{demo_flag}"
        )
    else:
        command = export_command(group_by, start, end, fmt, demo)
    environment = "" if demo else "set -a && . /etc/usage-dashboard.env && set +a && "
    return f"{CRON_SCHEDULE} cd /opt/usage-dashboard && {environment}.venv/bin/{command}"
