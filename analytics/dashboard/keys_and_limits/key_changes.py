"""The Keys & limits page's workings between runs: the key shown (from the address, else the
session's choice), the suffix that binds a form to a key's state, the audit log the scope
sees, the rotations under way, and the changes themselves, each audited, the key list dropped
after each (``dashboard.key_list``) and its outcome said once on the next run.

A change runs only from a button or a form's submit in this session, never from a URL: the
URL chooses which key is shown, nothing more. A new key's secret lives in one run's local
variable and the dialog's code element: it is not kept in the session, a cache, the audit log
or the URL, and it is gone from the page when the dialog closes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import date
from functools import partial
from typing import TypeVar

import streamlit as st

from analytics.alerts import AlertSettingsError, Rotations
from analytics.dashboard import data, key_list
from analytics.dashboard.access import Permission
from analytics.dashboard.keys_and_limits import key_dialog
from analytics.dashboard.messages import show_error, show_store_error
from analytics.dashboard.session import choice_in_address, chosen_range
from analytics.dashboard.settings_in_force import page_settings, settings_place
from analytics.dashboard.source import Source
from analytics.guardrails import memory as guardrail_state
from analytics.keys import (
    AuditEntry,
    KeyNotFound,
    KeyRow,
    Preview,
    changes,
    key_name,
    pick,
    rotation,
)
from analytics.service import DeveloperKey, ServiceError
from analytics.settings import carry_over
from analytics.storage import StoreError

T = TypeVar("T")
# The key chosen: the choice box's widget key and the address's parameter, a key id.
CHOSEN = "key"


def audit_entries(src: Source) -> list[AuditEntry]:
    """The audit log's entries of the keys the session's scope sees (a team's lead reads
    its keys' entries, and no entry of a key it does not see, not even a refused create)."""
    entries = key_list.all_entries(src)
    if src.visible.scope.whole:
        return entries
    seen = {key.key_id for key in key_list.key_list(src)}
    return [entry for entry in entries if entry.key_id in seen]


def rotations_in_force(src: Source) -> Rotations:
    """The rotations' watch in force (the alert routes' ``[rotations]``: the quiet days a
    finish needs, among them); a document that cannot be read is said, and the defaults
    hold."""
    try:
        return page_settings(src).rotations
    except AlertSettingsError as exc:
        st.warning(f"{exc}; the rotations' defaults hold.", icon=":material/settings_alert:")
        return Rotations()


def choose(rows: list[KeyRow], src: Source) -> str:
    """The key id shown: the address's `key` (a key id, or a link's mask or unique label),
    else the session's choice, else the first listed key; another scope's key refused."""
    ids = [row.key.key_id for row in rows if row.key is not None]

    def outside(asked: str) -> bool:
        """Another team's key, by key id, masked key or label."""
        chosen = chosen_range()
        others = {key.key_id for key in key_list.organization_keys(src)} - set(ids)
        return asked in others or asked in data.unseen_keys(src, chosen.start, chosen.end)

    def named(asked: str) -> str | None:
        return chosen_key(rows, asked)

    return choice_in_address(CHOSEN, ids, named, outside, src.visible.scope)


def bound(key: DeveloperKey) -> str:
    """The suffix of every widget acting on `key`: its key id and its current state, so a
    form never carries another key's values, nor this key's values from before a change."""
    limits = key.usage_limits
    state = f"{key.label}|{limits.characters}|{limits.speech_to_text_milliseconds}"
    digest = hashlib.blake2s(f"{state}|{key.is_deactivated}".encode(), digest_size=6)
    return f"{key.key_id}:{digest.hexdigest()}"


def changed(message: str, failed: bool = False) -> None:
    """Drop the key list and what is read from it (a change was made, here or by the
    guardrails), and say ``message`` once on the next run (`failed`: a change made whose
    sequel failed)."""
    key_list.dropped()
    st.session_state[key_dialog.SAID] = (message, failed)


def worth_sending(planned: Preview, allowed_label: bool = True) -> bool:
    """Whether a form's change, read as its button was clicked, is sent: a change that
    changes nothing is said instead, and a label refused is already said above its form.
    The forms' buttons are enabled whatever is typed (the value typed reaches the page with
    the click itself), so the check is made here, on the values the click sent."""
    if not planned.changes:
        st.info(f"Nothing was sent: {planned.text}.", icon=":material/info:")
        return False
    return allowed_label


def _refused(exc: ServiceError, src: Source) -> None:
    """A refused change in words about the change (a 403 here is the service's rule, such as
    the 25-active-key limit, not a wrong SERVICE_AUTH_KEY)."""
    if isinstance(exc, changes.UnknownOutcome):
        st.warning(str(exc).capitalize() + ".", icon=":material/help:")
    elif exc.status is not None and exc.status < 500:
        st.error(f"The service refused the change: {exc}", icon=":material/block:")
    else:
        show_error(exc, src)


def _listed(row: KeyRow) -> DeveloperKey:
    if row.key is None:
        raise ValueError(f"{row.joined.label} is not a listed key: it cannot be changed")
    return row.key


def chosen_key(rows: list[KeyRow], asked: str | None) -> str | None:
    """The key id a link asks for (by key id, masked key or unique label); None for none."""
    if not asked:
        return None
    try:
        found = pick([row.joined for row in rows], asked)
    except KeyNotFound:
        return None
    return None if found.key is None else found.key.key_id


def _attempt(src: Source, change: Callable[[], tuple[T, str]]) -> T | None:
    """Make a change, which returns its result and what to say of it; None when the service
    refused it (said on the page)."""
    try:
        result, message = change()
    except (changes.LabelRefused, changes.NotAllowed) as exc:
        said = str(exc)
        st.error(f"{said[:1].upper()}{said[1:]}: nothing was changed.", icon=":material/block:")
        return None
    except ServiceError as exc:
        _refused(exc, src)
        return None
    except changes.AuditNotKept as exc:  # made, so the list is read again; said as it is
        changed(f"{str(exc).capitalize()}.")
        return None
    except (rotation.RotationRefused, rotation.StillInUse) as exc:
        said = str(exc)  # names keys by label: only its first letter raised, none lowered
        st.error(f"{said[:1].upper()}{said[1:]}: nothing was changed.", icon=":material/block:")
        return None
    except rotation.ReplacementFailed as exc:  # the old key is gone: read the list again
        changed(f"{exc}.", failed=True)
        key_dialog.close_dialog()
        st.rerun()
    except StoreError as exc:
        st.error(f"Nothing was changed: {exc}.", icon=":material/database:")
        return None
    changed(message)
    return result


def create(src: Source, allowed: Permission, label: str, shared: bool = False) -> str | None:
    """Create a key and return its secret (to be shown this once); None when refused."""

    def change() -> tuple[str | None, str]:
        made = changes.create(
            key_list.actor(src, allowed), label, key_list.organization_keys(src), shared
        ).key
        return made.key, f"Created {key_name(made.label, made.key_id)}."

    return _attempt(src, change)


def rename(
    src: Source, allowed: Permission, row: KeyRow, planned: Preview, shared: bool = False
) -> bool:
    """Make the planned rename of `row`'s key; False when refused (said on the page)."""

    def change() -> tuple[bool, str]:
        acting = key_list.actor(src, allowed)
        changes.rename(acting, planned, key_list.organization_keys(src), shared, row.joined.api_key)
        return True, f"Saved: {planned.text}."

    return _attempt(src, change) is not None


def limit(src: Source, allowed: Permission, row: KeyRow, planned: Preview) -> bool:
    """Set the planned limits of `row`'s key; False when refused (said on the page)."""

    def change() -> tuple[bool, str]:
        changes.limit(key_list.actor(src, allowed), planned, row.joined.api_key)
        return True, f"Saved: {planned.text}."

    return _attempt(src, change) is not None


def deactivate(src: Source, allowed: Permission, row: KeyRow) -> bool:
    key = _listed(row)

    def change() -> tuple[bool, str]:
        changes.deactivate(key_list.actor(src, allowed), key, row.joined.api_key)
        return True, f"Deactivated {key.label}: every request with it is refused from now on."

    return _attempt(src, change) is not None


def rotation_log(src: Source) -> rotation.RotationLog | None:
    """The account's rotations; None without a state store."""
    log = key_list.audit_log(src)
    return None if log is None else rotation.RotationLog(log.records)


def rotations(src: Source, today: date) -> list[rotation.Watch]:
    """Every rotation under way, watched as of `today` (read on every run, as the audit log
    is: another session may have begun or finished one); a store that cannot be read is a
    warning, and none."""
    log = rotation_log(src)
    if log is None:
        return []
    try:
        kept = log.read()
    except StoreError as exc:
        show_store_error(exc)
        return []
    reader = key_list.key_reader(src)
    return [rotation.watched(reader, r, today) for r in kept if r.state == "watching"]


def rotate(
    src: Source,
    allowed: Permission,
    rows: list[KeyRow],
    row: KeyRow,
    label: str,
    leak: bool,
    today: date,
) -> str | None:
    """Begin rotating `row`'s key (`leak`: deactivate it first) and return the replacement's
    secret, to be shown this once; None when refused (said on the page)."""
    log = rotation_log(src)
    if log is None:
        st.error("Rotations need a state store (SERVICE_HISTORY_PATH or SERVICE_STATE_URL).")
        return None

    inherit = partial(guardrail_state.inherit, log.records)

    def change() -> tuple[str, str]:
        acting = key_list.actor(src, allowed)
        if leak:
            made = rotation.leaked(acting, log, rows, row, label, inherit)
            said = (
                f"Deactivated {made.rotation.old_label} and made "
                f"{key_name(made.rotation.new_label, made.rotation.new_key_id or '')}."
            )
        else:
            made = rotation.rotate(acting, log, rows, row, label, today, inherit)
            said = (
                f"Rotation {made.rotation.id}: made "
                f"{key_name(made.rotation.new_label, made.rotation.new_key_id or '')} with "
                f"{made.rotation.old_label}'s limits."
            )
        teams = carry_over(settings_place(src), made.rotation, acting.who)
        return made.secret, said if teams is None else f"{said} {teams[:1].upper()}{teams[1:]}."

    return _attempt(src, change)


def finish(
    src: Source, allowed: Permission, watched: rotation.Watch, old: DeveloperKey, force: bool
) -> bool:
    """Finish a rotation: its old key deactivated; False when refused (said on the page)."""
    log = rotation_log(src)
    assert log is not None  # a rotation was read from it

    def change() -> tuple[bool, str]:
        quiet = rotations_in_force(src).quiet_days
        done = rotation.finish(key_list.actor(src, allowed), log, watched, old, quiet, force=force)
        forced = " (forced)" if done.forced else ""
        return True, f"Rotation {done.id} finished{forced}: deactivated {old.label}."

    return _attempt(src, change) is not None
