"""Money: what usage costs (prices, spend) and who pays for it (teams, chargeback).

A domain layer beside ``analytics.capacity``: pure (no Streamlit), reading only ``usage``
and ``service``. See docs/architecture.md for its words: price, line item, spend, team,
chargeback.
"""
