"""The Keys & limits dialogs that show a secret, and the actions a key's state leaves: once a
secret is shown, its dialog offers Copy and Done alone and nothing on the page can make
another key; a deactivated key offers no change. Checked against the emulator's store and the
state store, never against the page's own code."""

from __future__ import annotations

from support import kept
from support.headless import open_page
from test_key_actions import stored
from test_limits_page import ident


def rotations(tmp_path) -> int:
    """How many rotations the state store holds."""
    return len(kept.rows(tmp_path / "history", "SELECT rotation FROM key_rotations"))


def keyed(at) -> dict:
    """The run's buttons by their widget key."""
    return {button.key: button for button in at.button}


def test_a_rotation_secret_shown_cannot_be_replaced(changed_demo, tmp_path):
    at = open_page("limits")
    old_id = ident("Finance reporting")
    at.selectbox(key="key").set_value(old_id).run()
    at.button(key="rotate_open").click().run()
    at.button(key="rotate_confirm").click().run()
    assert not at.exception and not at.error
    [code] = at.code
    assert len(code.value) > 8
    # The dialog offers Done alone (Copy is the code block's own): no Rotate to press again.
    assert "rotate_confirm" not in keyed(at) and "rotate_done" in keyed(at)
    assert rotations(tmp_path) == 1
    at.run()  # any later run while the dialog is open (a second click): the same secret
    assert not at.exception and not at.error
    assert [shown.value for shown in at.code] == [code.value]
    assert "rotate_confirm" not in keyed(at)
    assert all(keyed(at)[name].disabled for name in ("create_open", "rotate_open", "leak_open"))
    assert rotations(tmp_path) == 1
    at.button(key="rotate_done").click().run()
    assert not at.code and not keyed(at)["rotate_open"].disabled
    assert rotations(tmp_path) == 1


def test_a_created_secret_shown_cannot_be_replaced(changed_demo):
    at = open_page("limits")
    before = len(stored())
    at.button(key="create_open").click().run()
    at.text_input(key="create_label").set_value("Kiosk app").run()
    at.button(key="create_submit").click().run()
    assert not at.exception and not at.error
    assert len(at.code) == 1
    assert "create_submit" not in keyed(at) and "create_done" in keyed(at)
    assert not [t for t in at.text_input if t.key == "create_label"]
    at.run()
    assert "create_submit" not in keyed(at) and keyed(at)["create_open"].disabled
    assert len(stored()) == before + 1


def test_a_deactivated_key_offers_no_change(changed_demo):
    at = open_page("limits")
    key_id = ident("Marketing launch")
    at.selectbox(key="key").set_value(key_id).run()
    at.button(key="deactivate_open").click().run()
    next(t for t in at.text_input if t.key == f"deactivate_typed:{key_id}").set_value(
        "Marketing launch"
    )
    at.button(key="deactivate_confirm").click().run()
    assert not at.exception and stored()[key_id].deactivated
    shown = {b.label: b for b in at.button}
    for name in ("Rename", "Save limits", "Deactivate…", "Rotate…"):
        assert shown[name].disabled, name
    assert shown["Leaked: deactivate now and replace…"].disabled
