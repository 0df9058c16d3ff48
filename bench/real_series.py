"""The capacity decision's forecast on real public daily series (`bench/data/`, listed with their
sources and licences in its README), beside seasonal naive and statsmodels' automatic models.

**Series.** Each is a window of one shipped file, ending on its own last day, chosen for a shape
API usage takes (`SERIES`): a calm weekly rhythm with yearly holidays, growth through seasonal
swings, a launch and ramp with a step up, steady growth, a collapse and a slow recovery, strong
seasonal swings, a stop and a recovery.

**Origins.** At each horizon (month, quarter, 12 months) a series is scored from the last
`ORIGINS` month starts that have a year of history before them (so seasonal naive reads last
year) and whose horizon ends inside the window; every method forecasts from the same origins,
from the days before each only.

**Methods.**

* **served** — the product's own outlook, as every surface reads it
  (`capacity.forecasting.organization_outlook` of the days before the origin, as of the
  origin): the total of the horizon's days by the candidate chosen for that horizon, its point
  and 80 % interval (`Outlook.cumulative`).
* **seasonal naive** — each day the same weekday 52 weeks earlier (the product's yardstick).
* **library models**, each fitted by statsmodels to the same days the outlook reads (the five
  years before the origin, `capacity.forecasting.forecast_start`): automatic ETS (error,
  damped trend and weekly season each in or out, the form with the lowest AICc, as automatic
  ETS chooses), the Theta method on the weekly-deseasonalized series, and STL with a weekly
  season and a damped-trend ETS on the seasonally adjusted series. statsforecast's AutoETS,
  AutoTheta and MSTL are the same models, but statsforecast requires pandas < 3, which the
  product does not run on.

**Lines**, per horizon, each series weighing the same (its WAPE, Σ|error| over Σ actual, is
already scale-free, and the series' scales differ a thousandfold):

* `forecast_wape_vs_naive_real_<horizon>` — the served forecast's WAPE summed over the series,
  over seasonal naive's, target ≤ 0.9, and no series above 1.0;
* `forecast_wape_vs_library_real_<horizon>` — the same over the best library model's of each
  series (the one with the lowest WAPE there, in hindsight), target ≤ 1.0;
* `interval_coverage_80_real_<horizon>` — the distance from 0.8 of the share of the served
  totals inside their 80 % interval (those with one), target ≤ 0.07.
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analytics.capacity.forecasting import (
    HORIZONS,
    SEASONAL_NAIVE,
    coverage,
    forecast_start,
    months_later,
    organization_outlook,
    wape,
)
from analytics.usage.metrics import TOTAL_CHARACTERS
from bench import synthetic_orgs
from bench.result_lines import Result, result

DATA = Path(__file__).resolve().parent / "data"
ORIGINS = 24  # the month starts scored per series and horizon (the smoke run's: SMOKE_ORIGINS)
SMOKE_ORIGINS = 2
SMOKE_SERIES = 2
NAIVE_TARGET = 0.9
SERIES_NAIVE_LIMIT = 1.0
LIBRARY_TARGET = 1.0
COVERAGE_TARGET = 0.07
YEAR = dt.timedelta(days=365)
SAME_DAY_LAST_YEAR = 364  # 52 weeks: the same weekday
WEEK = 7
SERVED = "served"


@dataclass(frozen=True)
class RealSeries:
    """A window of one shipped file: its days up to ``last``."""

    name: str
    file: str
    last: dt.date
    shape: str

    def days(self) -> pd.Series:
        """The window's daily counts, indexed by day."""
        frame = pd.read_csv(DATA / self.file, parse_dates=["day"], index_col="day")
        return frame.iloc[:, 0].astype(float).loc[: pd.Timestamp(self.last)]


SERIES = (
    RealSeries("US births", "us_births.csv.gz", dt.date(2014, 12, 31), "calm weekly and yearly"),
    RealSeries(
        "Capital Bikeshare",
        "capital_bikeshare_users.csv.gz",
        dt.date(2012, 12, 31),
        "growth through seasons",
    ),
    RealSeries(
        "Bitcoin launch",
        "bitcoin_transactions.csv.gz",
        dt.date(2011, 12, 31),
        "launch, ramp, step up",
    ),
    RealSeries(
        "Bitcoin growth", "bitcoin_transactions.csv.gz", dt.date(2016, 12, 31), "steady growth"
    ),
    RealSeries(
        "Bitcoin collapse",
        "bitcoin_transactions.csv.gz",
        dt.date(2019, 12, 31),
        "collapse, slow recovery",
    ),
    RealSeries(
        "BiciMAD seasons", "bicimad_users.csv.gz", dt.date(2019, 12, 31), "strong seasonal swings"
    ),
    RealSeries("BiciMAD stop", "bicimad_users.csv.gz", dt.date(2021, 12, 31), "stop, recovery"),
)


def scored_origins(days: pd.Series, months: int, count: int) -> list[dt.date]:
    """The last ``count`` month starts with a year of days before them whose ``months`` ahead
    end inside the series."""
    first, last = days.index[0].date(), days.index[-1].date()
    start = months_later((first + YEAR).replace(day=1), 1)
    found = []
    while months_later(start, months) - dt.timedelta(days=1) <= last:
        found.append(start)
        start = months_later(start, 1)
    return found[-count:]


def _quiet(fit: Callable[[], np.ndarray]) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notes: the scores judge the fit
        return np.maximum(np.asarray(fit(), dtype=float), 0.0)


def automatic_ets(values: np.ndarray, steps: int) -> np.ndarray:
    """statsmodels' ETS of the form with the lowest AICc (see the module)."""
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel

    def fitted(trend: bool, season: bool) -> Any:
        model = ETSModel(
            values,
            error="add",
            trend="add" if trend else None,
            damped_trend=trend,
            seasonal="add" if season else None,
            seasonal_periods=WEEK if season else None,
        )
        return model.fit(disp=False)

    def best() -> np.ndarray:
        fits = [fitted(trend, season) for trend in (False, True) for season in (False, True)]
        usable = [fit for fit in fits if np.isfinite(fit.aicc)]
        chosen = min(usable, key=lambda fit: fit.aicc)
        return chosen.forecast(steps)

    return _quiet(best)


def theta(values: np.ndarray, steps: int) -> np.ndarray:
    """statsmodels' Theta method, the weekly season taken out and put back additively."""
    from statsmodels.tsa.forecasting.theta import ThetaModel

    return _quiet(lambda: ThetaModel(values, period=WEEK, method="additive").fit().forecast(steps))


def stl_ets(values: np.ndarray, steps: int) -> np.ndarray:
    """statsmodels' STL (weekly season) with a damped-trend ETS on the adjusted series."""
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel
    from statsmodels.tsa.forecasting.stl import STLForecast

    kwargs = {"error": "add", "trend": "add", "damped_trend": True}
    model = STLForecast(values, ETSModel, model_kwargs=kwargs, period=WEEK)
    return _quiet(lambda: model.fit(fit_kwargs={"disp": False}).forecast(steps))


LIBRARY: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "ETS (AICc, weekly)": automatic_ets,
    "Theta (weekly)": theta,
    "STL + ETS (weekly)": stl_ets,
}


def seasonal_naive(values: np.ndarray, origin: int, steps: int) -> np.ndarray:
    """Each day the same weekday 52 weeks (a multiple of them) before it."""
    ahead = np.arange(steps)
    return values[origin + ahead - SAME_DAY_LAST_YEAR * (ahead // SAME_DAY_LAST_YEAR + 1)]


def origin_rows(series: RealSeries, days: pd.Series, origin: dt.date) -> list[dict[str, object]]:
    """Every method's total of each horizon scored from ``origin`` (its rows: series, horizon,
    origin, method, model, forecast, low and high of the 80 % interval, actual)."""
    values = days.to_numpy()
    first = days.index[0].date()
    at = (origin - first).days
    lengths = {
        horizon: (months_later(origin, months) - origin).days
        for horizon, months in HORIZONS.items()
        if at + (months_later(origin, months) - origin).days <= len(values)
    }
    steps = max(lengths.values())
    key_day = pd.DataFrame(
        {"usage_date": days.index, "api_key": series.name, TOTAL_CHARACTERS: values}
    )
    served = organization_outlook(key_day, TOTAL_CHARACTERS, first, origin)
    fit_from = max(0, (forecast_start(origin) - first).days)
    paths = {SEASONAL_NAIVE: seasonal_naive(values, at, steps)}
    for name, model in LIBRARY.items():
        paths[name] = model(values[fit_from:at], steps)
    rows = []
    for horizon, length in lengths.items():
        actual = float(values[at : at + length].sum())
        point, low, high = served.cumulative(length)[:3, -1]
        base = {"series": series.name, "horizon": horizon, "origin": origin, "actual": actual}
        model = served.model_for(length)
        interval = {"low_80": low, "high_80": high}
        rows.append(base | {"method": SERVED, "model": model, "forecast": point} | interval)
        for name, path in paths.items():
            rows.append(base | {"method": name, "model": name, "forecast": path[:length].sum()})
    return rows


def series_rows(series: RealSeries, count: int) -> pd.DataFrame:
    """The rows of every origin scored at some horizon (``origin_rows``), each origin's rows
    kept for the horizons it is scored at."""
    days = series.days()
    wanted = {h: set(scored_origins(days, months, count)) for h, months in HORIZONS.items()}
    every = sorted(set().union(*wanted.values()))
    frame = pd.DataFrame([row for origin in every for row in origin_rows(series, days, origin)])
    if frame.empty:
        return frame
    keep = [
        origin in wanted[h] for h, origin in zip(frame["horizon"], frame["origin"], strict=True)
    ]
    return frame[keep]


def series_scores(part: pd.DataFrame) -> dict[str, Any]:
    """One series' figures at one horizon: each method's WAPE, the served forecast's over
    seasonal naive's and over the best library model's, its models and its coverage."""
    scores = {method: wape(rows) for method, rows in part.groupby("method")}
    library = {name: scores[name] for name in LIBRARY if np.isfinite(scores.get(name, np.nan))}
    best = min(library, key=lambda name: library[name])
    served = part[part["method"] == SERVED]
    return {
        "shape": next(s.shape for s in SERIES if s.name == part["series"].iloc[0]),
        "origins": f"{min(served['origin']):%Y-%m} to {max(served['origin']):%Y-%m}",
        "scored": len(served),
        "wape": {method: round(score, 4) for method, score in scores.items()},
        "best_library": best,
        "vs_naive": round(scores[SERVED] / scores[SEASONAL_NAIVE], 4),
        "vs_library": round(scores[SERVED] / library[best], 4),
        "served_models": {str(m): int(n) for m, n in served["model"].value_counts().items()},
        "coverage_80": round(coverage(served, "80"), 4),
        "with_interval": int(served["low_80"].notna().sum()),
    }


def horizon_lines(rows: pd.DataFrame, horizon: str) -> list[Result]:
    """The three lines of one horizon over every series scored at it (see the module)."""
    at = rows[rows["horizon"] == horizon]
    figures = {name: series_scores(part) for name, part in at.groupby("series", sort=False)}
    served = sum(f["wape"][SERVED] for f in figures.values())
    naive = sum(f["wape"][SEASONAL_NAIVE] for f in figures.values())
    best = sum(f["wape"][f["best_library"]] for f in figures.values())
    with_interval = at[(at["method"] == SERVED)]
    covered = coverage(with_interval, "80")
    suffix = horizon.replace(" ", "_")
    facts = {"horizon": horizon, "series": figures}
    worst = max(f["vs_naive"] for f in figures.values())
    return [
        result(
            f"forecast_wape_vs_naive_real_{suffix}",
            served / naive,
            NAIVE_TARGET,
            {"no_series_above_naive": worst <= SERIES_NAIVE_LIMIT},
            worst_series=worst,
            **facts,
        ),
        result(
            f"forecast_wape_vs_library_real_{suffix}", served / best, LIBRARY_TARGET, {}, **facts
        ),
        result(
            f"interval_coverage_80_real_{suffix}",
            abs(covered - 0.8) if np.isfinite(covered) else 1.0,
            COVERAGE_TARGET,
            {},
            coverage_80=round(covered, 4),
            with_interval=int(with_interval["low_80"].notna().sum()),
            scored=len(with_interval),
            horizon=horizon,
        ),
    ]


def forecast_quality_real(scale: synthetic_orgs.Scale) -> list[Result]:
    """The real series' lines per horizon (see the module); the smoke run scores its first
    ``SMOKE_SERIES`` series from ``SMOKE_ORIGINS`` origins each."""
    smoke = scale.factor < 0.5
    chosen = SERIES[:SMOKE_SERIES] if smoke else SERIES
    count = SMOKE_ORIGINS if smoke else ORIGINS
    rows = pd.concat([series_rows(series, count) for series in chosen], ignore_index=True)
    return [line for horizon in HORIZONS for line in horizon_lines(rows, horizon)]
