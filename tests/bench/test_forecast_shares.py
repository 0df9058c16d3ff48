"""A generated organization's keys are scored as the product serves them (`bench.forecasts`):
the organization's served forecast times the key's share of the four weeks before each
origin, against the key's own totals, its seasonal naive its own, its interval the product's
for a part (too few errors here: none). Checked on a hand-made organization whose shares and
totals are worked out by hand."""

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from analytics.capacity.forecasting import Backtest
from bench.forecasts import FIRST, LAST, shared_rows

MARCH, APRIL = dt.date(2025, 3, 1), dt.date(2025, 4, 1)


@pytest.fixture(scope="module")
def usage() -> pd.DataFrame:
    """Key 'a' uses 100 characters a day and 300 over the 28 days before April, key 'b' 300
    every day; key 'c' is never used."""
    days = pd.date_range(FIRST, LAST, freq="D")
    late_march = (days >= pd.Timestamp(APRIL) - pd.Timedelta(days=28)) & (
        days < pd.Timestamp(APRIL)
    )
    a = pd.DataFrame({"usage_date": days, "api_key": "a", "total_characters": 100.0})
    a.loc[late_march, "total_characters"] = 300.0
    b = pd.DataFrame({"usage_date": days, "api_key": "b", "total_characters": 300.0})
    return pd.concat([a, b], ignore_index=True)


@pytest.fixture(scope="module")
def organization() -> pd.DataFrame:
    """The organization's served month-ahead rows at two origins (their figures made up)."""
    return pd.DataFrame(
        {
            "candidate": "served",
            "model": "run rate",
            "horizon": "month",
            "origin": [MARCH, APRIL],
            "end": [dt.date(2025, 3, 31), dt.date(2025, 4, 30)],
            "raw": [900.0, 1800.0],
            "actual": [1.0, 1.0],
            "forecast": [1000.0, 2000.0],
            "low_80": [800.0, 1600.0],
            "high_80": [1200.0, 2400.0],
            "low_95": [700.0, 1400.0],
            "high_95": [1400.0, 2800.0],
        }
    )


@pytest.fixture(scope="module")
def tested(organization) -> Backtest:
    """The organization's backtest of those two months: too few errors for any interval."""
    return Backtest(organization.assign(candidate="run rate"))


def test_a_key_takes_its_recent_share_of_the_organizations_forecast(usage, organization, tested):
    rows = shared_rows(organization, usage, "a", tested)
    served = rows[rows["candidate"] == "served"].set_index("origin")
    # A quarter of February's characters, half of the 28 days before April.
    assert served.loc[MARCH, ["raw", "forecast"]].tolist() == [225.0, 250.0]
    assert served.loc[APRIL, ["forecast"]].tolist() == [1000.0]
    assert np.isnan(served[["low_80", "high_80", "low_95", "high_95"]].to_numpy()).all()
    # Its own months: 3 days of March at 100 and 28 at 300; April at 100 a day.
    assert served["actual"].tolist() == [3 * 100 + 28 * 300, 30 * 100]
    assert set(served["model"]) == {"run rate"}


def test_a_key_is_measured_against_its_own_seasonal_naive_from_the_first_scored_origin(
    usage, organization, tested
):
    rows = shared_rows(organization, usage, "a", tested)
    naive = rows[rows["candidate"] != "served"]
    assert set(naive["candidate"]) == {"seasonal naive"}
    assert min(naive["origin"]) == MARCH
    assert (naive["forecast"] == naive["raw"]).all()
    march = naive[(naive["origin"] == MARCH) & (naive["horizon"] == "month")]
    assert march["actual"].tolist() == [3 * 100 + 28 * 300]


def test_a_key_with_no_recent_usage_is_forecast_at_zero_without_an_interval(
    usage, organization, tested
):
    served = shared_rows(organization, usage, "c", tested).query("candidate == 'served'")
    assert served["forecast"].tolist() == [0.0, 0.0]
    assert np.isnan(served[["low_80", "high_80", "low_95", "high_95"]].to_numpy()).all()
