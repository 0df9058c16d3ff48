"""Keys & limits: every developer key of the organization with its state and this usage
period's use against its limits, and for one key the actions: rename, set or clear limits,
deactivate; create a key; the audit log of every attempted change."""

from functools import partial

import streamlit as st

from analytics.dashboard import (
    allowance_bar,
    audit_columns,
    choice_to_address,
    guardrails_panel,
    key_dialog,
    key_limit_columns,
    keys_and_limits,
    page,
    rotation_panel,
    secret_dialog,
    service_errors,
    store_errors,
    visitor,
)
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

here = visitor.current()  # who acts, and what they may change
source = here.source
today = calendar.utc_today()
allowed = here.permission()
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


def create_form() -> secret_dialog.Making | None:
    """The new key's label and the buttons: the create asked for by Create, a label allowed."""
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
    cancel_col.button("Cancel", key="create_cancel", on_click=key_dialog.close_dialog)
    if (
        create_col.button("Create", type="primary", key="create_submit", icon=":material/add:")
        and ok
    ):
        return partial(keys_and_limits.create, source, allowed, label, shared)
    return None


@st.dialog("Create a key", on_dismiss=key_dialog.close_dialog)
def create_dialog() -> None:
    secret_dialog.secret_form(
        "create",
        create_form,
        "Copy the secret now: it is shown this once and kept nowhere, not even here.",
    )


@st.dialog("Deactivate a key", on_dismiss=key_dialog.close_dialog)
def deactivate_dialog(row: KeyRow) -> None:
    key = row.key
    assert key is not None
    st.warning(
        f"Deactivating **{key_name(key.label, key.key_id)}** cannot be undone: every "
        "request with it is refused at once and for good, and it can never be activated again.",
        icon=":material/warning:",
    )
    if keys_and_limits.confirmed_for_good("deactivate", key) and keys_and_limits.deactivate(
        source, here.permission(key=key), row
    ):
        key_dialog.close_dialog()
        st.rerun()


making = secret_dialog.secret_made()  # a dialog shows a secret: nothing may replace it
title.button(
    "Create a key…",
    icon=":material/add:",
    disabled=not allowed.allowed or making,
    key="create_open",
    on_click=key_dialog.open_dialog,
    args=("create",),
)
if key_dialog.dialog() == ("create", None):
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
if outcome := key_dialog.said():
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
    named_keys(
        with_owners(shown_limits(key_view_table(rows)), keys_and_limits.teams_in_force(source))
    ),
    hide_index=True,
    column_config=key_limit_columns(),
    key="key_table",
)
st.caption(
    "At most 25 keys are active at once (2 on a free plan). Each key is named by its label "
    "and masked key id; a label alone is usage of a key the list does not name, such as an "
    "admin key."
)

section = st.expander(
    page_at("limits").section(GUARDRAILS_SECTION),
    key=GUARDRAILS_SECTION,
    bind="query-params",
    icon=":material/shield:",
)
if section.open:  # planned only when shown
    with section, store_errors():
        guardrails_panel.guardrails_section(source, allowed, today)

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
        page_at("keys").file,
        label=f"Usage of {key.label}",
        icon=":material/key:",
        query_params={"key": row.joined.api_key},
    )

# Every widget below is keyed by the key and its state: choosing another key, or a change
# from anywhere, shows that key's own values, never those typed for another.
this = keys_and_limits.bound(key)
for_key = here.permission(key=key)  # a team's key administrator: its keys only
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
    # Enabled by who may act on an active key, never by what is typed: a value typed is sent as
    # its input loses focus, to the very click on the button, which a disabled one would lose.
    if (
        st.button(
            "Rename",
            key=f"rename_save:{this}",
            disabled=not changeable,
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

# The chosen key's dialogs, side by side: each one's name (its button's key), label and icon.
KEY_DIALOGS = (
    ("deactivate", "Deactivate…", ":material/block:"),
    ("rotate", "Rotate…", ":material/autorenew:"),
    ("leak", "Leaked: deactivate now and replace…", ":material/emergency_home:"),
)
for column, (dialog, label, icon) in zip(st.columns(len(KEY_DIALOGS)), KEY_DIALOGS, strict=True):
    column.button(
        label,
        icon=icon,
        disabled=not changeable or making,
        key=f"{dialog}_open",
        on_click=key_dialog.open_dialog,
        args=(dialog, key.key_id),
    )
opened = key_dialog.dialog()
if opened and opened[1] in by_id and here.permission(key=by_id[opened[1]].key).allowed:
    if opened[0] == "deactivate":
        deactivate_dialog(by_id[opened[1]])
    elif opened[0] in ("rotate", "leak"):
        rotation_panel.rotate_dialog(source, rows, by_id[opened[1]], opened[0] == "leak", today)

rotation_panel.rotations_under_way(source, allowed, today, opened)

st.subheader("Audit log")
entries = keys_and_limits.audit_entries(source)
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
