"""A dialog that makes a key and shows its secret (Create, Rotate, Leaked): once the secret is
made, the dialog offers Copy (the code block's own button) and Done, and nothing else. A second
click on the button that made it, or on any action that would make another key, would replace
the one secret shown by a refusal, and the secret can never be seen again.

The secret is drawn in place of the form that made it and kept in the session's memory
(``key_dialog.MADE``) until the dialog closes, never longer: a second click on the button
that made it reruns the page while the first run is still drawing, and a secret held by that
run alone was lost with it (a double-clicked Rotate showed no secret at all)."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from analytics.dashboard.keys_and_limits import key_dialog

# What a form's button asks for: the change that makes the key and returns its secret (None:
# refused, said on the page).
Making = Callable[[], str | None]


def secret_made() -> bool:
    """Whether the open dialog has made a key whose secret it shows (or showed): every action
    that would make another is off until it closes."""
    return key_dialog.MADE in st.session_state


def secret_form(name: str, form: Callable[[], Making | None], shown_once: str) -> None:
    """The dialog `name`: `form` (its fields and buttons, returning what its button asks for,
    or None) until a key is made, then in its place the secret with `shown_once`, and Done.
    A refusal is said below the form, which stays for another try."""
    if st.session_state.get(f"{name}_done"):
        key_dialog.close_dialog()
        st.rerun()  # the secret leaves the page with the dialog
    made = st.session_state.get(key_dialog.MADE)
    if isinstance(made, str):  # a rerun while the dialog is open: the same secret again
        _shown(name, made, shown_once)
        return
    if made is not None:  # made by a run stopped before it could keep the secret
        st.info(
            "The key was made and its secret shown once: it is kept nowhere, not even here.",
            icon=":material/info:",
        )
        st.button("Done", key=f"{name}_done", type="primary")
        return
    drawn = st.empty()
    with drawn.container():
        making = form()
    if making is None:
        return
    st.session_state[key_dialog.MADE] = True  # set before: a click meanwhile makes none
    secret = making()
    if secret is None:
        st.session_state.pop(key_dialog.MADE, None)
        return
    st.session_state[key_dialog.MADE] = secret  # until the dialog closes
    with drawn.container():
        _shown(name, secret, shown_once)


def _shown(name: str, secret: str, shown_once: str) -> None:
    st.warning(shown_once, icon=":material/warning:")
    st.code(secret, language=None)
    st.button("Done", key=f"{name}_done", type="primary")
