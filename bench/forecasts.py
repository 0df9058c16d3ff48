"""The capacity decision: how good its forecasts are on a realistic history and on a hard one,
and how long the recommendation takes against the budget check.

**Quality.** Two organizations generated with the year's calendar (growth, a yearly season,
holiday dips at the year's turn, a team onboarding on one day: `seasons=True`): the **smooth**
one, and the **hard** one (`regimes=True`, `emulator.synthetic.regimes`): the same calendar,
and its largest further keys each going through a regime change of their own (a crash and a
recovery, a step up, a product launch with a slow ramp, a holiday freeze every year, a key
whose usage stops), the one-off ones on days drawn across the whole history, so its past holds
them as often as its future.

Both are scored one way (`scored_organization`). Their series are chosen by what is known at
the first scored origin: the total characters and the `Scale.forecast_keys` largest keys by
their characters in the year before it, whatever happens to them later. A key is scored as the
product serves it (`capacity.forecasting.projections`): at each origin, its share of the
organization's characters over the four weeks before it (`projections.recent_share`) times the
organization's served forecast, with the interval the product gives a part; its seasonal naive
is its own. Until 2026-12-08 the smooth organization's keys were chosen by their last year's
characters and each backtested on its own, forecasts the product does not serve.

Each series is backtested as the product backtests it (`capacity.forecasting.backtest`), from
every month start of the five years (`ORIGINS`) instead of the last 24, so that every horizon
has its own errors: at each origin the served forecast is what the product would have served
then (`Backtest.served`: the candidate chosen per horizon from the errors known then, its
point and intervals from them, within the product's window of 24 origins, the served rows an
interval reads chosen from that window alone, as the product serving then chose them); a key
takes its share of the organization's. A horizon is scored from the origins that had the
product's whole window before them (`SCORED_FROM` origins on), every series pooled, per horizon
(month, quarter, 12 months) and organization:

* `forecast_wape_vs_naive_<horizon>` (`_hard_<horizon>` on the hard organization) — the served
  forecast's WAPE (Σ|error| over Σ actual) over the seasonal naive baseline's at the same
  origins, target ≤ 0.8 (smooth), ≤ 1.0 (hard), the hard month ≤ 0.85;
* `interval_coverage_80_<horizon>` (and `_hard_`) — the distance from 0.8 of the share of the
  served forecast's totals inside its 80 % interval as known at its origin (a total forecast
  at zero, a key's whose share is zero among them, or by a candidate that knew fewer than
  nine past errors then, has none and is not counted), target ≤ 0.05.

The lines also say how many of their keys went through a one-off change before the first
scored origin and how many from it on (`keys_changed_before`, `keys_changed_within`: none on
the smooth organization).

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
    Backtest,
    History,
    backtest,
    coverage,
    interval_shares,
    months_later,
    recent_share,
    wape,
)
from analytics.exit_codes import FORBIDDEN, SERVICE, UNEXPECTED, USAGE
from analytics.usage.metrics import TOTAL_CHARACTERS
from bench import synthetic_orgs
from bench.result_lines import Result, result
from bench.timing import medians, rounded
from emulator.org import Regime
from emulator.synthetic import generate

WAPE_TARGETS = {"smooth": 0.8, "hard": 1.0}
HARD_MONTH_TARGET = 0.85
COVERAGE_TARGET = 0.05
RECOMMEND_TARGET = 2.0
ORIGINS = 57  # every month start of the five years with four weeks before it
SCORED_FROM = 24  # the origins before the first scored one: the product's window
YEAR = dt.timedelta(days=365)
INTERVALS = ["low_80", "high_80", "low_95", "high_95"]  # a backtest row's intervals
FAILURES = frozenset(code.code for code in (UNEXPECTED, USAGE, FORBIDDEN, SERVICE))
FIRST = synthetic_orgs.TODAY - dt.timedelta(days=synthetic_orgs.DAYS)  # the history's days
LAST = synthetic_orgs.TODAY - dt.timedelta(days=1)


def key_days(scale: synthetic_orgs.Scale, hard: bool) -> tuple[pd.DataFrame, list[Regime]]:
    """One organization's used key-days (see the module) as the product's key-day frame holds
    them (`usage_date`, `api_key`: the key's index as text, `total_characters`), and the
    regime changes put into it."""
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
        keys.append(str(key))
        counts.append(sum(characters[:3]))
    frame = {"usage_date": pd.to_datetime(days), "api_key": keys, TOTAL_CHARACTERS: counts}
    return pd.DataFrame(frame), generated.regimes


def history(usage: pd.DataFrame, key: str | None = None) -> History:
    """The five years of the organization's (or of one ``key``'s) total characters."""
    used = usage if key is None else usage[usage["api_key"] == key]
    return History.of(used.groupby("usage_date")[TOTAL_CHARACTERS].sum(), FIRST, LAST)


def tested_rows(tested: Backtest) -> pd.DataFrame:
    """The served forecast's rows of a backtest and the seasonal naive's (under its own name,
    its raw forecast) at the scored origins of every horizon."""
    rows = tested.rows
    start = months_later(min(rows["origin"]), SCORED_FROM)
    naive = rows[rows["candidate"] == SEASONAL_NAIVE].assign(forecast=lambda r: r["raw"])
    served = tested.served.assign(model=lambda r: r["candidate"], candidate="served")
    both = pd.concat([served, naive], ignore_index=True)
    return both[both["origin"] >= start]


def shared_rows(
    organization: pd.DataFrame, usage: pd.DataFrame, key: str, tested: Backtest
) -> pd.DataFrame:
    """One key's scored rows as the product serves it: at each origin the organization's
    served point (``organization``'s rows, of the backtest ``tested``) times the key's share
    of the organization's usage over the four weeks before it (`projections.recent_share`),
    against the key's own totals, and the interval the product gives a key then: from its
    own errors so projected, the organization's while too few are known
    (`Backtest.part_ratios`); beside them the key's own seasonal naive. A share forecast at
    zero has no interval, as a series forecast at zero has none in the backtest."""
    served = organization[organization["candidate"] == "served"]
    naive = backtest(history(usage, key), ORIGINS, [SEASONAL_NAIVE]).rows
    naive = naive[naive["origin"] >= min(served["origin"])].assign(forecast=naive["raw"])
    shares = {
        day: recent_share(usage, TOTAL_CHARACTERS, [key], day) for day in set(served["origin"])
    }
    share = served["origin"].map(shares).astype(float)
    scaled = served.assign(**{c: served[c] * share for c in ("raw", "forecast")})
    whole, part = history(usage), history(usage, key).values
    bounds = [
        interval_shares(ratios)[1:] * point
        if point >= MIN_FORECAST and (ratios := tested.part_ratios(whole, part, horizon, day))
        else np.full(len(INTERVALS), np.nan)
        for horizon, day, point in zip(
            scaled["horizon"], scaled["origin"], scaled["raw"], strict=True
        )
    ]
    scaled[INTERVALS] = np.asarray(bounds, dtype=float).reshape(len(scaled), len(INTERVALS))
    actual = naive.set_index(["horizon", "origin"])["actual"]
    at = pd.MultiIndex.from_frame(scaled[["horizon", "origin"]])
    scaled["actual"] = actual.reindex(at).to_numpy()
    return pd.concat([scaled, naive], ignore_index=True)


def scored_organization(
    scale: synthetic_orgs.Scale, hard: bool
) -> tuple[pd.DataFrame, dict[str, object]]:
    """One organization's scored rows (see the module): its total's as served, and those of
    its largest keys by their characters in the year before the first scored origin, each
    scored as its share of the organization's forecast; and how many of those keys went
    through a one-off change, before the first scored origin or from it on."""
    usage, regimes = key_days(scale, hard)
    tested = backtest(history(usage), ORIGINS)
    organization = tested_rows(tested)
    start = min(organization["origin"])
    year = usage[
        usage["usage_date"].between(pd.Timestamp(start - YEAR), pd.Timestamp(start), "left")
    ]
    largest = year.groupby("api_key")[TOTAL_CHARACTERS].sum().nlargest(scale.forecast_keys)
    parts = [organization.assign(series="organization")]
    for key in largest.index:
        parts.append(shared_rows(organization, usage, key, tested).assign(series=f"key {key}"))
    changed = [r for r in regimes if str(r.key) in largest.index and r.kind != "freeze"]
    within = [r for r in changed if FIRST + dt.timedelta(days=r.day) >= start]
    counts = {
        "keys_changed_before": len(changed) - len(within),
        "keys_changed_within": len(within),
    }
    return pd.concat(parts, ignore_index=True), counts


def forecast_lines(scale: synthetic_orgs.Scale, hard: bool) -> list[Result]:
    """Both quality lines per horizon over every series of one organization."""
    kind = "hard" if hard else "smooth"
    rows, changes = scored_organization(scale, hard)
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
            **changes,
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
