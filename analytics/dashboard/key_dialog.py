"""Which of the Keys & limits page's dialogs is open in this session, and the last change's
outcome to say once: kept in the session, since a dialog stays open across the reruns its own
widgets cause."""

from __future__ import annotations

import streamlit as st

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
