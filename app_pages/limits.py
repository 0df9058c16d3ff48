"""Keys & limits: every developer key of the organization with its state and this usage
period's use against its limits, and for one key the actions: rename, set or clear limits,
deactivate; create a key; the audit log of every attempted change."""

from pathlib import Path

import pandas as pd
import streamlit as st

from analytics.alerts.budget_events import in_units
from analytics.capacity.budgets import evaluation_frame
from analytics.dashboard import guardrails, keys_and_limits, page, permissions
from analytics.dashboard.column_config import (
    BUDGET_ORDER,
    audit_columns,
    budget_columns,
    guardrail_columns,
    key_limit_columns,
    rotation_columns,
)
from analytics.dashboard.messages import service_errors, store_errors
from analytics.dashboard.plan import allowance_bar
from analytics.dashboard.scoping import source as data_source
from analytics.dashboard.session import choice_to_address
from analytics.guardrails.plan import Plan
from analytics.guardrails.reading import NoUsagePeriod
from analytics.guardrails.tables import (
    Moment,
    beside_plan,
    blocked_table,
    changes_table,
    headroom_table,
    share_table,
    shown,
    stopping,
    warnings,
)
from analytics.keys.audit import audit_table
from analytics.keys.limits import (
    KeyRow,
    key_counts,
    key_facts,
    key_view_table,
    limits_note,
    shown_limits,
    with_owners,
)
from analytics.keys.preview import (
    MAX_LABEL,
    label_problem,
    limit_preview,
    milliseconds,
    minutes,
    rename_preview,
)
from analytics.keys.rotation import Watch, default_label
from analytics.service.models import DeveloperKey
from analytics.usage import calendar
from analytics.usage.metrics import count_text

source = data_source()
today = calendar.utc_today()
allowed = permissions.permission(source)
title = page.title_row("Keys & limits")


def label_check(label: str, key_id: str | None, where: str) -> tuple[bool, bool]:
    """Whether `label` may be given (an error said when not) and whether it is shared with
    another key, which a checkbox must allow (labels are how usage is joined to keys)."""
    listed_keys = keys_and_limits.key_list(source)
    if hard := label_problem(listed_keys, label, key_id, shared=True):
        st.error(f"{hard.capitalize()}.", icon=":material/block:")
        return False, False
    if duplicate := label_problem(listed_keys, label, key_id):
        st.warning(f"{duplicate.capitalize()}.", icon=":material/warning:")
        shared = st.checkbox("Give this label anyway", key=f"shared:{where}")
        return shared, shared
    return True, False


@st.dialog("Create a key", on_dismiss=keys_and_limits.close_dialog)
def create_dialog() -> None:
    if st.session_state.get("create_done"):
        keys_and_limits.close_dialog()
        st.rerun()  # the secret leaves the page with the dialog
    label = st.text_input(
        "Label", key="create_label", placeholder="e.g. Mobile app (iOS)", max_chars=MAX_LABEL
    )
    ok, shared = label_check(label, None, "create") if label.strip() else (True, False)
    st.caption(
        f"Creates an active key labelled {label.strip()!r}."
        if label.strip()
        else "Without a label the service gives the key its default one."
    )
    create_col, cancel_col = st.columns(2)
    cancel_col.button("Cancel", key="create_cancel", on_click=keys_and_limits.close_dialog)
    if (
        create_col.button("Create", type="primary", key="create_submit", icon=":material/add:")
        and ok
    ):
        secret = keys_and_limits.create(source, allowed, label, shared)
        if secret is not None:
            st.warning(
                "Copy the secret now: it is shown this once and kept nowhere, not even here.",
                icon=":material/warning:",
            )
            st.code(secret, language=None)
            st.button("Done", key="create_done", type="primary")


@st.dialog("Deactivate a key", on_dismiss=keys_and_limits.close_dialog)
def deactivate_dialog(row: KeyRow) -> None:
    key = row.key
    assert key is not None
    st.warning(
        f"Deactivating **{key.label}** (key id `{key.key_id}`) cannot be undone: every "
        "request with it is refused at once and for good, and it can never be activated again.",
        icon=":material/warning:",
    )
    typed = st.text_input("Type the key's label to confirm", key=f"deactivate_typed:{key.key_id}")
    confirm_col, cancel_col = st.columns(2)
    cancel_col.button("Cancel", key="deactivate_cancel", on_click=keys_and_limits.close_dialog)
    if confirm_col.button("Deactivate for good", type="primary", key="deactivate_confirm"):
        if typed.strip() != key.label.strip():
            st.error("The label does not match: nothing was changed.", icon=":material/block:")
        elif keys_and_limits.deactivate(source, permissions.permission(source, key=key), row):
            keys_and_limits.close_dialog()
            st.rerun()


@st.dialog("Rotate a key", on_dismiss=keys_and_limits.close_dialog)
def rotate_dialog(row: KeyRow, leak: bool) -> None:
    if st.session_state.get("rotate_done"):
        keys_and_limits.close_dialog()
        st.rerun()  # the secret leaves the page with the dialog
    key = row.key
    assert key is not None
    if leak:
        st.warning(
            f"**{key.label}** (key id `{key.key_id}`) is deactivated first, at once and for "
            "good: every request with it is refused, before its replacement exists. Then the "
            "replacement is made with its limits.",
            icon=":material/warning:",
        )
    else:
        st.caption(
            f"Makes a replacement of **{key.label}** beside it, with its limits; both work "
            "until you finish the rotation, once the old key is quiet."
        )
    label = st.text_input(
        "The replacement's label",
        value=default_label(key.label, today),
        key=f"rotate_label:{key.key_id}",
        max_chars=MAX_LABEL,
    )
    typed = (
        st.text_input("Type the key's label to confirm", key=f"leak_typed:{key.key_id}")
        if leak
        else key.label
    )
    confirm_col, cancel_col = st.columns(2)
    cancel_col.button("Cancel", key="rotate_cancel", on_click=keys_and_limits.close_dialog)
    name = "Deactivate and replace" if leak else "Rotate"
    if confirm_col.button(name, type="primary", key="rotate_confirm"):
        if typed.strip() != key.label.strip():
            st.error("The label does not match: nothing was changed.", icon=":material/block:")
            return
        acting = permissions.permission(source, key=key)
        secret = keys_and_limits.rotate(source, acting, rows, row, label, leak, today)
        if secret is not None:
            st.warning(
                "Copy the new key's secret now: it is shown this once and kept nowhere, not "
                "even here.",
                icon=":material/warning:",
            )
            st.code(secret, language=None)
            st.button("Done", key="rotate_done", type="primary")


@st.dialog("Finish a rotation", on_dismiss=keys_and_limits.close_dialog)
def finish_dialog(watch: Watch, old: DeveloperKey) -> None:
    st.warning(
        f"Deactivating **{old.label}** (key id `{old.key_id}`) cannot be undone: every request "
        "with it is refused at once and for good.",
        icon=":material/warning:",
    )
    force = False
    quiet_needed = keys_and_limits.rotation_settings(source).quiet_days
    if watch.quiet_days < quiet_needed:
        st.error(
            f"{watch.remaining} It has been quiet {watch.quiet_days} of the {quiet_needed} "
            "whole days a finish needs.",
            icon=":material/traffic:",
        )
        force = st.checkbox(
            "Finish anyway: cut off the traffic still seen", key=f"finish_force:{old.key_id}"
        )
    typed = st.text_input("Type the key's label to confirm", key=f"finish_typed:{old.key_id}")
    confirm_col, cancel_col = st.columns(2)
    cancel_col.button("Cancel", key="finish_cancel", on_click=keys_and_limits.close_dialog)
    if confirm_col.button("Deactivate for good", type="primary", key="finish_confirm"):
        if typed.strip() != old.label.strip():
            st.error("The label does not match: nothing was changed.", icon=":material/block:")
        elif keys_and_limits.finish(
            source, permissions.permission(source, key=old), watch, old, force
        ):
            keys_and_limits.close_dialog()
            st.rerun()


title.button(
    "Create a key…",
    icon=":material/add:",
    disabled=not allowed.allowed,
    key="create_open",
    on_click=keys_and_limits.open_dialog,
    args=("create",),
)
if keys_and_limits.dialog() == ("create", None):
    create_dialog()
st.caption(
    "Every developer key of the organization, used or not, with this usage period's use "
    "(the billing period, through yesterday) against its own limits and the day each limit "
    "is reached at the key's share of the forecast. A key is joined to its usage by the mask "
    "recorded when it was created or changed here, else its key id's mask, else a label no "
    "other key has; "
    "a key that cannot be told apart from another is shown as not matched, never merged."
)
if allowed.refusal:
    st.info(allowed.refusal, icon=":material/visibility:")
if outcome := keys_and_limits.said():
    message, failed = outcome
    if failed:
        st.error(message, icon=":material/error:")
    else:
        st.success(message, icon=":material/check_circle:")

with service_errors(source):
    rows = keys_and_limits.key_view(source, today)
counts = key_counts(rows)
for column, (label, value) in zip(st.columns(len(counts)), counts.items(), strict=True):
    column.metric(label, count_text(value), border=True)
st.dataframe(
    with_owners(shown_limits(key_view_table(rows)), keys_and_limits.teams_in_force(source)),
    hide_index=True,
    column_config=key_limit_columns(),
    key="key_table",
)
st.caption(
    "At most 25 keys are active at once (2 on a free plan). Rows without a key id are usage "
    "of keys the list does not name, such as admin keys."
)


@st.dialog("Restore the keys' own limits", on_dismiss=keys_and_limits.close_dialog)
def restore_dialog(guarded: guardrails.Guarded, restored: pd.DataFrame) -> None:
    st.warning(
        "Every guarded key gets back the limits it had before the guardrails (its hand-set "
        "ones, or none), so the enforced budgets no longer hold. The next apply (the hourly "
        "timer) enforces them again: set enforce = false in the budgets file to end one.",
        icon=":material/warning:",
    )
    table("restore_preview", restored)
    confirm_col, cancel_col = st.columns(2)
    cancel_col.button("Cancel", key="restore_cancel", on_click=keys_and_limits.close_dialog)
    if confirm_col.button("Restore", type="primary", key="restore_confirm") and (
        guardrails.run(source, allowed, guarded, today, "restore")
    ):
        keys_and_limits.close_dialog()
        st.rerun()


@st.dialog("Apply the guardrails' plan", width="large", on_dismiss=keys_and_limits.close_dialog)
def apply_dialog(guarded: guardrails.Guarded, planned: Plan) -> None:
    pending = planned.changes
    st.caption(
        f"{len(pending)} limit change(s), the largest reductions first. Sent as `guardrails "
        "apply` sends them: planned again from the key list of the moment, lowered before "
        "raised, each audited as the guardrail's."
    )
    if flagged := warnings(pending):
        st.warning(
            "Look before sending:\n" + "\n".join(f"- {line}" for line in flagged),
            icon=":material/warning:",
        )
    table("apply_preview", changes_table(pending))
    confirm_col, cancel_col = st.columns(2)
    cancel_col.button("Cancel", key="apply_cancel", on_click=keys_and_limits.close_dialog)
    if confirm_col.button(
        f"Apply {len(pending)} change(s)", type="primary", key="apply_confirm"
    ) and guardrails.run(source, allowed, guarded, today, "apply"):
        keys_and_limits.close_dialog()
        st.rerun()


def table(key: str, frame: pd.DataFrame) -> None:
    """A guardrails table, its limits written out and each column explained in its header."""
    st.dataframe(shown(frame), hide_index=True, column_config=guardrail_columns(frame), key=key)


BLOCKED_SAID: dict[Moment, tuple[str, str]] = {
    "now": ("Blocked now, by the limits in force", "No key is blocked by the limits in force now."),
    "planned": ("Would be blocked after Apply now", "No key would be blocked after Apply now."),
}


def blocked_keys(planned: Plan, moment: Moment) -> None:
    """The keys a limit stops at one moment, the count named by the moment."""
    stopped = blocked_table(planned, moment)
    heading, none = BLOCKED_SAID[moment]
    if stopped.empty:
        st.caption(none)
        return
    st.markdown(f"**{heading}: {len(stopped)}**")
    table(f"guardrail_blocked_{moment}", stopped)


def guardrails_section() -> None:
    """Each enforced budget held by the keys' own limits, and for key admins its actions."""
    files = guardrails.files_in_force(source)
    guarded, problem = guardrails.read_files(files)
    if problem:
        st.error(problem, icon=":material/error:")
        return
    assert guarded is not None
    if guarded.budgets is None or not guarded.budgets.enforced:
        st.caption(
            f"No budget is enforced: mark one `enforce = true` in {files.name} (the "
            "organization's, a team's or a key's total characters, minutes or cost over the "
            "usage period) and run `guardrails apply` hourly. See docs/guardrails.md."
        )
        return
    try:
        with service_errors(source):
            planned = guardrails.plan(source, files, today)
            evaluations = guardrails.status(source, files, today)
    except NoUsagePeriod as exc:
        st.info(f"No budget can be enforced: {exc}.", icon=":material/info:")
        return
    st.caption(
        f"The enforced budgets of {files.name}, held by each key's own limit, which the "
        "service enforces on its live counters; the usage period "
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
    st.markdown("**Keys under a guardrail**")
    table("guardrail_keys", headroom_table(planned))
    pending = planned.changes
    blocked_keys(planned, "now")
    if pending:
        blocked_keys(planned, "planned")
    st.markdown(f"**Pending changes, sent by Apply now: {len(pending)}**")
    if pending:
        table("guardrail_changes", changes_table(pending))
    st.caption(guardrails.last_run_text(guardrails.last_run(source)))
    if not allowed.allowed:
        return
    if guardrails.records(source) is None:
        st.caption(
            "Apply and restore need a state store (SERVICE_HISTORY_PATH or SERVICE_STATE_URL), "
            "where the keys' own limits are remembered."
        )
        return
    apply_col, restore_col = st.columns(2)
    apply_col.button(
        f"Apply now ({len(pending)} change(s))…",
        key="guardrails_apply",
        type="primary",
        icon=":material/shield:",
        disabled=not pending,
        on_click=keys_and_limits.open_dialog,
        args=("apply",),
    )
    restore_col.button(
        "Restore…",
        key="guardrails_restore",
        icon=":material/settings_backup_restore:",
        on_click=keys_and_limits.open_dialog,
        args=("restore",),
    )
    if keys_and_limits.dialog() == ("apply", None) and pending:
        apply_dialog(guarded, planned)
    if keys_and_limits.dialog() == ("restore", None):
        titles = frozenset(b.title for b in guarded.budgets.enforced)
        restored = guardrails.restored_keys(source, files, today, titles)
        restore_dialog(guarded, changes_table(restored))


section = st.expander(
    "Guardrails", key=guardrails.SECTION, bind="query-params", icon=":material/shield:"
)
if section.open:  # planned only when shown
    with section, store_errors():
        guardrails_section()

listed = [row for row in rows if row.key is not None]

if not listed:
    st.info("The organization has no developer keys yet.", icon=":material/key_off:")
    st.stop()

st.subheader("One key")
by_id = {row.key.key_id: row for row in listed if row.key is not None}
names = {key_id: f"{row.joined.label} · {row.shown_id}" for key_id, row in by_id.items()}
keys_and_limits.choose(listed, source)
chosen = st.selectbox(
    "Key",
    list(by_id),
    format_func=names.__getitem__,
    key=keys_and_limits.CHOSEN,
    on_change=choice_to_address,
    args=(keys_and_limits.CHOSEN,),
)
row = by_id[chosen]
key = row.key
assert key is not None
st.markdown(key_facts(row))
for allowance in (row.characters, row.speech):
    if allowance is None:
        st.caption("Usage not matched to this key: its use against the limits is unknown.")
        break
    allowance_bar(allowance, of="this usage period")
if row.joined.api_key:
    st.page_link(
        Path(__file__).with_name("keys.py"),
        label=f"Usage of {key.label}",
        icon=":material/key:",
        query_params={"key": row.joined.api_key},
    )

# Every widget below is keyed by the key and its state: choosing another key, or a change
# from anywhere, shows that key's own values, never those typed for another.
this = keys_and_limits.bound(key)
for_key = permissions.permission(source, key=key)  # a team's key administrator: its keys only
changeable = for_key.allowed and not key.is_deactivated
rename_col, limits_col = st.columns(2, gap="large")
with rename_col.container(border=True):
    st.markdown("**Rename**")
    new_label = st.text_input(
        "New label", value=key.label, key=f"rename_label:{this}", max_chars=MAX_LABEL
    )
    renamed = rename_preview(key, new_label)
    ok, shared = label_check(new_label, key.key_id, this) if renamed.changes else (True, False)
    st.caption(f"Preview: {renamed.text}.")
    # Enabled by who may act, never by what is typed: a value typed is sent as its input loses
    # focus, to the very click on the button, which a button disabled until then would lose.
    if (
        st.button(
            "Rename",
            key=f"rename_save:{this}",
            disabled=not for_key.allowed,
            icon=":material/edit:",
        )
        and keys_and_limits.worth_sending(renamed, ok)
        and keys_and_limits.rename(source, for_key, row, renamed, shared)
    ):
        st.rerun()

with limits_col.container(border=True):
    st.markdown("**Limits per usage period**")
    limits = key.usage_limits
    no_characters = st.checkbox(
        "No character limit", value=limits.characters is None, key=f"no_characters:{this}"
    )
    characters = st.number_input(
        "Characters",
        min_value=0,
        value=limits.characters or 0,
        step=10_000,
        disabled=no_characters,
        key=f"limit_characters:{this}",
    )
    no_speech = st.checkbox(
        "No speech-to-text limit",
        value=limits.speech_to_text_milliseconds is None,
        key=f"no_speech:{this}",
    )
    speech = st.number_input(
        "Speech-to-text minutes",
        min_value=0.0,
        value=minutes(limits.speech_to_text_milliseconds) or 0.0,
        step=10.0,
        disabled=no_speech,
        key=f"limit_minutes:{this}",
    )
    planned = limit_preview(
        key,
        None if no_characters else int(characters),
        None if no_speech else milliseconds(speech),
    )
    st.caption(f"Preview: {planned.text}. {limits_note(row)}")
    if (
        st.button(
            "Save limits",
            key=f"limits_save:{this}",
            disabled=not changeable,
            icon=":material/tune:",
        )
        and keys_and_limits.worth_sending(planned)
        and keys_and_limits.limit(source, for_key, row, planned)
    ):
        st.rerun()

deactivate_col, rotate_col, leak_col = st.columns(3)
deactivate_col.button(
    "Deactivate…",
    icon=":material/block:",
    disabled=not changeable,
    key="deactivate_open",
    on_click=keys_and_limits.open_dialog,
    args=("deactivate", key.key_id),
)
rotate_col.button(
    "Rotate…",
    icon=":material/autorenew:",
    disabled=not changeable,
    key="rotate_open",
    on_click=keys_and_limits.open_dialog,
    args=("rotate", key.key_id),
)
leak_col.button(
    "Leaked: deactivate now and replace…",
    icon=":material/emergency_home:",
    disabled=not changeable,
    key="leak_open",
    on_click=keys_and_limits.open_dialog,
    args=("leak", key.key_id),
)
opened = keys_and_limits.dialog()
if (
    opened
    and opened[1] in by_id
    and permissions.permission(source, key=by_id[opened[1]].key).allowed
):
    if opened[0] == "deactivate":
        deactivate_dialog(by_id[opened[1]])
    elif opened[0] in ("rotate", "leak"):
        rotate_dialog(by_id[opened[1]], leak=opened[0] == "leak")

watches = keys_and_limits.rotations(source, today)
if watches:
    st.subheader("Rotations under way")
    quiet_needed = keys_and_limits.rotation_settings(source).quiet_days
for watch in watches:
    begun = watch.rotation
    with st.container(border=True, key=f"rotation_panel_{begun.id}"):
        st.markdown(
            f"**Rotation {begun.id}: {begun.old_label} → {begun.new_label}** · begun "
            f"{begun.started:%Y-%m-%d %H:%M} UTC by {begun.who}"
        )
        st.markdown(watch.remaining)
        st.dataframe(
            watch.days,
            hide_index=True,
            column_config=rotation_columns(),
            key=f"rotation_days_{begun.id}",
        )
        st.caption(
            f"Each day's use of both keys since the rotation began, through {watch.through} "
            f"(analytics' latest closed day). The old key may be deactivated once it has been "
            f"quiet for {quiet_needed} whole days (the alert routes' settings); it has been "
            f"for {watch.quiet_days}."
        )
        st.button(
            "Finish: deactivate the old key…",
            key=f"finish_open_{begun.id}",
            disabled=not allowed.allowed,
            icon=":material/done_all:",
            on_click=keys_and_limits.open_dialog,
            args=("finish", str(begun.id)),
        )
if opened and opened[0] == "finish" and allowed.allowed:
    finishing = [w for w in watches if str(w.rotation.id) == opened[1]]
    old_keys = {k.key_id: k for k in keys_and_limits.key_list(source)}
    if finishing and finishing[0].rotation.old_key_id in old_keys:
        finish_dialog(finishing[0], old_keys[finishing[0].rotation.old_key_id])

st.subheader("Audit log")
entries = keys_and_limits.audit_entries(source)
if entries:
    st.dataframe(
        audit_table(entries).iloc[::-1],
        hide_index=True,
        column_config=audit_columns(),
        key="audit_table",
    )
    st.caption(
        "Every attempted change, newest first; also `python -m analytics keys audit`. "
        "Kept in the state store, which cannot be fetched again: back it up."
    )
else:
    st.caption("No key has been changed from here or the command line yet.")
