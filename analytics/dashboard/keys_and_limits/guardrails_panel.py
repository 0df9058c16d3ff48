"""The Guardrails section of Keys & limits laid out: the enforced budgets' status beside the
plan's own limit, how each is shared out, the keys under a guardrail and those blocked, the
changes pending and the last run, and for a key administrator **Apply now** and **Restore**,
each from its confirmation dialog. Given the source, the session's permission and the day, as
the Plan panel is, so the page only places the section; the workings (the plan cached a
minute, the runs) are ``dashboard.guardrails``'."""

from __future__ import annotations

from datetime import date

import pandas as pd
import streamlit as st

from analytics.access import Scope
from analytics.alerts import in_units
from analytics.capacity import Evaluation, evaluation_frame
from analytics.dashboard import guardrails
from analytics.dashboard.access import Permission
from analytics.dashboard.column_config import BUDGET_ORDER, budget_columns, guardrail_columns
from analytics.dashboard.keys_and_limits import key_changes, key_dialog
from analytics.dashboard.messages import service_errors
from analytics.dashboard.plan_panel import plan_withheld
from analytics.dashboard.settings_in_force import view_settings
from analytics.dashboard.source import Source
from analytics.guardrails import (
    Moment,
    NoUsagePeriod,
    Plan,
    beside_plan,
    blocked_table,
    changes_table,
    headroom_table,
    share_table,
    shown,
    stopping,
    warnings,
)
from analytics.settings import SettingsInForce
from analytics.usage import counted

BLOCKED_SAID: dict[Moment, tuple[str, str]] = {
    "now": ("Blocked now, by the limits in force", "No key is blocked by the limits in force now."),
    "planned": ("Would be blocked after Apply now", "No key would be blocked after Apply now."),
}


def table(key: str, frame: pd.DataFrame) -> None:
    """A guardrails table, its limits written out and each column explained in its header."""
    st.dataframe(shown(frame), hide_index=True, column_config=guardrail_columns(frame), key=key)


def blocked_keys(planned: Plan, moment: Moment) -> None:
    """The keys a limit stops at one moment, the count named by the moment."""
    stopped = blocked_table(planned, moment)
    heading, none = BLOCKED_SAID[moment]
    if stopped.empty:
        st.caption(none)
        return
    st.markdown(f"**{heading}: {len(stopped)}**")
    table(f"guardrail_blocked_{moment}", stopped)


def ran(done: str | None) -> None:
    """After a run of the guardrails: what it did (None: refused or stopped, said in the
    dialog, which stays open) said once on the next run, the dialog closed, the page drawn
    again from the key list read anew."""
    if done is None:
        return
    key_changes.changed(done)
    key_dialog.close_dialog()
    st.rerun()


@st.dialog("Restore the keys' own limits", on_dismiss=key_dialog.close_dialog)
def restore_dialog(
    src: Source,
    allowed: Permission,
    guarded: SettingsInForce,
    restored: pd.DataFrame,
    today: date,
) -> None:
    st.warning(
        "Every guarded key gets back the limits it had before the guardrails (its hand-set "
        "ones, or none), so the enforced budgets no longer hold. The next apply (the hourly "
        "timer) enforces them again: set enforce = false in the budgets file to end one.",
        icon=":material/warning:",
    )
    table("restore_preview", restored)
    confirm_col, cancel_col = st.columns(2)
    cancel_col.button("Cancel", key="restore_cancel", on_click=key_dialog.close_dialog)
    if confirm_col.button("Restore", type="primary", key="restore_confirm"):
        ran(guardrails.run(src, allowed, guarded, today, "restore"))


@st.dialog("Apply the guardrails' plan", width="large", on_dismiss=key_dialog.close_dialog)
def apply_dialog(
    src: Source, allowed: Permission, guarded: SettingsInForce, planned: Plan, today: date
) -> None:
    pending = planned.changes
    st.caption(
        f"{counted(len(pending), 'limit change')}, the largest reductions first. Sent as "
        "`guardrails apply` sends them: planned again from the key list of the moment, lowered "
        "before raised, each audited as the guardrail's."
    )
    if flagged := warnings(pending):
        st.warning(
            "Look before sending:\n" + "\n".join(f"- {line}" for line in flagged),
            icon=":material/warning:",
        )
    table("apply_preview", changes_table(pending))
    confirm_col, cancel_col = st.columns(2)
    cancel_col.button("Cancel", key="apply_cancel", on_click=key_dialog.close_dialog)
    if confirm_col.button(
        f"Apply {counted(len(pending), 'change')}", type="primary", key="apply_confirm"
    ):
        ran(guardrails.run(src, allowed, guarded, today, "apply"))


def enforced_settings(guarded: SettingsInForce) -> SettingsInForce | None:
    """The settings, read, when some budget is enforced; None (the reason said) when one
    cannot be read or nothing is enforced, since then there is no plan to show."""
    if problem := guardrails.problem(guarded):
        st.error(problem, icon=":material/error:")
        return None
    if guarded.budgets is None or not guarded.budgets.enforced:
        st.caption(
            f"No budget is enforced: mark one `enforce = true` in {guarded.name('budgets')} (the "
            "organization's, a team's or a key's total characters, minutes or cost over the "
            "usage period) and run `guardrails apply` hourly. See docs/guardrails.md."
        )
        return None
    return guarded


def budgets_held(
    guarded: SettingsInForce,
    planned: Plan,
    evaluations: list[Evaluation],
    scope: Scope,
) -> None:
    """Each enforced budget's status beside the plan's own limit and how it is shared out: what
    the limits are there to hold, before the keys that hold it; a team's scope, its own."""
    if not (planned.whole or evaluations or planned.shares or planned.refusals):
        st.caption(f"None of the enforced budgets ({guarded.name('budgets')}) is {scope.name}'s.")
        return
    st.caption(
        f"The enforced budgets ({guarded.name('budgets')}), held by each key's own limit, "
        "which the service enforces on its live counters; the usage period "
        f"{planned.period.text}, closed days through yesterday."
    )
    for line in [*planned.refusals, *stopping(planned)]:
        st.warning(line, icon=":material/block:")
    currency = guarded.pricing.currency if guarded.pricing else ""
    st.dataframe(
        in_units(evaluation_frame(evaluations, currency)).drop(
            columns=["scope", "metric", "overrun"]
        ),
        hide_index=True,
        column_order=BUDGET_ORDER,
        column_config=budget_columns(),
        key="guardrail_budgets",
    )
    for line in beside_plan(planned):
        st.caption(line)
    table("guardrail_shares", share_table(planned))


def keys_guarded(planned: Plan) -> None:
    """The keys under a guardrail, those blocked now and after Apply now, and the changes it
    would send: what a key administrator weighs before acting."""
    st.markdown("**Keys under a guardrail**")
    table("guardrail_keys", headroom_table(planned))
    pending = planned.changes
    blocked_keys(planned, "now")
    if pending:
        blocked_keys(planned, "planned")
    st.markdown(f"**Pending changes, sent by Apply now: {len(pending)}**")
    if pending:
        table("guardrail_changes", changes_table(pending))


def actions(
    src: Source,
    allowed: Permission,
    guarded: SettingsInForce,
    planned: Plan,
    today: date,
) -> None:
    """Apply now and Restore for a key administrator, each opening its confirmation; both need
    a state store, where the keys' own limits are remembered."""
    if guardrails.records(src) is None:
        st.caption(
            "Apply and restore need a state store (SERVICE_HISTORY_PATH or SERVICE_STATE_URL), "
            "where the keys' own limits are remembered."
        )
        return
    pending = planned.changes
    apply_col, restore_col = st.columns(2)
    apply_col.button(
        f"Apply now ({counted(len(pending), 'change')})…",
        key="guardrails_apply",
        type="primary",
        icon=":material/shield:",
        disabled=not pending,
        on_click=key_dialog.open_dialog,
        args=("apply",),
    )
    restore_col.button(
        "Restore…",
        key="guardrails_restore",
        icon=":material/settings_backup_restore:",
        on_click=key_dialog.open_dialog,
        args=("restore",),
    )
    if key_dialog.dialog() == ("apply", None) and pending:
        apply_dialog(src, allowed, guarded, planned, today)
    if key_dialog.dialog() == ("restore", None):
        assert guarded.budgets is not None  # enforced_settings returned it with budgets enforced
        titles = frozenset(b.title for b in guarded.budgets.enforced)
        restored = guardrails.restored_keys(src, guarded, today, titles)
        restore_dialog(src, allowed, guarded, changes_table(restored), today)


def guardrails_section(src: Source, allowed: Permission, today: date) -> None:
    """Each enforced budget held by the keys' own limits, and for key admins its actions."""
    guarded = enforced_settings(view_settings(src))
    if guarded is None:
        return
    try:
        with service_errors(src):
            planned = guardrails.plan(src, guarded, today)
            evaluations = guardrails.status(src, guarded, today)
    except NoUsagePeriod as exc:
        st.info(f"No budget can be enforced: {exc}.", icon=":material/info:")
        return
    if not src.visible.scope.whole:  # said once, in the Plan panel's words
        st.caption(plan_withheld(src.visible.scope))
    budgets_held(guarded, planned, evaluations, src.visible.scope)
    keys_guarded(planned)
    st.caption(guardrails.last_run_text(guardrails.last_run(src)))
    if allowed.allowed:
        actions(src, allowed, guarded, planned, today)
