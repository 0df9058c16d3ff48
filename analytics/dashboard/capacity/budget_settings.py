"""The budgets the Capacity page uses: an upload, or the budgets in force (the settings every
surface reads, as the `report` command does), and their status, the one answer `check-budgets`
prints."""

from __future__ import annotations

from datetime import date

import msgspec
import streamlit as st

from analytics.capacity import BudgetSettings, BudgetSettingsError, Evaluation, budget_status
from analytics.cost import PricesInForce, frame_key_teams
from analytics.dashboard import data
from analytics.dashboard.settings_in_force import page_settings
from analytics.dashboard.source import Source
from analytics.dashboard.uploads import UploadedFile
from analytics.dashboard.view import View
from analytics.settings import Texts


def chosen_budgets(
    uploaded: UploadedFile | None, src: Source
) -> tuple[BudgetSettings | None, str | None]:
    """The budgets document in force (an upload, else the settings'), whose contract year
    every scope reads (``Visible.budgets`` gives the budgets a scope sees of it), and the
    problem that stopped reading it, if any."""
    settings = page_settings(src).named("where")  # as a command names them
    try:
        if uploaded is not None:
            text = uploaded.getvalue().decode("utf-8")
            settings = settings.with_text("budgets", text, uploaded.name)
        return settings.budgets_as_written, None
    except (BudgetSettingsError, UnicodeDecodeError) as exc:
        return None, str(exc)


# Kept as long as the plan it reads: the plan budgets move with the service's counts.
@st.cache_data(
    ttl=data.PLAN_TTL,
    max_entries=4,
    show_spinner=False,
    # Streamlit cannot hash a msgspec struct itself: the file's content names it.
    hash_funcs={BudgetSettings: msgspec.json.encode},
)
def _status(
    fingerprint: str,
    today: date,
    budgets: BudgetSettings,
    settings: Texts,
    plan_budgets: bool,
    _source: Source,
    _view: View,
) -> list[Evaluation]:
    prices = None if _view.pricing is None else PricesInForce(_view.pricing, _view.teams)
    by_team = frame_key_teams(_view.teams)
    reader = data.Cached(_source)
    return budget_status(reader, budgets, today, prices, by_team, plan_budgets=plan_budgets)[0]


def budget_statuses(
    src: Source, budgets: BudgetSettings, today: date, view: View, plan_budgets: bool
) -> list[Evaluation]:
    """Every budget's status as of `today`, from the answer `check-budgets` prints
    (`budget_status`), priced with `view`'s documents, a team budget over its teams' keys. Without
    `plan_budgets` (the Plan panel could not read the plan) the plan budgets are left out
    rather than asked of a failing service again."""
    return _status(src.fingerprint, today, budgets, view.key, plan_budgets, src, view)
