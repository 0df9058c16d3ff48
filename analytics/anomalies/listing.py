"""Anomalies as the page and the command line show them: a table with each one's status, the
new ones, and one anomaly's days against its baseline for a chart."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Final

import pandas as pd

from analytics.anomalies.marks import ID_FORM, Mark, status
from analytics.anomalies.model import (
    KIND_TITLES,
    ORGANIZATION,
    ORGANIZATION_LABEL,
    Anomaly,
    day_text,
    units,
)
from analytics.anomalies.usual import baseline
from analytics.usage import METRIC_LABELS, is_minutes, key_display

TABLE_COLUMNS: Final = [
    "severity", "status", "kind", "api_key_label", "api_key", "metric", "first", "last",
    "observed", "expected", "bound", "sentence", "id",
]  # fmt: skip
# How much of a key's days around an anomaly its chart shows.
DAYS_BEFORE: Final = 28
DAYS_AFTER: Final = 14


def anomaly_name(anomaly: Anomaly) -> str:
    """An anomaly in words wherever a person reads one, on the page, in an alert and in the
    commands' tables: its kind, key, metric and days ("New key · Email assistant
    (3909****a:fx) · characters · from Sun 2026-11-08 to Fri 2026-11-13"). Links, marks and
    scripts name it by its id (`Anomaly.id`) instead, which no rename of the key changes."""
    who = (
        anomaly.label
        if anomaly.api_key == ORGANIZATION
        else key_display(anomaly.api_key, anomaly.label)
    )
    days = (
        f"on {day_text(anomaly.first)}"
        if anomaly.first == anomaly.last
        else f"from {day_text(anomaly.first)} to {day_text(anomaly.last)}"
    )
    return f"{KIND_TITLES[anomaly.kind]} · {who} · {units(anomaly.metric)} · {days}"


def named_series(text: str) -> str | None:
    """The series an anomaly's id or name in words (`anomaly_name`, as an older link names it)
    is of: its masked key, or ``ORGANIZATION``; None when the text is neither. What an address
    naming an anomaly is checked by, found or not."""
    if (found := ID_FORM.fullmatch(text.strip())) is not None:
        return found["key"]
    parts = text.split(" · ")  # kind · who · units · days; a label may hold the separator
    if len(parts) < 4 or parts[0] not in KIND_TITLES.values():
        return None
    who = " · ".join(parts[1:-2])
    if who == ORGANIZATION_LABEL:
        return ORGANIZATION
    # "label (masked key)", or the bare masked key of a key without a label (`key_display`)
    return who.rsplit(" (", 1)[-1].removesuffix(")") if who.endswith(")") else who


def anomaly_table(anomalies: Sequence[Anomaly], marks: Mapping[str, Mark]) -> pd.DataFrame:
    """One row per anomaly, in the order given, with its status (new, expected, acknowledged);
    kinds and metrics by their titles, days as dates, figures rounded as their unit is shown
    (whole characters, minutes to the hundredth)."""
    return pd.DataFrame(
        [
            {
                "severity": a.severity,
                "status": status(a.id, marks),
                "kind": KIND_TITLES[a.kind],
                "api_key_label": a.label,
                "api_key": a.api_key,
                "metric": METRIC_LABELS[a.metric],
                "first": a.first,
                "last": a.last,
                **{
                    name: round(value, 2) if is_minutes(a.metric) else round(value)
                    for name, value in (
                        ("observed", a.observed),
                        ("expected", a.expected),
                        ("bound", a.bound),
                    )
                },
                "sentence": a.sentence,
                "id": a.id,
            }
            for a in anomalies
        ],
        columns=TABLE_COLUMNS,
    )


def shown_anomalies(table: pd.DataFrame, show: str, looked_at: str | None) -> pd.DataFrame:
    """The rows a filter shows (`all`, or only the `new` ones), and the anomaly being looked
    at whatever its status: marking it must not hide it and move the selection to another
    anomaly under the same buttons."""
    if show == "all":
        return table
    return table[(table["status"] == "new") | (table["id"] == looked_at)]


def anomaly_counts(table: pd.DataFrame) -> dict[str, int]:
    """The page's tiles: anomalies by status, and the high-severity ones, of `anomaly_table`."""
    statuses = table["status"]
    return {
        "New": int(statuses.eq("new").sum()),
        "Expected": int(statuses.eq("expected").sum()),
        "Acknowledged": int(statuses.eq("acknowledged").sum()),
        "High severity": int(table["severity"].eq("high").sum()),
    }


def new_anomalies(anomalies: Sequence[Anomaly], marks: Mapping[str, Mark]) -> list[Anomaly]:
    """Those nobody has marked expected or acknowledged."""
    return [a for a in anomalies if status(a.id, marks) == "new"]


def anomaly_window(
    key_day: pd.DataFrame, covered_from: date, end: date, anomaly: Anomaly
) -> pd.DataFrame:
    """The anomaly's key and metric from DAYS_BEFORE its first day to DAYS_AFTER its last
    (within covered_from–end), with each day's usual level and spike bound (`baseline`) and
    whether it belongs to the anomaly (``anomalous``)."""
    days = baseline(key_day, covered_from, end, anomaly.api_key, anomaly.metric)
    first = max(covered_from, anomaly.first - timedelta(days=DAYS_BEFORE))
    last = min(end, anomaly.last + timedelta(days=DAYS_AFTER))
    day = days["usage_date"].dt.date
    window: pd.DataFrame = days.loc[(day >= first) & (day <= last)].reset_index(drop=True)
    window["anomalous"] = window["usage_date"].dt.date.between(anomaly.first, anomaly.last)
    return window
