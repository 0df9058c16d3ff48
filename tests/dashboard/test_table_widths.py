"""At a laptop's 1366 px the columns a row is read by are on screen without scrolling sideways:
a budget's status, used share and projection on the Capacity page, a team's costs on the
Chargeback page; and the organization's Total row sits below the teams' rows, never scrolled
away with them."""

from __future__ import annotations

import json

from support.headless import open_clean_page

# The width of a table beside the sidebar in a 1366 × 768 chromium window, as the browser
# test's screenshots show it (x = 380 to 1286).
TABLE_WIDTH = 906


def widths_until(table, last_labels: set[str]) -> int:
    """The width of the table's columns, in its order, through the last of `last_labels`
    (every one of them must be shown, each with a width of its own)."""
    config = json.loads(table.proto.columns)
    order = list(table.proto.column_order)
    labels = [config[column]["label"] for column in order]
    through = max(labels.index(label) for label in last_labels)
    return sum(config[column]["width"] for column in order[: through + 1])


def test_a_budgets_status_shares_and_projection_need_no_sideways_scrolling(demo_env):
    at = open_clean_page("capacity")
    budgets, key_limits = at.dataframe[:2]
    assert len(budgets.value) and len(key_limits.value)
    deciding = {"Status", "Used %", "Projected %", "Projected"}
    assert widths_until(budgets, deciding) <= TABLE_WIDTH
    assert widths_until(key_limits, deciding) <= TABLE_WIDTH


def test_chargeback_costs_fit_and_the_total_row_is_apart(demo_env):
    at = open_clean_page("chargeback", period="Last 90 days")
    teams, total = (table.value for table in at.dataframe)
    currency = "EUR"  # the demo's pricing.example.toml
    deciding = {f"Total cost ({currency})", f"Usage cost ({currency})"}
    for table in at.dataframe:
        assert widths_until(table, deciding) <= TABLE_WIDTH
    assert "Total" not in set(teams["team"])
    assert total["team"].tolist() == ["Total"]
    assert teams["amount"].sum() == total["amount"].iloc[0]  # what the teams add up to
