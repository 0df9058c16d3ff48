"""Language pairs: five years of the pair-day frame against the key-day frame, and the
pair-key-day frame summed over its keys against the pair-day frame."""

from __future__ import annotations

import numpy as np

from analytics.usage import frames
from analytics.usage.metrics import METRICS
from analytics.usage.pipeline import fetch_pair_keys, fetch_pairs
from bench import synthetic_orgs
from bench.fetches import against_key_days
from bench.result_lines import Result, result
from bench.timing import rounded


def pair_fetch(scale: synthetic_orgs.Scale) -> list[Result]:
    """Five years of the pair-day frame (every page of six windows) against five years of the
    key-day frame; each day's pairs must add up to its characters. The pair-key-day frame of
    the same range, fetched once, must be the pair-day frame when summed over its keys."""
    pairs, usage, times, by_key = against_key_days(
        scale, fetch_pairs, "pair_day", also=("pair_key_day", fetch_pair_keys)
    )
    assert by_key is not None
    paired = pairs.frame.groupby("usage_date")["total_characters"].sum()
    organization = usage.frame.groupby("usage_date")["total_characters"].sum()
    # Minutes are floats summed in another order: equal to the last few bits.
    over_keys = frames.pair_frame(by_key.frame, by_day=True)
    direct = frames.pair_frame(pairs.frame, by_day=True)
    days = ["usage_date", *frames.PAIR_COLUMNS]
    return [
        result(
            "pair_fetch",
            times["pair_day"] / times["key_day"],
            2.0,
            {
                "pairs_add_up": bool(paired[paired > 0].equals(organization[organization > 0])),
                "keys_add_up": over_keys[days].equals(direct[days])
                and bool(np.allclose(over_keys[list(METRICS)], direct[list(METRICS)])),
            },
            seconds=rounded(times),
            rows=len(pairs.frame),
            pair_key_day_rows=len(by_key.frame),
            key_day_rows=len(usage.frame),
            windows=pairs.windows_fetched,
        )
    ]
