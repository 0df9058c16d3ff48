"""Key rotations on Keys & limits laid out: the dialog that begins one (or, for a leaked key,
deactivates it first and then replaces it), each rotation under way with both keys' days since
it began, and the dialog that finishes one. Given the source, the session's permission and the
day, as the Plan panel is, so the page only places them; the workings are
``keys_and_limits.key_changes``' and ``keys.rotation``'s."""

from __future__ import annotations

from datetime import date
from functools import partial

import streamlit as st

from analytics.dashboard import key_list, visitor
from analytics.dashboard.access import Permission
from analytics.dashboard.column_config import rotation_columns
from analytics.dashboard.keys_and_limits import key_changes, key_dialog
from analytics.dashboard.keys_and_limits.secret_dialog import Making, secret_form
from analytics.dashboard.source import Source
from analytics.keys import MAX_LABEL, KeyRow, Watch, default_label, key_name
from analytics.service import DeveloperKey


@st.dialog("Rotate a key", on_dismiss=key_dialog.close_dialog)
def rotate_dialog(src: Source, rows: list[KeyRow], row: KeyRow, leak: bool, today: date) -> None:
    secret_form(
        "rotate",
        partial(_rotate_form, src, rows, row, leak, today),
        "Copy the new key's secret now: it is shown this once and kept nowhere, not even here.",
    )


def _rotate_form(
    src: Source, rows: list[KeyRow], row: KeyRow, leak: bool, today: date
) -> Making | None:
    """The rotation's label, for a leak the typed label, and its buttons: the rotation asked
    for when the confirming button is pressed with the label matching."""
    key = row.key
    assert key is not None
    if leak:
        st.warning(
            f"**{key_name(key.label, key.key_id)}** is deactivated first, at once and for "
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
    cancel_col.button("Cancel", key="rotate_cancel", on_click=key_dialog.close_dialog)
    name = "Deactivate and replace" if leak else "Rotate"
    if not confirm_col.button(name, type="primary", key="rotate_confirm"):
        return None
    if typed.strip() != key.label.strip():
        st.error("The label does not match: nothing was changed.", icon=":material/block:")
        return None
    acting = visitor.current().permission(key=key)
    return partial(key_changes.rotate, src, acting, rows, row, label, leak, today)


@st.dialog("Finish a rotation", on_dismiss=key_dialog.close_dialog)
def finish_dialog(src: Source, watch: Watch, old: DeveloperKey) -> None:
    st.warning(
        f"Deactivating **{key_name(old.label, old.key_id)}** cannot be undone: every request "
        "with it is refused at once and for good.",
        icon=":material/warning:",
    )
    force = False
    quiet_needed = key_changes.rotations_in_force(src).quiet_days
    if watch.quiet_days < quiet_needed:
        st.error(
            f"{watch.remaining} It has been quiet {watch.quiet_days} of the {quiet_needed} "
            "whole days a finish needs.",
            icon=":material/traffic:",
        )
        force = st.checkbox(
            "Finish anyway: cut off the traffic still seen", key=f"finish_force:{old.key_id}"
        )
    if key_dialog.confirmed_for_good("finish", old) and key_changes.finish(
        src, visitor.current().permission(key=old), watch, old, force
    ):
        key_dialog.close_dialog()
        st.rerun()


def rotations_under_way(
    src: Source, allowed: Permission, today: date, opened: tuple[str, str | None] | None
) -> None:
    """Each rotation under way, its keys' days since it began and how long the old key has been
    quiet, with its Finish button; and the finish dialog when `opened` (the dialog the page
    found open) names one of them and the session may change keys."""
    watches = key_changes.rotations(src, today)
    if watches:
        st.subheader("Rotations under way")
        quiet_needed = key_changes.rotations_in_force(src).quiet_days
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
                f"(analytics' latest closed day). The old key may be deactivated once it has "
                f"been quiet for {quiet_needed} whole days (the alert routes' settings); it has "
                f"been for {watch.quiet_days}."
            )
            st.button(
                "Finish: deactivate the old key…",
                key=f"finish_open_{begun.id}",
                disabled=not allowed.allowed,
                icon=":material/done_all:",
                on_click=key_dialog.open_dialog,
                args=("finish", str(begun.id)),
            )
    if opened and opened[0] == "finish" and allowed.allowed:
        finishing = [w for w in watches if str(w.rotation.id) == opened[1]]
        old_keys = {k.key_id: k for k in key_list.key_list(src)}
        if finishing and finishing[0].rotation.old_key_id in old_keys:
            finish_dialog(src, finishing[0], old_keys[finishing[0].rotation.old_key_id])
