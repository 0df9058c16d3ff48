"""The capacity decision: how good its forecasts are on a realistic history, and how long the
recommendation takes against the budget check.

**Quality.** The benchmark organization generated with the year's calendar (growth, a yearly
season, holiday dips at the year's turn, a team onboarding on one day: `seasons=True`), whose
series are backtested as the product backtests them (`capacity.accuracy.backtest`: 24 month
starts, each candidate forecasting from what was known then). The series are the
organization's total characters and those of its `Scale.forecast_keys` largest keys (their
last year's characters) among those used for a year before the first origin (a key younger
than that has origins with nothing to forecast from). To measure the choice out of sample,
each series' candidate is chosen as the product chooses it, but from the older twelve origins
only, and scored on the newer twelve:

* `forecast_wape_vs_naive` — the chosen candidates' month-ahead WAPE over the seasonal-naive
  baseline's, every series pooled (Σ|error| over Σ actual), target ≤ 0.8;
* `interval_coverage_80` — the distance from 0.8 of the share of the chosen candidates'
  scored months inside their 80 % interval (as known at each origin; a month without one, its
  candidate knowing fewer than nine past errors then, is not counted), target ≤ 0.05.

**Speed.** `recommend_time`: `capacity recommend` over `check-budgets`, both run as a cron job
runs them (`python -m analytics …`, the example files) against an emulator of `Scale.keys`
keys with a warm history store, target ≤ 2.0.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd

from analytics.capacity.accuracy import Backtest, backtest, coverage, origins, wape
from analytics.capacity.candidates import SEASONAL_NAIVE, History
from analytics.exports.commands import FORBIDDEN, SERVICE, UNEXPECTED, USAGE
from bench import org
from bench.lines import Result, result
from bench.timing import medians, rounded
from emulator.synthetic import generate

WAPE_TARGET = 0.8
COVERAGE_TARGET = 0.05
RECOMMEND_TARGET = 2.0
SPLIT = 12  # the older origins choose, the newer ones score
YEAR = dt.timedelta(days=365)
FAILURES = frozenset(code.code for code in (UNEXPECTED, USAGE, FORBIDDEN, SERVICE))


def daily_characters(scale: org.Scale) -> dict[str, pd.Series]:
    """The seasoned organization's total characters per day, and its largest keys'."""
    generated = generate(org.SEED, scale.keys, org.DAYS, org.TODAY, seasons=True)
    days, keys, counts = [], [], []
    for day, key, _, *characters in generated.usage:
        days.append(day)
        keys.append(key)
        counts.append(sum(characters[:3]))
    frame = pd.DataFrame({"day": pd.to_datetime(days), "key": keys, "characters": counts})
    by_key = frame.pivot_table(index="day", columns="key", values="characters", aggfunc="sum")
    # Keys used for a year before the first origin, so every origin has a history to read.
    seasoned = by_key.columns[by_key.notna().idxmax() <= pd.Timestamp(org.TODAY - 3 * YEAR)]
    last_year = by_key.loc[by_key.index >= pd.Timestamp(org.TODAY - YEAR), seasoned]
    largest = last_year.sum().nlargest(scale.forecast_keys).index
    series = {"organization": by_key.sum(axis=1)}
    series |= {f"key {key}": by_key[key].dropna() for key in largest}
    return series


def scored_rows(series: pd.Series) -> tuple[pd.DataFrame, str]:
    """The month-ahead rows of the newer origins of the candidate chosen on the older ones,
    and that candidate; the seasonal naive's rows come with them under their own name."""
    first, last = org.TODAY - dt.timedelta(days=org.DAYS), org.TODAY - dt.timedelta(days=1)
    history = History.of(series, first, last)
    tested = backtest(history)
    split = origins(history)[SPLIT]
    rows = tested.rows[tested.rows["horizon"] == "month"]
    chosen = Backtest(tested.rows[tested.rows["origin"] < split]).chosen
    newer = rows[rows["origin"] >= split]
    return newer[newer["candidate"].isin([chosen, SEASONAL_NAIVE])], chosen


def forecast_quality(scale: org.Scale) -> list[Result]:
    """Both quality lines over every series (see the module)."""
    chosen_rows, naive_rows, picked = [], [], {}
    for name, series in daily_characters(scale).items():
        rows, chosen = scored_rows(series)
        picked[name] = chosen
        chosen_rows.append(rows[rows["candidate"] == chosen])
        naive_rows.append(rows[rows["candidate"] == SEASONAL_NAIVE])
    ours, naive = pd.concat(chosen_rows), pd.concat(naive_rows)
    covered = coverage(ours, "80")
    # A month whose candidate knew fewer than nine past errors at its origin has no interval
    # (`capacity.accuracy`) and is not counted; the line holds only when most months have one.
    with_interval = int(ours["low_80"].notna().sum())
    counts = {c: list(picked.values()).count(c) for c in sorted(set(picked.values()))}
    facts = {
        "series": len(picked),
        "months_scored": len(ours),
        "chosen": counts,
        "organization_chosen": picked["organization"],
    }
    return [
        result(
            "forecast_wape_vs_naive",
            wape(ours) / wape(naive),
            WAPE_TARGET,
            {"every_series_scored": len(ours) == len(naive) == SPLIT * len(picked)},
            wape={"chosen": round(wape(ours), 4), "seasonal_naive": round(wape(naive), 4)},
            **facts,
        ),
        result(
            "interval_coverage_80",
            abs(covered - 0.8) if not np.isnan(covered) else 1.0,
            COVERAGE_TARGET,
            {"most_months_with_interval": with_interval >= 0.9 * len(ours)},
            months_with_interval=with_interval,
            coverage_80=round(covered, 4),
            coverage_95=round(coverage(ours, "95"), 4),
            **facts,
        ),
    ]


def _command(folder: str, environment: dict[str, str], *args: str) -> Callable[[], None]:
    """`python -m analytics ARGS` as cron runs it, from the checkout, output discarded; a
    failure (an unexpected, usage, key or service error) stops the benchmark, while a budget's
    warning is an answer."""

    def run() -> None:
        done = subprocess.run(
            [sys.executable, "-m", "analytics", *args],
            cwd=org.ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        if done.returncode in FAILURES:
            raise RuntimeError(f"{args[0]} failed in {folder}: {done.stderr[-2000:]}")

    return run


def recommend_time(scale: org.Scale) -> list[Result]:
    """`capacity recommend` against `check-budgets` (see the module)."""
    examples = {name: str(org.ROOT / f"{name}.example.toml") for name in ("budgets", "pricing")}
    # Both read the whole history the decision reads, so the store is warm for both.
    with org.emulator_process(scale.keys) as served, tempfile.TemporaryDirectory() as folder:
        environment = {
            **os.environ,
            "PYTHONPATH": str(org.ROOT),
            "SERVICE_BASE_URL": served.base_url,
            "SERVICE_AUTH_KEY": served.admin_key,
            "SERVICE_HISTORY_PATH": folder,
        }
        command = partial(_command, folder, environment)
        times = medians(
            {
                "check_budgets": command(
                    "check-budgets",
                    "--budgets",
                    examples["budgets"],
                    "--pricing",
                    examples["pricing"],
                ),
                "recommend": command("capacity", "recommend", "--pricing", examples["pricing"]),
            },
            scale.repeat,
            warmup=scale.warmup,
        )
    return [
        result(
            "recommend_time",
            times["recommend"] / times["check_budgets"],
            RECOMMEND_TARGET,
            {},
            seconds=rounded(times),
            keys=scale.keys,
        )
    ]
