"""The capacity decision: how good its forecasts are on a realistic history and on a hard one,
and how long the recommendation takes against the budget check.

**Quality.** Two organizations generated with the year's calendar (growth, a yearly season,
holiday dips at the year's turn, a team onboarding on one day: `seasons=True`):

* the **smooth** one, whose series are its total characters and those of its
  `Scale.forecast_keys` largest keys (their last year's characters) among those used for a
  year before the first origin;
* the **hard** one (`regimes=True`, `emulator.synthetic.regimes`): the same calendar with a
  holiday freeze each year and a crash and a recovery of the whole organization, and its
  largest further keys each going through a regime change of their own (a crash and a
  recovery, a step up, a product launch with a slow ramp, a key whose usage stops); its series
  are its total characters and each of those keys'.

Each series is backtested as the product backtests it (`capacity.forecasting.backtest`), from
every month start of the five years (`ORIGINS`) instead of the last 24, so that every horizon
has its own errors: at each origin the served forecast is what the product would have served
then (`Backtest.served`: the candidate chosen per horizon from the errors known then, its
point and intervals from them, within the product's window of 24 origins). A horizon is scored
from the origins that had the product's whole window before them (`SCORED_FROM` origins on),
every series pooled, per horizon (month, quarter, 12 months) and organization:

* `forecast_wape_vs_naive_<horizon>` (`_hard_<horizon>` on the hard organization) — the served
  forecast's WAPE (Σ|error| over Σ actual) over the seasonal naive baseline's at the same
  origins, target ≤ 0.8 (smooth), ≤ 1.0 (hard), the hard month ≤ 0.85;
* `interval_coverage_80_<horizon>` (and `_hard_`) — the distance from 0.8 of the share of the
  served forecast's totals inside its 80 % interval as known at its origin (a total forecast
  at zero, or by a candidate that knew fewer than nine past errors then, has none and is not
  counted), target ≤ 0.05.

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

from analytics.capacity.forecasting import (
    HORIZONS,
    MIN_FORECAST,
    SEASONAL_NAIVE,
    History,
    backtest,
    coverage,
    months_later,
    wape,
)
from analytics.exit_codes import FORBIDDEN, SERVICE, UNEXPECTED, USAGE
from bench import synthetic_orgs
from bench.result_lines import Result, result
from bench.timing import medians, rounded
from emulator.synthetic import generate

WAPE_TARGETS = {"smooth": 0.8, "hard": 1.0}
HARD_MONTH_TARGET = 0.85
COVERAGE_TARGET = 0.05
RECOMMEND_TARGET = 2.0
ORIGINS = 57  # every month start of the five years with four weeks before it
SCORED_FROM = 24  # the origins before the first scored one: the product's window
YEAR = dt.timedelta(days=365)
FAILURES = frozenset(code.code for code in (UNEXPECTED, USAGE, FORBIDDEN, SERVICE))


def daily_characters(scale: synthetic_orgs.Scale, hard: bool = False) -> dict[str, pd.Series]:
    """The organization's total characters per day, and its scored keys' (see the module)."""
    # The hard organization has no injected anomalies: one could turn a key with a regime
    # into a new key, erasing the regime it was given.
    generated = generate(
        synthetic_orgs.SEED,
        scale.keys,
        synthetic_orgs.DAYS,
        synthetic_orgs.TODAY,
        not hard,
        seasons=True,
        regimes=hard,
    )
    days, keys, counts = [], [], []
    for day, key, _, *characters in generated.usage:
        days.append(day)
        keys.append(key)
        counts.append(sum(characters[:3]))
    frame = pd.DataFrame({"day": pd.to_datetime(days), "key": keys, "characters": counts})
    by_key = frame.pivot_table(index="day", columns="key", values="characters", aggfunc="sum")
    series = {"organization": by_key.sum(axis=1)}
    if hard:
        changed = {r.key: r.kind for r in generated.regimes}
        return series | {f"key {k} ({kind})": by_key[k].dropna() for k, kind in changed.items()}
    # Keys used for a year before the first origin, so every origin has a history to read.
    seasoned = by_key.columns[
        by_key.notna().idxmax() <= pd.Timestamp(synthetic_orgs.TODAY - 3 * YEAR)
    ]
    last_year = by_key.loc[by_key.index >= pd.Timestamp(synthetic_orgs.TODAY - YEAR), seasoned]
    largest = last_year.sum().nlargest(scale.forecast_keys).index
    return series | {f"key {key}": by_key[key].dropna() for key in largest}


def scored_rows(series: pd.Series) -> pd.DataFrame:
    """The served forecast's rows and the seasonal naive's (under its own name, its raw
    forecast) at the scored origins of every horizon."""
    first, last = (
        synthetic_orgs.TODAY - dt.timedelta(days=synthetic_orgs.DAYS),
        synthetic_orgs.TODAY - dt.timedelta(days=1),
    )
    tested = backtest(History.of(series, first, last), ORIGINS)
    rows = tested.rows
    start = months_later(min(rows["origin"]), SCORED_FROM)
    naive = rows[rows["candidate"] == SEASONAL_NAIVE].assign(forecast=lambda r: r["raw"])
    served = tested.served.assign(model=lambda r: r["candidate"], candidate="served")
    both = pd.concat([served, naive], ignore_index=True)
    return both[both["origin"] >= start]


def forecast_lines(scale: synthetic_orgs.Scale, hard: bool) -> list[Result]:
    """Both quality lines per horizon over every series of one organization."""
    kind = "hard" if hard else "smooth"
    parts = []
    for name, series in daily_characters(scale, hard).items():
        parts.append(scored_rows(series).assign(series=name))
    rows = pd.concat(parts, ignore_index=True)
    lines = []
    for horizon in HORIZONS:
        at = rows[rows["horizon"] == horizon]
        served, naive = at[at["candidate"] == "served"], at[at["candidate"] == SEASONAL_NAIVE]
        covered = coverage(served, "80")
        with_interval = int(served["low_80"].notna().sum())
        # A total forecast at zero has no interval (`capacity.forecasting.backtesting`): a key
        # before its launch or after it stopped.
        forecast_above_zero = int((served["raw"] >= MIN_FORECAST).sum())
        models = served["model"].value_counts().sort_index()
        facts = {
            "organization": kind,
            "horizon": horizon,
            "series": int(served["series"].nunique()),
            "scored": len(served),
            "origins": f"{min(served['origin']):%Y-%m} to {max(served['origin']):%Y-%m}",
            "models": {str(m): int(n) for m, n in models.items()},
        }
        suffix = f"{'hard_' if hard else ''}{horizon.replace(' ', '_')}"
        target = HARD_MONTH_TARGET if hard and horizon == "month" else WAPE_TARGETS[kind]
        inside = served["forecast"].between(served["low_80"], served["high_80"])
        lines.append(
            result(
                f"forecast_wape_vs_naive_{suffix}",
                wape(served) / wape(naive),
                target,
                {
                    "naive_at_every_origin": len(served) == len(naive),
                    "points_inside_their_80": bool(inside[served["low_80"].notna()].all()),
                },
                wape={"served": round(wape(served), 4), "seasonal_naive": round(wape(naive), 4)},
                **facts,
            )
        )
        lines.append(
            result(
                f"interval_coverage_80_{suffix}",
                abs(covered - 0.8) if not np.isnan(covered) else 1.0,
                COVERAGE_TARGET,
                {"most_with_interval": with_interval >= 0.9 * forecast_above_zero},
                with_interval=with_interval,
                forecast_above_zero=forecast_above_zero,
                coverage_80=round(covered, 4),
                coverage_95=round(coverage(served, "95"), 4),
                **facts,
            )
        )
    return lines


def forecast_quality(scale: synthetic_orgs.Scale) -> list[Result]:
    """The quality lines on the smooth organization (see the module)."""
    return forecast_lines(scale, hard=False)


def forecast_quality_hard(scale: synthetic_orgs.Scale) -> list[Result]:
    """The quality lines on the hard organization (see the module)."""
    return forecast_lines(scale, hard=True)


def _command(folder: str, environment: dict[str, str], *args: str) -> Callable[[], None]:
    """`python -m analytics ARGS` as cron runs it, from the checkout, output discarded; a
    failure (an unexpected, usage, key or service error) stops the benchmark, while a budget's
    warning is an answer."""

    def run() -> None:
        done = subprocess.run(
            [sys.executable, "-m", "analytics", *args],
            cwd=synthetic_orgs.ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        if done.returncode in FAILURES:
            raise RuntimeError(f"{args[0]} failed in {folder}: {done.stderr[-2000:]}")

    return run


def recommend_time(scale: synthetic_orgs.Scale) -> list[Result]:
    """`capacity recommend` against `check-budgets` (see the module)."""
    examples = {
        name: str(synthetic_orgs.ROOT / f"{name}.example.toml") for name in ("budgets", "pricing")
    }
    # Both read the whole history the decision reads, so the store is warm for both.
    with (
        synthetic_orgs.emulator_process(scale.keys) as served,
        tempfile.TemporaryDirectory() as folder,
    ):
        environment = {
            **os.environ,
            "PYTHONPATH": str(synthetic_orgs.ROOT),
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
