"""The rolling-origin backtest on hand-made series whose errors are worked out by hand: a flat
series, a linear trend, a weekly rhythm, a step change, a spike, and a series too short for a
yearly season; the choice per horizon, and the forecast as it would have been served."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from analytics.capacity.forecasting.accuracy import Accuracy, accuracy
from analytics.capacity.forecasting.backtesting import (
    MIN_SCORED,
    Backtest,
    backtest,
    origins,
)
from analytics.capacity.forecasting.candidates import (
    COMBINATION,
    ETS_AUTO,
    ETS_WEEKLY,
    ETS_YEARLY,
    GROWN_NAIVE,
    RUN_RATE,
    SEASONAL_NAIVE,
    History,
)
from analytics.capacity.forecasting.outlook import accuracy_text, forecast_rows, outlook
from analytics.capacity.forecasting.scores import wape
from analytics.capacity.forecasting.whatif import WhatIf
from analytics.usage.metrics import TOTAL_CHARACTERS

FIRST = date(2024, 1, 1)  # a Monday
CHEAP = (RUN_RATE, SEASONAL_NAIVE)


def history(values: np.ndarray | list[float]) -> History:
    return History(FIRST, np.asarray(values, dtype=float))


def days_between(start: date, end: date) -> int:
    return (end - start).days


def month_after(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1)


def test_origins_are_the_last_24_whole_months_and_horizons_are_scored_once_ended():
    flat = history([100.0] * 800)  # through 2026-03-09
    found = origins(flat)
    assert len(found) == 24
    assert found[0] == date(2024, 3, 1) and found[-1] == date(2026, 2, 1)
    rows = backtest(flat, candidates=CHEAP).rows
    scored = rows[rows["candidate"] == RUN_RATE].groupby("horizon")["origin"].agg(["count", "max"])
    # The quarter from 2025-12-01 ended on 2026-02-28; from 2026-01-01 it had not.
    assert scored.loc["month", "count"] == 24
    assert scored.loc["quarter", "max"] == date(2025, 12, 1)
    assert scored.loc["12 months", "max"] == date(2025, 3, 1)
    assert scored.loc["12 months", "count"] == 13


def test_a_flat_series_is_forecast_exactly_and_every_interval_holds_it():
    found = backtest(history([100.0] * 800), candidates=(*CHEAP, ETS_WEEKLY))
    table = found.table()
    assert table["wape"].tolist() == [0.0] * len(table)
    with_intervals = table.dropna(subset=["coverage_80"])
    assert len(with_intervals) == len(table)
    assert (with_intervals[["coverage_80", "coverage_95"]] == 1.0).all().all()
    month = found.of(RUN_RATE, "month")
    assert (
        month["actual"]
        == 100.0 * np.array([days_between(o, month_after(o)) for o in month["origin"]])
    ).all()


def test_seasonal_naive_on_a_linear_trend_misses_by_the_slope_times_its_lag():
    slope = 10.0
    values = 1000.0 + slope * np.arange(800)
    month = backtest(history(values), candidates=(SEASONAL_NAIVE,)).of(SEASONAL_NAIVE, "month")
    # It forecasts once a year is known, each day read 52 weeks back: 364 days of growth short.
    assert min(days_between(FIRST, origin) for origin in month["origin"]) >= 364
    for row in month.itertuples():
        start = days_between(FIRST, row.origin)
        days = days_between(row.origin, month_after(row.origin))
        assert row.actual - row.raw == pytest.approx(slope * 364 * days)
        actual = sum(1000.0 + slope * (start + j) for j in range(days))
        assert row.actual == pytest.approx(actual)
    expected_wape = (month["actual"] - month["raw"]).sum() / month["actual"].sum()
    assert wape(month, "raw") == pytest.approx(expected_wape)


def test_the_point_is_the_forecast_and_its_interval_the_ratios_known_at_its_origin():
    """On the linear trend the seasonal naive runs low by a share that shrinks as the series
    grows. Each point is its forecast; its 80 % interval the forecast times the 10th and 90th
    percentiles of the served forecast's ratios of the months that had ended before its
    origin, within the 24 origins before it (none before nine are known), each read both ways
    (r and 1 ÷ r), widened to hold the point: every ratio is above one, and still the interval
    reaches below the forecast. The seasonal naive serves from the seventh origin on (before
    six are scored the run rate would, which this backtest does not run)."""
    values = 1000.0 + 10.0 * np.arange(800)
    month = backtest(history(values), candidates=(SEASONAL_NAIVE,)).of(SEASONAL_NAIVE, "month")
    ratios = (month["actual"] / month["raw"]).tolist()
    for i, row in enumerate(month.itertuples()):
        assert row.forecast == row.raw
        known = ratios[MIN_SCORED:i]  # every earlier month served had ended before it
        if len(known) < 9:
            assert np.isnan(row.low_80)
            continue
        assert min(known) > 1.0
        both = known + [1 / r for r in known]
        low, high = np.quantile(both, [0.1, 0.9], method="weibull")
        assert row.low_80 == pytest.approx(row.raw * low)
        assert row.high_80 == pytest.approx(row.raw * high)
        assert low < 1.0 < high


def test_a_weekly_rhythm_is_forecast_exactly_by_both_baselines():
    rhythm = [10.0 if (FIRST + timedelta(days=d)).weekday() >= 5 else 100.0 for d in range(500)]
    table = backtest(history(rhythm), candidates=CHEAP).table()
    assert table["wape"].tolist() == pytest.approx([0.0] * len(table), abs=1e-12)


def test_after_a_step_change_the_run_rate_lags_and_the_weekly_model_adapts_within_days():
    origin = date(2024, 8, 1)
    step = days_between(FIRST, origin) - 14  # two whole weeks before the origin
    values = np.where(np.arange(260) < step, 100.0, 400.0)
    found = backtest(history(values), candidates=(RUN_RATE, ETS_WEEKLY))
    run_rate = found.of(RUN_RATE, "month").set_index("origin").loc[origin]
    weekly = found.of(ETS_WEEKLY, "month").set_index("origin").loc[origin]
    # The run rate's level is the mean of 14 days at 100 and 14 at 400: 250 a day, for 31 days;
    # every weekday saw the step equally often, so the rhythm stays flat.
    assert run_rate["forecast"] == pytest.approx(31 * 250)
    assert run_rate["actual"] == 31 * 400
    assert abs(weekly["forecast"] - weekly["actual"]) < 0.05 * weekly["actual"]


def test_a_one_off_spike_is_not_projected_over_the_next_month():
    origin = date(2024, 8, 1)
    values = np.full(260, 100.0)
    values[days_between(FIRST, origin) - 10] = 10_000.0
    found = backtest(history(values), candidates=(RUN_RATE, ETS_WEEKLY))
    run_rate = found.of(RUN_RATE, "month").set_index("origin").loc[origin]
    weekly = found.of(ETS_WEEKLY, "month").set_index("origin").loc[origin]
    # The run rate's level spreads the spike's 9,900 extra over its 28 days, and its rhythm
    # makes the spike's weekday (a Monday, four of them in August 2024) weigh 925/100 as much
    # as the others: (11 Mondays at 100 and the spike) / 12 against 100 on every other day.
    level = 100 + 9_900 / 28
    mean_weekday = (6 * 100 + 925) / 7
    month_factors = (27 * 100 + 4 * 925) / mean_weekday
    assert run_rate["forecast"] == pytest.approx(level * month_factors)
    assert run_rate["forecast"] > 4 * run_rate["actual"]
    assert weekly["forecast"] == pytest.approx(31 * 100, rel=0.02)


def test_a_series_too_short_for_a_yearly_season_has_no_yearly_model():
    short = backtest(history([100.0 + d % 30 for d in range(400)]))
    assert ETS_YEARLY not in set(short.rows["candidate"])
    assert set(short.rows["candidate"]) == {
        RUN_RATE,
        SEASONAL_NAIVE,
        ETS_WEEKLY,
        ETS_AUTO,
        COMBINATION,
    }
    # With 26 whole months known, the yearly model runs from the origins with 24 behind them.
    longer = backtest(history([100.0 + d % 30 for d in range(800)]))
    yearly = longer.of(ETS_YEARLY, "month")
    assert yearly["origin"].min() == date(2026, 1, 1)


def rows(
    scores: dict[str, list[float]], actual: float = 100.0, horizon: str = "month"
) -> pd.DataFrame:
    """Rows of one horizon: each candidate's point per origin (NaN: not scored there)."""
    starts = [date(2024, m, 1) for m in range(1, 13)] + [date(2025, m, 1) for m in range(1, 13)]
    found = []
    for candidate, forecasts in scores.items():
        for origin, forecast in zip(starts[-len(forecasts) :], forecasts, strict=True):
            if not np.isnan(forecast):
                found.append(
                    {"candidate": candidate, "horizon": horizon, "origin": origin,
                     "end": origin, "raw": forecast, "forecast": forecast, "actual": actual}
                )  # fmt: skip
    return pd.DataFrame(found)


def test_the_chosen_candidate_has_the_best_month_ahead_error_over_the_last_24_origins():
    """A dozen recent months favour the seasonal naive (5 % off against 20 %); the 24 the
    choice reads favour the run rate (10 % against 27.5 %)."""
    chosen = Backtest(
        rows(
            {
                RUN_RATE: [100.0] * 12 + [80.0] * 12,  # exact long ago, 20 % off lately
                SEASONAL_NAIVE: [50.0] * 12 + [95.0] * 12,  # 5 % off lately
                ETS_WEEKLY: [88.0] * 24,  # 12 % off
            }
        )
    ).chosen
    assert chosen == RUN_RATE


def test_seasonal_naive_keeps_serving_unless_beaten_by_its_margin():
    """Seasonal naive 10 % off: a model 9.5 % off does not replace it a month ahead, one 8.5 %
    off does; over 12 months, one 7.5 % off does not (the margin is 30 %)."""
    close = Backtest(rows({SEASONAL_NAIVE: [90.0] * 24, ETS_WEEKLY: [90.5] * 24}))
    assert close.chosen == SEASONAL_NAIVE
    clear = Backtest(rows({SEASONAL_NAIVE: [90.0] * 24, ETS_WEEKLY: [91.5] * 24}))
    assert clear.chosen == ETS_WEEKLY
    year = rows({SEASONAL_NAIVE: [90.0] * 12, ETS_WEEKLY: [92.5] * 12}, horizon="12 months")
    assert Backtest(year).models["12 months"] == SEASONAL_NAIVE


@pytest.mark.parametrize(
    ("month_forecast", "month_model", "serves"),
    [
        (95.0, SEASONAL_NAIVE, SEASONAL_NAIVE),
        (99.5, ETS_YEARLY, ETS_YEARLY),
        (None, SEASONAL_NAIVE, ETS_YEARLY),
    ],
)
def test_a_longer_horizon_is_served_by_a_model_that_beat_last_years_days_at_the_shorter_too(
    month_forecast: float | None, month_model: str, serves: str
) -> None:
    """Over the quarters and 12 months compared the yearly model was 2 % off and seasonal
    naive 5 %: a clear lead. A month ahead the yearly model was 5 % off like seasonal naive:
    no lead, and seasonal naive keeps the quarter and the 12 months; with the yearly model
    0.5 % off a month ahead it serves every horizon; a model never compared a month ahead is
    judged on its own horizons."""
    naive_month = rows({SEASONAL_NAIVE: [95.0] * 12})
    longer = [
        rows({SEASONAL_NAIVE: [95.0] * 12, ETS_YEARLY: [98.0] * 12}, horizon=horizon)
        for horizon in ("quarter", "12 months")
    ]
    month = [] if month_forecast is None else [rows({ETS_YEARLY: [month_forecast] * 12})]
    found = Backtest(pd.concat([naive_month, *month, *longer], ignore_index=True))
    assert found.models == {"month": month_model, "quarter": serves, "12 months": serves}


def test_last_years_days_far_below_the_run_rate_give_way_to_the_best_of_the_others():
    """Seasonal naive has been exact, and would serve: at the last origin its month reads 20
    where the run rate forecasts 90 (last year's days held a stop); under a third of the run
    rate's, it gives way to the next best, the run rate, and the grown seasonal naive, which
    reads the same days, with it. At 40 it is within a third and keeps serving."""
    stop = Backtest(
        rows(
            {
                SEASONAL_NAIVE: [100.0] * 23 + [20.0],
                GROWN_NAIVE: [99.0] * 23 + [20.0],
                RUN_RATE: [80.0] * 23 + [90.0],
                ETS_WEEKLY: [70.0] * 23 + [90.0],
            }
        )
    )
    served = stop.served.set_index("origin")["candidate"]
    assert (served.iloc[:-1].iloc[MIN_SCORED:] == SEASONAL_NAIVE).all()
    assert served.iloc[-1] == RUN_RATE
    assert stop.chosen_for("month", totals={SEASONAL_NAIVE: 20.0, RUN_RATE: 90.0}) == RUN_RATE
    assert stop.chosen_for("month", totals={SEASONAL_NAIVE: 40.0, RUN_RATE: 90.0}) == (
        SEASONAL_NAIVE
    )
    assert stop.chosen_for("month") == SEASONAL_NAIVE  # no totals: the record alone


def test_a_month_after_last_years_stop_is_not_forecast_from_the_stop():
    """A calm weekly rhythm for three years, stopped for six weeks a year ago: the month
    ahead from today is not read from the stop's days (nearly nothing) but served by another
    candidate, near the usual month."""
    day = np.arange(3 * 364)
    weekdays = np.where((FIRST.weekday() + day) % 7 >= 5, 0.3, 1.0)
    noise = np.random.default_rng(3).lognormal(0.0, 0.03, day.size)
    stopped = (day >= day.size - 364) & (day < day.size - 364 + 42)
    values = np.where(stopped, 0.0, 1000.0 * weekdays * noise)
    series = pd.Series(values, index=pd.date_range(FIRST, periods=day.size, freq="D"))
    as_of = FIRST + timedelta(days=int(day.size))
    found = outlook(series, TOTAL_CHARACTERS, FIRST, as_of, (*CHEAP, GROWN_NAIVE))
    assert found.backtest.models["month"] == SEASONAL_NAIVE  # its record alone
    assert found.models["month"] == RUN_RATE
    usual = 1000.0 * (5 + 2 * 0.3) / 7 * 30
    assert found.cumulative(30)[0, -1] == pytest.approx(usual, rel=0.1)


def test_a_candidate_missing_a_recent_origin_is_not_chosen_and_short_backtests_keep_the_run_rate():
    gap = [100.0] * 11 + [np.nan]  # exact, but not scored at the latest origin
    found = Backtest(rows({RUN_RATE: [90.0] * 12, ETS_YEARLY: gap}))
    assert found.chosen == RUN_RATE
    few = Backtest(rows({RUN_RATE: [50.0] * 5, ETS_WEEKLY: [100.0] * 5}))
    assert few.chosen == RUN_RATE


def test_the_yardstick_is_compared_on_the_origins_it_has_scored_from_six_on():
    """A series a year and eight months old: the seasonal naive, reading last year, has scored
    its last eight origins (exact), the run rate all 20 (exact long ago, 20 % off on the last
    eight). The choice compares the two on the eight origins both scored, and the yardstick
    serves; with five scored it is not compared yet, and the run rate's 20 origins choose.
    The yearly model, which needs two years, is not compared on the eight: it has scored none
    of the oldest."""
    run_rate = [100.0] * 12 + [80.0] * 8
    young = rows({RUN_RATE: run_rate, SEASONAL_NAIVE: [100.0] * 8, ETS_YEARLY: [100.0] * 4})
    assert Backtest(young).chosen == SEASONAL_NAIVE
    younger = rows({RUN_RATE: run_rate[:-3], SEASONAL_NAIVE: [100.0] * 5})
    assert Backtest(younger).chosen == RUN_RATE


def test_each_horizon_is_served_by_the_candidate_best_at_it():
    """The run rate has the best month-ahead record, the seasonal naive the best 12-month
    one: each horizon takes its own, and the forecast says so."""
    month = rows({RUN_RATE: [95.0] * 12, SEASONAL_NAIVE: [80.0] * 12})
    year = rows({RUN_RATE: [70.0] * 12, SEASONAL_NAIVE: [110.0] * 12}, horizon="12 months")
    found = Backtest(pd.concat([month, year], ignore_index=True))
    assert found.models == {"month": RUN_RATE, "quarter": RUN_RATE, "12 months": SEASONAL_NAIVE}
    assert found.chosen == RUN_RATE


def test_on_a_season_with_a_recent_step_the_month_and_the_year_take_different_candidates():
    """A 10 % yearly season and a step up by half 100 days before the end: a month ahead, the
    run rate has followed the step within four weeks while the same days a year earlier miss
    it; over 12 months the time of year weighs more than the step, and last year's days carry
    it."""
    day = np.arange(1000)
    weekdays = np.where((FIRST.weekday() + day) % 7 >= 5, 0.3, 1.0)
    season = 1 + 0.1 * np.sin(2 * np.pi * day / 364)
    values = 1000.0 * weekdays * season * np.where(day >= 900, 1.5, 1.0)
    found = backtest(history(values), candidates=CHEAP)
    assert found.models["month"] == RUN_RATE
    assert found.models["12 months"] == SEASONAL_NAIVE


def test_the_served_forecast_is_what_was_chosen_from_the_errors_known_at_each_origin():
    """The run rate is exact for a year, then 50 off; the seasonal naive 30 off, then exact.
    Under six months known the run rate serves; the naive takes over once the run rate's new
    misses (50 each) come within a tenth of the naive's old ones (twelve of 30) over the 24
    months the choice reads: after seven of them, at the origin of August 2025 (350 against
    360, under the naive's margin)."""
    found = Backtest(
        rows({RUN_RATE: [100.0] * 12 + [50.0] * 12, SEASONAL_NAIVE: [70.0] * 12 + [100.0] * 12})
    )
    served = found.served.set_index("origin")["candidate"]
    switch = date(2025, 8, 1)
    assert (served[served.index < switch] == RUN_RATE).all()
    assert (served[served.index >= switch] == SEASONAL_NAIVE).all()
    assert found.chosen == SEASONAL_NAIVE


def test_the_one_accuracy_figure_is_the_served_month_ahead_wape_over_the_last_12_months():
    values = 1000.0 + 10.0 * np.arange(800)  # through 2026-03-09
    found = backtest(history(values), candidates=CHEAP)
    figure = accuracy(found)
    last = found.served[found.served["horizon"] == "month"].tail(12)
    assert figure.months == tuple(last["origin"])
    assert (figure.months[0], figure.months[-1]) == (date(2025, 3, 1), date(2026, 2, 1))
    assert figure.wape == pytest.approx(wape(last))
    assert figure.text == (
        "Month-ahead error (WAPE) over the 12 months 2025-03 to 2026-02, each forecast on its "
        f"first day: {100 * figure.wape:.1f}\u202f%"
    )
    table = found.table().set_index(["candidate", "horizon"])
    assert table.loc[("forecast", "month"), "wape"] == pytest.approx(figure.wape)
    assert table.loc[("forecast", "month"), "scored"] == 12


def test_each_period_names_the_model_serving_it_and_the_forecast_states_them_in_one_sentence():
    """On the season with a recent step: the month to its end is the run rate's, the next 12
    months the seasonal naive's; the sentence beside the forecast says so, with the one
    accuracy figure and the intervals' measured coverage."""
    day = np.arange(1000)
    weekdays = np.where((FIRST.weekday() + day) % 7 >= 5, 0.3, 1.0)
    season = 1 + 0.1 * np.sin(2 * np.pi * day / 364)
    values = 1000.0 * weekdays * season * np.where(day >= 900, 1.5, 1.0)
    series = pd.Series(values, index=pd.date_range(FIRST, periods=1000, freq="D"))
    found = outlook(series, TOTAL_CHARACTERS, FIRST, FIRST + timedelta(days=1000), CHEAP)
    rows = forecast_rows({TOTAL_CHARACTERS: found}, WhatIf()).set_index("period")
    assert rows.loc["month", "model"] == RUN_RATE
    assert rows.loc["next 12 months", "model"] == SEASONAL_NAIVE
    assert found.models == {
        "month": RUN_RATE,
        "quarter": SEASONAL_NAIVE,
        "12 months": SEASONAL_NAIVE,
    }
    said = accuracy_text(found)
    # Each calendar period named as its row is, served by its row's model.
    ends = {kind: f"{end:%Y-%m-%d}" for kind, end in rows["end"].items()}
    models = (
        f"run rate serves the month to {ends['month']}, seasonal naive the quarter to "
        f"{ends['quarter']}, the contract year to {ends['year']} and the next 12 months to "
        f"{ends['next 12 months']}"
    )
    if rows.loc["quarter", "model"] == RUN_RATE:  # a quarter with a month or less to run
        models = (
            f"run rate serves the month to {ends['month']} and the quarter to "
            f"{ends['quarter']}, seasonal naive the contract year to {ends['year']} and the "
            f"next 12 months to {ends['next 12 months']}"
        )
    assert said.startswith(f"{found.accuracy.text}; {models}; its 80 % intervals held in ")
    assert said.endswith(" 12-month periods.") and ". " not in said
    assert (rows["month_wape"] == found.accuracy.wape).all()


def test_how_often_the_intervals_held_is_said_in_counts():
    """Two months measured and neither held reads as that, not as "0.0 % of the months"."""
    figure = Accuracy(
        wape=0.1,
        months=(date(2026, 9, 1), date(2026, 10, 1)),
        coverage={},
        held_80={"month": (0, 2), "quarter": (0, 0), "12 months": (1, 1)},
    )
    assert (
        figure.coverage_text
        == "its 80 % intervals held in 0 of 2 months and 1 of 1 12-month period"
    )
    unmeasured = {"month": (0, 0), "quarter": (0, 0), "12 months": (0, 0)}
    assert Accuracy(0.1, (), {}, unmeasured).coverage_text == (
        "its intervals are not measured yet (too few past errors)"
    )


def test_a_long_backtest_gives_each_origin_the_interval_the_product_serving_then_gives():
    """Forty months: the seasonal naive exact for sixteen, then 20 % off (80 for 100); the run
    rate 40 % off throughout (60). Serving on 2026-05-01 the product backtests from 2024-05
    on: the run rate serves its first six months (fewer scored: ratios 100 ÷ 60), the naive
    the other eighteen (100 ÷ 80). A long backtest states the same interval at that origin,
    though its own naive had served every one of those months from its older record."""
    starts = [date(2023 + m // 12, m % 12 + 1, 1) for m in range(41)]
    found = []
    for i, origin in enumerate(starts):
        for candidate, forecast in ((RUN_RATE, 60.0), (SEASONAL_NAIVE, 100.0 if i < 16 else 80.0)):
            found.append(
                {"candidate": candidate, "horizon": "month", "origin": origin, "end": origin,
                 "raw": forecast, "forecast": forecast, "actual": 100.0}
            )  # fmt: skip
    tested = Backtest(pd.DataFrame(found))
    before = date(2026, 5, 1)
    assert set(tested.served[tested.served["origin"] >= date(2024, 5, 1)]["candidate"]) == {
        SEASONAL_NAIVE
    }
    expected = [1.25] * 18 + [100 / 60] * 6
    assert sorted(tested.interval_ratios("month", before)) == pytest.approx(expected)
