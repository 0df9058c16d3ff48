"""Money: the five-year key-day frame priced and grouped by team (the chargeback) against the
same frame summed per key and month."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analytics.cost.chargeback import chargeback
from analytics.cost.prices import parse_pricing
from analytics.cost.teams import load_teams
from analytics.storage.bundle import bundle_folder
from analytics.usage.metrics import METRICS
from bench import synthetic_orgs
from bench.exports import five_year_usage
from bench.result_lines import Result, result
from bench.timing import medians, rounded

# Prices over the whole five years: a change halfway, a base fee and included volumes, so that
# every rule of the money layer runs.
BENCH_PRICING = """
currency = "EUR"

[[price]]
from = "{first}"
monthly_fee = 250.00
[price.unit_prices]
text_translation_characters = 20.00
document_translation_characters = 25.00
text_improvement_characters = 20.00
speech_to_text_minutes = 0.024
[price.included_per_month]
text_translation_characters = 1_000_000
speech_to_text_minutes = 60

[[price]]
from = "{change}"
monthly_fee = 300.00
[price.unit_prices]
text_translation_characters = 20.00
document_translation_characters = 22.50
text_improvement_characters = 20.00
speech_to_text_minutes = 0.024
speech_to_speech_minutes = 0.06
[price.included_per_month]
text_translation_characters = 2_000_000
"""


def key_months(key_day: pd.DataFrame) -> pd.DataFrame:
    """The usage-only aggregation the chargeback extends: every metric per key and month."""
    month = key_day["usage_date"].to_numpy().astype("datetime64[M]")
    return key_day.groupby(["api_key", month], observed=True)[list(METRICS)].sum()


def chargeback_pricing(scale: synthetic_orgs.Scale) -> list[Result]:
    """The five-year key-day frame priced and grouped by team (teams.example.toml assigned,
    every line priced, shared out and the base fee apportioned: the chargeback) against the
    same frame summed per key and month; both must agree on each month's usage."""
    usage = five_year_usage(scale.keys)
    key_day, start, end = usage.frame, usage.start, usage.end
    change = start + (end - start) / 2
    pricing = parse_pricing(BENCH_PRICING.format(first=start, change=change))
    teams = load_teams(bundle_folder() / "teams.example.toml")
    bill = chargeback(key_day, pricing, teams, start, end)
    per_month = key_months(key_day).groupby(level=1).sum()
    billed = bill.total.set_index("month")[list(METRICS)]
    # Each side takes a tenth of a second: three times the usual rounds steady the medians.
    times = medians(
        {
            "key_months": lambda: key_months(key_day),
            "chargeback": lambda: chargeback(key_day, pricing, teams, start, end),
        },
        3 * scale.repeat,
        warmup=scale.warmup,
    )
    return [
        result(
            "chargeback_pricing",
            times["chargeback"] / times["key_months"],
            1.5,
            {
                "same_usage": bool(np.allclose(per_month.to_numpy(float), billed.to_numpy(float))),
                "teams_add_up": int(bill.table["amount_minor"].sum()) == bill.total_minor,
            },
            seconds=rounded(times),
            rows=len(key_day),
            teams=len(teams.names),
        )
    ]
