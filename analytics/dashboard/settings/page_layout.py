"""The Settings page laid out: each document in a tab of its own, shown with its version; for
settings administrators an editor, a preview of each change with its effect, Save, the
conflict when someone saved meanwhile, and the history with Restore. Every widget of the page
is here; what an edit is and does between runs is `edits`'."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from analytics.cost import TeamSettingsError
from analytics.dashboard import settings_in_force
from analytics.dashboard.access import SETTINGS, Permission
from analytics.dashboard.messages import service_errors, store_errors
from analytics.dashboard.settings import edits
from analytics.dashboard.source import Source
from analytics.dashboard.visitor import Visitor
from analytics.settings import (
    PARTS,
    TITLES,
    Document,
    Part,
    Place,
    SavedMeanwhile,
    SettingsInForce,
    Version,
    history,
    line_diff,
)
from analytics.usage import counted


@dataclass(frozen=True)
class Editing:
    """What every section of the page reads, worked out once at its top: the source, where
    the settings are kept, and whether the visitor may save (as whom, or why not)."""

    source: Source
    place: Place
    allowed: Permission

    @property
    def editable(self) -> bool:
        """Whether the page offers an editor: settings kept in the store, and the right."""
        return self.place.in_store and self.allowed.allowed


def settings_page(here: Visitor) -> None:
    """The page for ``here``, this run's visitor (who saves, and whether they may): its
    title, what it offers them, and a tab per document."""
    source = here.source
    page = Editing(source, edits.place(source), here.permission(SETTINGS))
    header(page)
    documents = st.tabs([TITLES[part] for part in PARTS], key="settings_document")
    for part, tab in zip(PARTS, documents, strict=True):
        with tab, store_errors():
            part_section(page, part)


def header(page: Editing) -> None:
    """The title, and why the settings are read-only here, or how an edit is saved."""
    place, allowed = page.place, page.allowed
    # Listed only for a scope of the whole organization (`pages.listed`): the settings are
    # every team's documents in one.
    st.title("Settings")
    if place.source == "files":
        st.info(
            "SETTINGS_SOURCE=files: each setting is read from its file, named below, and shown "
            "read-only. Edit the files, or unset SETTINGS_SOURCE to keep the settings in the "
            "state store and change them here.",
            icon=":material/description:",
        )
    elif place.records is None:
        st.info(
            "No state store: the settings are read from the files found beside the dashboard and "
            "shown read-only. Set SERVICE_HISTORY_PATH or SERVICE_STATE_URL to keep them here.",
            icon=":material/database:",
        )
    elif not allowed.allowed:
        st.info(allowed.refusal, icon=":material/lock:")
    else:
        st.caption(
            "Each change is checked by the rules of its file, previewed with its effect, and saved "
            "as a new version with who and when; every earlier version is kept and can be restored."
        )


def key_owners(settings: SettingsInForce) -> None:
    """The teams document's key owners, as the Keys pages show them beside each key."""
    try:
        teams = settings.given_teams
    except TeamSettingsError:
        return
    if teams is not None and (owners := teams.owners):
        st.markdown("**Key owners**")
        st.dataframe(
            pd.DataFrame(
                [(o.key, o.owner, o.purpose) for o in owners], columns=["key", "owner", "purpose"]
            ),
            hide_index=True,
            key="settings_key_owners",
        )


def show_conflict(part: Part) -> None:
    """A save refused as someone saved meanwhile: their version against the text typed, line
    by line, and the way on: take theirs and re-apply the text typed, previewed anew."""
    conflict = edits.conflict_of(part)
    if conflict is None:
        return
    theirs = conflict.theirs
    st.error(str(conflict), icon=":material/group:")
    mine = st.session_state.get(edits.text_key(part), "")
    st.markdown(f"**Version {theirs.number} ({edits.version_text(theirs)}) against yours**")
    changed = line_diff(theirs.text, mine, f"version {theirs.number}", "yours")
    st.code(changed or "(the same text)", language="diff", wrap_lines=True)
    st.button(
        "Take theirs and re-apply mine",
        key=f"settings_take_theirs_{part}",
        icon=":material/merge:",
        help=f"Your text, kept, as an edit of version {theirs.number}: previewed against it.",
        on_click=edits.take_theirs,
        args=(part, theirs),
    )


def check_and_preview(source: Source, part: Part, text: str, base: int, before: str | None) -> None:
    """The edit checked (its file's rules, and the names it gives) and kept for Save."""
    edits.drop_pending(part)
    with service_errors(source):
        if wrong := edits.problem(source, part, text, before):
            st.error(wrong, icon=":material/error:")
            return
        edits.preview(edits.Pending(part, text, base))


def show_preview(page: Editing, part: Part, kept: list[Version]) -> None:
    """The edit previewed against the version it was made from: each field, the effect, and
    Save, enabled once the preview of exactly the text shown is complete."""
    pending = edits.pending_of(part)
    if pending is None:
        return
    before = next((v.text for v in kept if v.number == pending.base), None)
    source = page.source
    assert page.place.records is not None
    with st.container(border=True):
        restoring = "" if pending.restoring is None else f" (restoring version {pending.restoring})"
        st.markdown(f"**Preview against version {pending.base}{restoring}**")
        lines = edits.field_changes(before, pending)
        if not lines:
            st.caption("No field changes: nothing to save.")
            return
        # Wrapped: a line cut at the box's edge would hide its after (a key's new limit).
        st.code("\n".join(lines), language=None, wrap_lines=True)
        if warned := edits.warning(part, pending.text):
            st.warning(warned, icon=":material/notifications_off:")
        with service_errors(source):
            effects = edits.effect(source, pending, before)
            edits.previewed(pending)
        if effects:
            st.markdown("**Its effect**")
            st.code("\n".join(effects), language=None, wrap_lines=True)
        ready = edits.savable(pending)
        if not ready:
            st.caption("The text changed since this preview: press Preview again to save it.")
        if st.button(
            "Save",
            key=f"settings_save_{part}",
            type="primary",
            icon=":material/save:",
            disabled=not ready,
        ):
            save_previewed(page, pending)


def save_previewed(page: Editing, pending: edits.Pending) -> None:
    """Save, only for a preview complete for the text shown (a click on a stale Save refused)."""
    assert page.place.records is not None
    if not edits.savable(pending):
        st.error(
            "The preview is not of the text shown: nothing was saved.", icon=":material/block:"
        )
        return
    try:
        edits.save_pending(page.place.records, pending, page.allowed)
    except PermissionError as exc:
        st.error(f"{exc} Nothing was saved.", icon=":material/block:")
    except SavedMeanwhile:
        st.rerun()  # the conflict is shown above the preview, with the way on
    else:
        st.rerun()


def read_only(source: Source, part: Part, found: Document | None) -> None:
    """A document as it is read, where the page offers no editor."""
    if found is not None:
        st.caption(f"Read-only, from {found.name}. {part}.example.toml explains every field.")
        st.code(found.text, language="toml")
        if part == "teams":
            key_owners(settings_in_force.page_settings(source))


def part_section(page: Editing, part: Part) -> None:
    """One document: read-only, or its editor, preview and history."""
    source = page.source
    found = settings_in_force.page_settings(source).document(part)
    example = f"{part}.example.toml"
    if found is None:
        st.caption(f"None in force. {example} explains every field.")
    if not page.editable:
        read_only(source, part, found)
        return
    assert page.place.records is not None
    kept = history(page.place.records, part)
    latest = kept[0] if kept else None
    if saved := st.session_state.get(edits.SAVED, {}).pop(part, None):
        st.success(saved, icon=":material/check:")
    if latest is not None:
        st.caption(f"In force: {edits.version_text(latest)}.")
        if latest.author == "first start":
            st.caption(f"Imported once from {latest.file} at the first start; not read since.")
        if part == "teams":
            key_owners(settings_in_force.page_settings(source).with_text("teams", latest.text))
    edits.start_edit(part, latest)
    base = st.session_state[edits.base_key(part)]
    if latest is not None and base != latest.number and edits.conflict_of(part) is None:
        st.warning(
            f"You are editing version {base}; {edits.version_text(latest)} since.",
            icon=":material/group:",
        )
    if edits.unsaved(part, latest):
        st.info(
            f"Unsaved edit of version {base}: kept while you visit other pages, until you "
            "save it or press Start again.",
            icon=":material/edit_note:",
        )
    show_conflict(part)
    edited = f"version {base}" if base else "a new document"
    st.text_area(
        f"{TITLES[part]}: your edit of {edited} ({example} explains every field)",
        key=edits.text_key(part),
        height=320,
        on_change=edits.keep_draft,
        args=(part,),
    )
    left, right = st.columns(2)
    clicked = left.button("Preview", key=f"settings_preview_{part}", icon=":material/preview:")
    if clicked or edits.repreview(part):
        base_text = next((v.text for v in kept if v.number == base), None)
        check_and_preview(source, part, st.session_state[edits.text_key(part)], base, base_text)
    right.button(
        "Start again",
        key=f"settings_again_{part}",
        icon=":material/undo:",
        on_click=edits.forget_edit,
        args=(part,),
        help="Drop your edit: the text of the version in force.",
    )
    show_preview(page, part, kept)
    versions_kept(part, kept, latest)


def versions_kept(part: Part, kept: list[Version], latest: Version | None) -> None:
    """Every saved version of a part, newest first, and an earlier one offered for restoring:
    a restore is previewed and saved as a new version, as an edit is."""
    with st.expander(f"History: {counted(len(kept), 'version')}", icon=":material/history:"):
        st.dataframe(
            pd.DataFrame(
                [(v.number, f"{v.saved_at:%Y-%m-%d %H:%M}", v.origin) for v in kept],
                columns=["version", "saved (UTC)", "by"],
            ),
            hide_index=True,
            key=f"settings_history_{part}",
        )
        earlier = kept[1:]
        if latest is not None and earlier:
            chosen = st.selectbox(
                "Version", [v.number for v in earlier], key=f"settings_restore_choice_{part}"
            )
            old = next(v for v in earlier if v.number == chosen)
            st.button(
                "Preview restoring it",
                key=f"settings_restore_{part}",
                icon=":material/restore:",
                on_click=edits.restore,
                args=(old, latest),
            )
