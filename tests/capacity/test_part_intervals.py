"""A part of the organization (a key, a team) is projected as its share of the organization's
forecast, and its interval comes from its own errors so projected: a key strays from its
share further than a thousand keys from their forecast. Checked against ratios worked out
here from the served rows and the part's own days."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from analytics.capacity.forecasting import backtest, interval_shares, projection_path
from analytics.capacity.forecasting.candidates import RUN_RATE, SEASONAL_NAIVE, History
from analytics.usage.metrics import TOTAL_CHARACTERS

FIRST = date(2022, 1, 1)
DAYS = 1200
CHEAP = (RUN_RATE, SEASONAL_NAIVE)


def organization() -> tuple[np.ndarray, np.ndarray]:
    """The whole's days (gamma noise) and one key's: its share of each month drawn anew,
    between 5 % and 35 %."""
    rng = np.random.default_rng(7)
    whole = rng.gamma(4.0, 250.0, size=DAYS)
    months = pd.date_range(FIRST, periods=DAYS, freq="D").to_period("M")
    share = pd.Series(rng.uniform(0.05, 0.35, size=months.nunique()), index=months.unique())
    return whole, whole * share.reindex(months).to_numpy()


def by_hand(served: pd.DataFrame, whole: np.ndarray, part: np.ndarray) -> list[float]:
    """The part's ratios actual ÷ (its share of the 28 days before the origin × the served
    forecast), row by row."""
    found = []
    for row in served.itertuples():
        start = (row.origin - FIRST).days
        stop = (row.end - FIRST).days + 1
        share = part[max(0, start - 28) : start].sum() / whole[max(0, start - 28) : start].sum()
        found.append(part[start:stop].sum() / (share * row.raw))
    return found


def test_a_part_at_a_fixed_share_errs_as_the_whole():
    whole, _ = organization()
    tested = backtest(History(FIRST, whole), candidates=CHEAP)
    for horizon in ("month", "quarter"):
        served = tested.served[tested.served["horizon"] == horizon]
        own = sorted(tested.shared_ratios(History(FIRST, whole), 0.25 * whole, horizon))
        assert own == pytest.approx(sorted(served["actual"] / served["raw"]))


def test_a_parts_ratios_are_its_own_share_projected():
    whole, part = organization()
    tested = backtest(History(FIRST, whole), candidates=CHEAP)
    served = tested.served[tested.served["horizon"] == "month"]
    own = tested.shared_ratios(History(FIRST, whole), part, "month")
    assert own == pytest.approx(by_hand(served, whole, part))
    # Known before an origin: the rows that had ended, within the 24 origins before it.
    before = served["origin"].iloc[-1]
    known = served[served["end"] < before]
    assert tested.shared_ratios(History(FIRST, whole), part, "month", before) == pytest.approx(
        by_hand(known, whole, part)
    )


def test_a_keys_projection_reads_its_own_errors_and_is_wider_than_its_share():
    whole, part = organization()
    days = pd.date_range(FIRST, periods=DAYS, freq="D")
    key_day = pd.concat(
        [
            pd.DataFrame({"usage_date": days, "api_key": "k", TOTAL_CHARACTERS: part}),
            pd.DataFrame({"usage_date": days, "api_key": "rest", TOTAL_CHARACTERS: whole - part}),
        ],
        ignore_index=True,
    )
    as_of = FIRST + timedelta(days=DAYS)
    month = (as_of, date(as_of.year, as_of.month + 1, 1) - timedelta(days=1))
    key = projection_path(key_day, TOTAL_CHARACTERS, month, as_of, FIRST, ["k"]).iloc[-1]
    org = projection_path(key_day, TOTAL_CHARACTERS, month, as_of, FIRST).iloc[-1]
    tested = backtest(History(FIRST, whole))
    served = tested.served[tested.served["horizon"] == "month"]
    shares = interval_shares(by_hand(served, whole, part))
    assert (key["low"], key["high"]) == pytest.approx(
        (key["expected"] * shares[1], key["expected"] * shares[2])
    )
    # The key's range, relative to its projection, is wider than the organization's.
    assert (key["high"] - key["low"]) / key["expected"] > (org["high"] - org["low"]) / org[
        "expected"
    ]
