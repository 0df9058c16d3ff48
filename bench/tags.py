"""Custom tags: the benchmark organization's five years of the tag-day frame, and an
organization that tags per customer or per document: the benchmark's organization with 10,000
distinct custom tags (`EmulatorConfig.tags`, a long tail over the same usage), its tag-day
fetch and its Tags page."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from typing import Any

from analytics.usage.pipeline import fetch_tags
from bench import synthetic_orgs
from bench.fetches import against_key_days, tags_within_text
from bench.result_lines import MAX_FIGURE_BYTES, Result, result
from bench.timing import medians, rounded

MANY_TAGS = 10_000
FEW_TAGS = 100  # the same organization's usage under a hundred tags
YEAR = 365  # one window of the analytics operations


def tag_fetch(scale: synthetic_orgs.Scale) -> list[Result]:
    """Five years of the tag-day frame (every page of six windows) against five years of the
    key-day frame; the tags of each day must fit in that day's text characters."""
    tags, usage, times, _ = against_key_days(scale, fetch_tags, "tag_day")
    return [
        result(
            "tag_fetch",
            times["tag_day"] / times["key_day"],
            1.5,
            {"tags_within_text": tags_within_text(tags.frame, usage.frame)},
            seconds=rounded(times),
            rows=len(tags.frame),
            key_day_rows=len(usage.frame),
            windows=tags.windows_fetched,
        )
    ]


def tag_fetch_10k(scale: synthetic_orgs.Scale) -> list[Result]:
    """One year of the tag-day frame (every page of one window) against the key-day frame of
    the same year, both fetched and merged from an organization of the benchmark's keys with a
    year of history and 10,000 tags, so that the year holds every one of them. Each day's tags
    must fit in its text characters, and the frame must name all 10,000."""
    app = synthetic_orgs.app(scale.keys, YEAR, MANY_TAGS)
    tags, usage, times, _ = against_key_days(scale, fetch_tags, "tag_day", app=app, days=YEAR)
    distinct = int(tags.frame["custom_tag"].nunique())
    return [
        result(
            "tag_fetch_10k",
            times["tag_day"] / times["key_day"],
            2.0,
            {
                "tags_within_text": tags_within_text(tags.frame, usage.frame),
                "every_tag": distinct == MANY_TAGS,
            },
            seconds=rounded(times),
            rows=len(tags.frame),
            tags=distinct,
            key_day_rows=len(usage.frame),
            windows=tags.windows_fetched,
        )
    ]


def tags_scale(scale: synthetic_orgs.Scale) -> list[Result]:
    """The Tags page over the five years, warm (a rerun of an open page: every table cached),
    at 10,000 tags against 100 tags over the same usage. The page must render, its tag table
    hold every tag, its chart only the top N, Other and Untagged, and every figure stay under
    1 MB."""
    # Streamlit's test harness first, as the line has always been measured: imported later
    # (after the dashboard's modules, in the demo's environment) the 100-tag page's reruns
    # timed twice as slow, and the ratio fell from about 1.3 to under 1.
    from streamlit.testing.v1 import AppTest

    from analytics.pages import page_at

    page = str(page_at("tags").file)
    counts = {"many": MANY_TAGS, "few": FEW_TAGS}
    with tempfile.TemporaryDirectory() as folder, synthetic_orgs.demo_environment(folder):
        sessions = {name: _opened(AppTest, scale.keys, tags, page) for name, tags in counts.items()}
        times = medians(
            {name: _rerun(sessions[name], scale.keys, counts[name]) for name in counts},
            2 * scale.repeat,
            warmup=scale.warmup,
        )
    for name, at in sessions.items():
        if at.exception:
            raise RuntimeError(f"tags ({name}) failed: {at.exception[0].message}")
    shown = {name: _shown(at) for name, at in sessions.items()}
    largest = max(size for page_shown in shown.values() for size in page_shown["figure_bytes"])
    return [
        result(
            "tags_scale",
            times["many"] / times["few"],
            2.0,
            {
                "every_tag_in_table": all(
                    shown[name]["table_rows"] == counts[name] for name in counts
                ),
                "top_n_series_only": all(
                    page_shown["series"] <= page_shown["top"] + 2 for page_shown in shown.values()
                ),
                "figures_under_1mb": largest <= MAX_FIGURE_BYTES,
            },
            seconds=rounded(times),
            keys=scale.keys,
            tags=counts,
            table_rows={name: page_shown["table_rows"] for name, page_shown in shown.items()},
            largest_figure_bytes=largest,
        )
    ]


def _demo(keys: int, tags: int) -> None:
    """Point the demo at the organization of `keys` keys and `tags` tags: the two sessions
    share one process, so each run sets it before it reads the demo."""
    os.environ["SERVICE_DEMO_KEYS"] = str(keys)
    os.environ["SERVICE_DEMO_TAGS"] = str(tags)


def _opened(app_test: Any, keys: int, tags: int, page: str) -> Any:
    """A session of the dashboard (`app_test`: Streamlit's AppTest) over All history, switched
    to the Tags `page` (its first run fills the caches the timed reruns read)."""
    _demo(keys, tags)
    at = app_test.from_string(synthetic_orgs.APP_LAUNCHER, default_timeout=900)
    at.query_params["period"] = "All history"
    at.run()
    at.switch_page(page).run()
    return at


def _rerun(at: Any, keys: int, tags: int) -> Callable[[], None]:
    """One timed rerun of the open session `at`, on its own organization."""

    def run() -> None:
        _demo(keys, tags)
        at.run()

    return run


def _shown(at: Any) -> dict[str, Any]:
    """What the Tags page sent: the tag table's rows, the chart's series and the top N asked
    for, and each figure's size."""
    charts = at.get("plotly_chart")
    return {
        "table_rows": len(at.dataframe[0].value),
        "series": len(json.loads(charts[0].proto.spec)["data"]),
        "top": at.number_input(key="top").value,
        "figure_bytes": [len(chart.proto.spec.encode()) for chart in charts],
    }
