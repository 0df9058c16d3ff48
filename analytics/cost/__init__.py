"""Money: what usage costs (prices, spend) and who pays for it (teams, chargeback).

A domain layer beside ``analytics.capacity``: pure (no Streamlit), reading only ``usage``
and ``service``. See docs/architecture.md for its words: price, line item, spend, team,
chargeback. The organization's lines (``lines``) are shared out as line items (``spend``);
``priced`` lays them out for the pages.
"""

from analytics.cost.chargeback import Chargeback, chargeback, chargeback_rows, team_spend
from analytics.cost.money import amount_text, as_decimal
from analytics.cost.priced import CostTile, PricesInForce, cost_tiles, price_key_day
from analytics.cost.prices import (
    Pricing,
    PricingFileError,
    Unpriced,
    load_pricing,
    parse_pricing,
    unpriced_text,
)
from analytics.cost.spend import Spend, base_fees, price_usage
from analytics.cost.teams import TeamFileError, Teams, load_teams, parse_teams, team_day

__all__ = [
    "Chargeback",
    "CostTile",
    "PricesInForce",
    "Pricing",
    "PricingFileError",
    "Spend",
    "TeamFileError",
    "Teams",
    "Unpriced",
    "amount_text",
    "as_decimal",
    "base_fees",
    "chargeback",
    "chargeback_rows",
    "cost_tiles",
    "load_pricing",
    "load_teams",
    "parse_pricing",
    "parse_teams",
    "price_key_day",
    "price_usage",
    "team_day",
    "team_spend",
    "unpriced_text",
]
