"""The Keys & limits page laid out: every developer key of the organization with its state and
this usage period's use against its limits, the Guardrails section, and for one key the
actions (rename, set or clear limits, deactivate, rotate), Create a key, and the audit log of
every attempted change. Every widget of the page is here or in the panels it places
(``guardrails_panel``, ``rotation_panel``); what a change is and does is ``key_changes``'."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import partial

import streamlit as st

from analytics.dashboard import key_list, page
from analytics.dashboard.access import Permission
from analytics.dashboard.column_config import audit_columns, key_limit_columns
from analytics.dashboard.keys_and_limits import (
    guardrails_panel,
    key_changes,
    key_dialog,
    rotation_panel,
    secret_dialog,
)
from analytics.dashboard.messages import service_errors, store_errors
from analytics.dashboard.plan_panel import allowance_bar
from analytics.dashboard.session import choice_to_address
from analytics.dashboard.source import Source
from analytics.dashboard.visitor import Visitor
from analytics.keys import (
    MAX_LABEL,
    KeyRow,
    audit_table,
    key_counts,
    key_facts,
    key_name,
    key_view_table,
    label_problem,
    limit_preview,
    limits_note,
    milliseconds,
    minutes,
    named_keys,
    rename_preview,
    shown_limits,
    with_owners,
)
from analytics.pages import GUARDRAILS_SECTION, page_at
from analytics.usage import calendar, count_text

# The chosen key's dialogs, side by side: each one's name (its button's key), label and icon.
KEY_DIALOGS = (
    ("deactivate", "Deactivate…", ":material/block:"),
    ("rotate", "Rotate…", ":material/autorenew:"),
    ("leak", "Leaked: deactivate now and replace…", ":material/emergency_home:"),
)


@dataclass(frozen=True)
class Acting:
    """What every part of the page reads, worked out once at its top: this run's visitor (who
    acts, and what they may change), the source they read, the day, their permission over
    keys, and whether a dialog shows a secret (nothing may replace it then)."""

    here: Visitor
    source: Source
    today: date
    allowed: Permission
    making: bool


def limits_page(here: Visitor) -> None:
    """The page for ``here``, this run's visitor: its title and Create a key, the key table,
    the Guardrails section, the chosen key with its actions, and the audit log."""
    made = secret_dialog.secret_made()
    acting = Acting(here, here.source, calendar.utc_today(), here.permission(), made)
    title = page.title_row("Keys & limits")
    title.button(
        "Create a key…",
        icon=":material/add:",
        disabled=not acting.allowed.allowed or acting.making,
        key="create_open",
        on_click=key_dialog.open_dialog,
        args=("create",),
    )
    if key_dialog.dialog() == ("create", None):
        create_dialog(acting)
    introduction(acting.allowed)
    with service_errors(acting.source):
        rows = key_list.key_view(acting.source, acting.today)
    key_table(acting.source, rows)
    guardrails_section(acting)
    listed = [row for row in rows if row.key is not None]
    if not listed:
        st.info("The organization has no developer keys yet.", icon=":material/key_off:")
        st.stop()
    one_key(acting, rows, listed)
    audit_log(acting.source)


def introduction(allowed: Permission) -> None:
    """What the table shows, why the visitor may not change keys (when not), and the last
    change's outcome, said once."""
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
    if outcome := key_dialog.said():
        message, failed = outcome
        if failed:
            st.error(message, icon=":material/error:")
        else:
            st.success(message, icon=":material/check_circle:")


def key_table(src: Source, rows: list[KeyRow]) -> None:
    """The keys counted in tiles, and every key's row with its owner and limits."""
    counts = key_counts(rows)
    for column, (label, value) in zip(st.columns(len(counts)), counts.items(), strict=True):
        column.metric(label, count_text(value), border=True)
    st.dataframe(
        named_keys(with_owners(shown_limits(key_view_table(rows)), key_list.teams_in_force(src))),
        hide_index=True,
        column_config=key_limit_columns(),
        key="key_table",
    )
    st.caption(
        "At most 25 keys are active at once (2 on a free plan). Each key is named by its label "
        "and masked key id; a label alone is usage of a key the list does not name, such as an "
        "admin key."
    )


def guardrails_section(acting: Acting) -> None:
    """The Guardrails section, opened from the address, and planned only when shown."""
    section = st.expander(
        page_at("limits").section(GUARDRAILS_SECTION),
        key=GUARDRAILS_SECTION,
        bind="query-params",
        icon=":material/shield:",
    )
    if section.open:  # planned only when shown
        with section, store_errors():
            guardrails_panel.guardrails_section(acting.source, acting.allowed, acting.today)


def label_check(src: Source, label: str, key_id: str | None, where: str) -> tuple[bool, bool]:
    """Whether `label` may be given (an error said when not) and whether it is shared with
    another key, which a checkbox must allow (labels are how usage is joined to keys)."""
    listed_keys = key_list.key_list(src)
    if hard := label_problem(listed_keys, label, key_id, shared=True):
        st.error(f"{hard.capitalize()}.", icon=":material/block:")
        return False, False
    if duplicate := label_problem(listed_keys, label, key_id):
        st.warning(f"{duplicate.capitalize()}.", icon=":material/warning:")
        shared = st.checkbox("Give this label anyway", key=f"shared:{where}")
        return shared, shared
    return True, False


def create_form(acting: Acting) -> secret_dialog.Making | None:
    """The new key's label and the buttons: the create asked for by Create, a label allowed."""
    label = st.text_input(
        "Label", key="create_label", placeholder="e.g. Mobile app (iOS)", max_chars=MAX_LABEL
    )
    src = acting.source
    ok, shared = label_check(src, label, None, "create") if label.strip() else (True, False)
    st.caption(
        f"Creates an active key labelled {label.strip()!r}."
        if label.strip()
        else "Without a label the service gives the key its default one."
    )
    create_col, cancel_col = st.columns(2)
    cancel_col.button("Cancel", key="create_cancel", on_click=key_dialog.close_dialog)
    if (
        create_col.button("Create", type="primary", key="create_submit", icon=":material/add:")
        and ok
    ):
        return partial(key_changes.create, src, acting.allowed, label, shared)
    return None


@st.dialog("Create a key", on_dismiss=key_dialog.close_dialog)
def create_dialog(acting: Acting) -> None:
    secret_dialog.secret_form(
        "create",
        partial(create_form, acting),
        "Copy the secret now: it is shown this once and kept nowhere, not even here.",
    )


@st.dialog("Deactivate a key", on_dismiss=key_dialog.close_dialog)
def deactivate_dialog(acting: Acting, row: KeyRow) -> None:
    key = row.key
    assert key is not None
    st.warning(
        f"Deactivating **{key_name(key.label, key.key_id)}** cannot be undone: every "
        "request with it is refused at once and for good, and it can never be activated again.",
        icon=":material/warning:",
    )
    if key_dialog.confirmed_for_good("deactivate", key) and key_changes.deactivate(
        acting.source, acting.here.permission(key=key), row
    ):
        key_dialog.close_dialog()
        st.rerun()


def one_key(acting: Acting, rows: list[KeyRow], listed: list[KeyRow]) -> None:
    """The chosen key: its facts and use, Rename and its limits side by side, its dialogs,
    and the rotations under way."""
    st.subheader("One key")
    by_id = {row.key.key_id: row for row in listed if row.key is not None}
    row = chosen_row(acting.source, listed, by_id)
    key = row.key
    assert key is not None
    # Every widget below is keyed by the key and its state: choosing another key, or a change
    # from anywhere, shows that key's own values, never those typed for another.
    this = key_changes.bound(key)
    for_key = acting.here.permission(key=key)  # a team's key administrator: its keys only
    changeable = for_key.allowed and not key.is_deactivated
    rename_col, limits_col = st.columns(2, gap="large")
    with rename_col.container(border=True):
        rename_form(acting.source, row, for_key, this, changeable)
    with limits_col.container(border=True):
        limits_form(acting.source, row, for_key, this, changeable)
    for column, (dialog, label, icon) in zip(
        st.columns(len(KEY_DIALOGS)), KEY_DIALOGS, strict=True
    ):
        column.button(
            label,
            icon=icon,
            disabled=not changeable or acting.making,
            key=f"{dialog}_open",
            on_click=key_dialog.open_dialog,
            args=(dialog, key.key_id),
        )
    opened = key_dialog.dialog()
    if opened and opened[1] in by_id and acting.here.permission(key=by_id[opened[1]].key).allowed:
        if opened[0] == "deactivate":
            deactivate_dialog(acting, by_id[opened[1]])
        elif opened[0] in ("rotate", "leak"):
            leak = opened[0] == "leak"
            rotation_panel.rotate_dialog(acting.source, rows, by_id[opened[1]], leak, acting.today)
    rotation_panel.rotations_under_way(acting.source, acting.allowed, acting.today, opened)


def chosen_row(src: Source, listed: list[KeyRow], by_id: dict[str, KeyRow]) -> KeyRow:
    """The key chosen (from the address, else the session's choice, else the first listed),
    its facts, its use against its limits, and a link to its usage."""
    names = {key_id: f"{row.joined.label} · {row.shown_id}" for key_id, row in by_id.items()}
    key_changes.choose(listed, src)
    chosen = st.selectbox(
        "Key",
        list(by_id),
        format_func=names.__getitem__,
        key=key_changes.CHOSEN,
        on_change=choice_to_address,
        args=(key_changes.CHOSEN,),
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
            page_at("keys").file,
            label=f"Usage of {key.label}",
            icon=":material/key:",
            query_params={"key": row.joined.api_key},
        )
    return row


def rename_form(src: Source, row: KeyRow, for_key: Permission, this: str, changeable: bool) -> None:
    """The new label, its preview and Rename."""
    key = row.key
    assert key is not None
    st.markdown("**Rename**")
    new_label = st.text_input(
        "New label", value=key.label, key=f"rename_label:{this}", max_chars=MAX_LABEL
    )
    renamed = rename_preview(key, new_label)
    ok, shared = label_check(src, new_label, key.key_id, this) if renamed.changes else (True, False)
    st.caption(f"Preview: {renamed.text}.")
    change_button(
        "Rename",
        f"rename_save:{this}",
        ":material/edit:",
        changeable,
        lambda: (
            key_changes.worth_sending(renamed, ok)
            and key_changes.rename(src, for_key, row, renamed, shared)
        ),
    )


def limits_form(src: Source, row: KeyRow, for_key: Permission, this: str, changeable: bool) -> None:
    """The key's limits per usage period, each to set or clear, their preview and Save."""
    key = row.key
    assert key is not None
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
    change_button(
        "Save limits",
        f"limits_save:{this}",
        ":material/tune:",
        changeable,
        lambda: (
            key_changes.worth_sending(planned) and key_changes.limit(src, for_key, row, planned)
        ),
    )


def change_button(
    label: str, key: str, icon: str, changeable: bool, change: Callable[[], bool]
) -> None:
    """A form's button, which makes its `change` when clicked and runs the page again once the
    change is made. It is enabled by who may act on an active key, never by what is typed: a
    value typed is sent as its input loses focus, to the very click on the button, which a
    disabled one would lose."""
    if st.button(label, key=key, disabled=not changeable, icon=icon) and change():
        st.rerun()


def audit_log(src: Source) -> None:
    """Every attempted change the visitor's scope sees, newest first."""
    st.subheader("Audit log")
    entries = key_changes.audit_entries(src)
    if entries:
        st.dataframe(
            named_keys(audit_table(entries)).iloc[::-1],
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
