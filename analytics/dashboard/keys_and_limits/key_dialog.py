"""Which of the Keys & limits page's dialogs is open in this session, and the last change's
outcome to say once: kept in the session, since a dialog stays open across the reruns its own
widgets cause; and the confirmation a deactivation asks for in its dialog (the key's label
typed), which a click alone never gives."""

from __future__ import annotations

import streamlit as st

from analytics.service import DeveloperKey

# The outcome of the session's last change, said once on the next run (never a secret).
SAID = "keys_said"
# The dialog open in this session ("create" or "deactivate"): a dialog stays open across the
# reruns its own widgets cause, until it is done or dismissed.
DIALOG = "keys_dialog"
# Whether the open dialog made a secret (never the secret): nothing may replace it there.
MADE = "keys_secret_made"


def open_dialog(name: str, key_id: str | None = None) -> None:
    """Open the dialog `name`, bound to the key `key_id` (a deactivation) or to none (a
    create): whatever is chosen meanwhile, the dialog acts on the key it was opened for."""
    st.session_state[DIALOG] = (name, key_id)


def close_dialog() -> None:
    for name in (DIALOG, MADE):
        st.session_state.pop(name, None)


def dialog() -> tuple[str, str | None] | None:  # the open dialog and its key id
    opened = st.session_state.get(DIALOG)
    return opened if isinstance(opened, tuple) else None


def said() -> tuple[str, bool] | None:
    """The last change's outcome, once, and whether it is a failure to say as one."""
    message = st.session_state.pop(SAID, None)
    return message if isinstance(message, tuple) else None


def confirmed_for_good(name: str, key: DeveloperKey) -> bool:
    """Whether "Deactivate for good" was pressed with `key`'s label typed (an error said when
    it differs): a deactivation cannot be undone, so a click alone never makes one."""
    typed = st.text_input("Type the key's label to confirm", key=f"{name}_typed:{key.key_id}")
    confirm_col, cancel_col = st.columns(2)
    cancel_col.button("Cancel", key=f"{name}_cancel", on_click=close_dialog)
    if not confirm_col.button("Deactivate for good", type="primary", key=f"{name}_confirm"):
        return False
    if typed.strip() != key.label.strip():
        st.error("The label does not match: nothing was changed.", icon=":material/block:")
        return False
    return True
