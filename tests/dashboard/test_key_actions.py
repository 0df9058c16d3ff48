"""Key actions on the Keys & limits page walked as a person walks them: choose a key, choose
another, rename, set or clear limits, open a dialog and change the choice, arrive by a link.
After every step the emulator's own store must hold exactly the intended change and the audit
log exactly the changes made; a form never shows, or saves, another key's values."""

from __future__ import annotations

import os
import sqlite3
import tempfile
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path

from hypothesis import settings
from hypothesis import strategies as some
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from streamlit.testing.v1 import AppTest
from support import kept
from support.headless import app_test, open_page
from support.servers import forget_demo
from test_access import AUTH

from analytics.pages import page_at
from analytics.service.service_connection import ServiceConnection

MAX_LABEL = 100  # the documented longest label (docs/dashboard.md)


@dataclass(frozen=True)
class Key:
    """What a change can alter about a key, as the emulator stores it."""

    label: str
    characters: int | None
    speech_ms: int | None
    deactivated: bool


def stored(history: Path | None = None) -> dict[str, Key]:
    """Every developer key as the demo emulator's store file in `history` (by default the
    settings' history folder) holds it, read through a connection of its own: the oracle."""
    folder = history or ServiceConnection().history_path
    assert folder is not None
    [store] = folder.glob("demo-*-emulator.sqlite")
    with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True)) as db:
        rows = db.execute(
            "SELECT published_id, label, character_limit, speech_limit_ms, deactivated "
            "FROM keys WHERE NOT admin"
        ).fetchall()
    return {
        key_id: Key(label, chars, ms, gone is not None) for key_id, label, chars, ms, gone in rows
    }


def audit_entries() -> list[dict]:
    """The audit log as kept, oldest first."""
    return kept.audit_entries(Path(os.environ["SERVICE_HISTORY_PATH"]))


def audited() -> list[tuple[str, str | None, str]]:
    """The audit log's entries as (action, key id, outcome)."""
    return [(e["action"], e["key_id"], e["outcome"]) for e in audit_entries()]


def fresh_demo(under: Path) -> None:
    """A new demo organization: a new, empty history folder in `under` (the test's own, which
    pytest removes), where its store and audit log live (each example of a walk starts afresh)."""
    forget_demo()
    os.environ["SERVICE_HISTORY_PATH"] = tempfile.mkdtemp(prefix="history-", dir=under)


def widget(widgets, label: str):
    """The one widget of a kind with this label (the page keys its widgets by key and state)."""
    [found] = [w for w in widgets if w.label == label]
    return found


def shown_key(at: AppTest) -> str:
    return at.selectbox(key="key").value


def choose(at: AppTest, key_id: str) -> AppTest:
    return at.selectbox(key="key").set_value(key_id).run()


def set_limits(at: AppTest, characters: int | None, minutes: int | None) -> AppTest:
    """Fill the limits form (None: tick "no limit") and press Save when it is enabled (it is
    whenever the key may be changed, whatever the form holds)."""
    widget(at.checkbox, "No character limit").set_value(characters is None)
    widget(at.checkbox, "No speech-to-text limit").set_value(minutes is None)
    at.run()
    if characters is not None:
        widget(at.number_input, "Characters").set_value(characters)
    if minutes is not None:
        widget(at.number_input, "Speech-to-text minutes").set_value(float(minutes))
    at.run()
    save = widget(at.button, "Save limits")
    return at if save.disabled else save.click().run()


def rename(at: AppTest, label: str, share: bool = False) -> AppTest:
    widget(at.text_input, "New label").set_value(label).run()
    if share and [c for c in at.checkbox if c.label == "Give this label anyway"]:
        widget(at.checkbox, "Give this label anyway").check().run()
    button = widget(at.button, "Rename")
    return at if button.disabled else button.click().run()


def form_shows(at: AppTest, key: Key) -> None:
    """The forms show this key's own values."""
    assert widget(at.text_input, "New label").value == key.label
    assert widget(at.checkbox, "No character limit").value == (key.characters is None)
    assert widget(at.number_input, "Characters").value == (key.characters or 0)
    minutes = widget(at.number_input, "Speech-to-text minutes").value
    assert minutes == (key.speech_ms or 0) / 60_000


def said_once(at: AppTest, text: str) -> None:
    """A change's message is said once, in the success box that stays at the top of the
    page, never again in a toast beside it."""
    assert [s.value for s in at.success if text in s.value] == [s.value for s in at.success]
    assert len(at.success) == 1, [s.value for s in at.success]
    assert not at.toast, [t.value for t in at.toast]


# The blockers, each walked once.


def test_saving_after_choosing_another_key_keeps_that_keys_limits(changed_demo):
    at = open_page("limits")
    before = stored()
    limited = next(i for i, k in before.items() if k.characters and not k.deactivated)
    assert shown_key(at) != limited
    at = choose(at, limited)
    form_shows(at, before[limited])
    assert any("nothing to change" in c.value for c in at.caption)
    at = widget(at.button, "Save limits").click().run()  # the form holds the key's own limits
    said = f"Nothing was sent: {before[limited].label}: nothing to change."
    assert said in [i.value for i in at.info]
    assert stored() == before and audited() == []


def test_rename_then_limits_then_deactivate_act_on_the_renamed_key(changed_demo):
    at = open_page("limits")
    before = stored()
    target = next(i for i, k in before.items() if not k.deactivated)
    at = choose(at, target)
    at = rename(at, "Kiosk app (EU)")
    assert not at.exception
    said_once(at, "Kiosk app (EU)")
    assert shown_key(at) == target and at.query_params["key"] == target
    at = set_limits(at, 50_000, 30)
    said_once(at, "50,000")
    assert shown_key(at) == target
    widget(at.button, "Deactivate…").click().run()
    widget(at.text_input, "Type the key's label to confirm").set_value("Kiosk app (EU)")
    at.button(key="deactivate_confirm").click().run()
    assert not at.exception
    said_once(at, "Kiosk app (EU)")
    after = stored()
    assert after[target] == Key("Kiosk app (EU)", 50_000, 1_800_000, True)
    assert {i: k for i, k in after.items() if i != target} == {
        i: k for i, k in before.items() if i != target
    }
    assert audited() == [(a, target, "done") for a in ("rename", "limit", "deactivate")]
    entries = audit_entries()
    assert entries[1]["after"]["speech_to_text_milliseconds"] == 1_800_000
    assert {e["who"] for e in entries} == {"demo dashboard"}


def test_a_dialog_acts_on_the_key_it_was_opened_for(changed_demo):
    at = open_page("limits")
    before = stored()
    first, second = [i for i, k in before.items() if not k.deactivated][:2]
    at = choose(at, first)
    widget(at.button, "Deactivate…").click().run()
    at = choose(at, second)  # the choice changes under the open dialog
    typed = widget(at.text_input, "Type the key's label to confirm")
    typed.set_value(before[second].label)
    at.button(key="deactivate_confirm").click().run()
    assert any("does not match" in e.value for e in at.error)
    assert stored() == before and audited() == []


def test_clearing_a_limit_clears_it(changed_demo):
    at = open_page("limits")
    before = stored()
    limited = next(i for i, k in before.items() if k.characters and not k.deactivated)
    at = set_limits(choose(at, limited), None, None)
    assert stored()[limited] == replace(before[limited], characters=None, speech_ms=None)
    assert audited() == [("limit", limited, "done")]


def test_the_address_names_the_key_by_its_id_through_a_rename_and_a_link(changed_demo):
    at = open_page("limits")
    target = next(i for i, k in stored().items() if not k.deactivated)
    at = rename(choose(at, target), "Renamed by a test")
    assert at.query_params["key"] == target
    linked = open_page("limits", key=target)  # a reload of that address
    assert shown_key(linked) == target and linked.query_params["key"] == target
    form_shows(linked, stored()[target])
    by_label = open_page("limits", key="Renamed by a test")  # a link by unique label
    assert shown_key(by_label) == target and by_label.query_params["key"] == target


# The same steps in any order.

LABELS = ("Kiosk app", "  Kiosk app  ", "", "   ", "Mobile (iOS)", "x" * MAX_LABEL)


class KeyPageWalk(RuleBasedStateMachine):
    """One session of the page against the dashboard's demo emulator; the model is what the
    store must hold, the log what the audit log must hold."""

    under: Path  # the test's folder, where each example's history folder is made

    @initialize()
    def start(self) -> None:
        fresh_demo(self.under)
        self.at = open_page("limits")
        self.model = stored()
        self.log: list[tuple[str, str | None, str]] = []
        self.chosen = shown_key(self.at)

    @property
    def ids(self) -> list[str]:
        return sorted(self.model)

    @rule(i=some.integers(0, 50))
    def choose_a_key(self, i: int) -> None:
        before, self.chosen = self.chosen, self.ids[i % len(self.ids)]
        self.at = choose(self.at, self.chosen)
        if self.chosen != before:  # the same key again keeps what was typed in its form
            form_shows(self.at, self.model[self.chosen])

    @rule(
        label=some.sampled_from(LABELS) | some.integers(0, 50).map(lambda i: f"#{i}"),
        share=some.booleans(),
    )
    def rename_it(self, label: str, share: bool) -> None:
        if label.startswith("#"):  # another key's label, or this key's own
            label = self.model[self.ids[int(label[1:]) % len(self.ids)]].label
        key = self.model[self.chosen]
        new = label.strip()
        carried = any(k.label == new for i, k in self.model.items() if i != self.chosen)
        self.at = rename(self.at, label, share)
        allowed = new and new != key.label and len(new) <= MAX_LABEL and (share or not carried)
        if allowed and not key.deactivated:  # a deactivated key offers no Rename
            self.model[self.chosen] = replace(key, label=new)
            self.log.append(("rename", self.chosen, "done"))

    @rule(
        characters=some.none() | some.sampled_from([0, 1, 50_000, 121_026]),
        minutes=some.none() | some.sampled_from([0, 1, 30]),
    )
    def set_its_limits(self, characters: int | None, minutes: int | None) -> None:
        key = self.model[self.chosen]
        self.at = set_limits(self.at, characters, minutes)
        ms = None if minutes is None else minutes * 60_000
        wanted = replace(key, characters=characters, speech_ms=ms)
        if not key.deactivated and wanted != key:
            self.model[self.chosen] = wanted
            self.log.append(("limit", self.chosen, "done"))

    @precondition(lambda self: sum(k.deactivated for k in self.model.values()) < 3)
    @rule(switch=some.integers(0, 50), right=some.booleans())
    def deactivate_after_switching(self, switch: int, right: bool) -> None:
        """Open the dialog for the key shown, choose another, then confirm."""
        opened_for = self.chosen
        if self.model[opened_for].deactivated:
            assert widget(self.at.button, "Deactivate…").disabled
            return
        widget(self.at.button, "Deactivate…").click().run()
        self.choose_a_key(switch)
        label = self.model[opened_for].label if right else self.model[self.chosen].label
        typed = widget(self.at.text_input, "Type the key's label to confirm")
        typed.set_value(label)
        self.at.button(key="deactivate_confirm").click().run()
        if label.strip() == self.model[opened_for].label.strip():
            self.model[opened_for] = replace(self.model[opened_for], deactivated=True)
            self.log.append(("deactivate", opened_for, "done"))

    @rule(type_label=some.booleans())
    def open_deactivation_and_cancel(self, type_label: bool) -> None:
        if self.model[self.chosen].deactivated:
            return
        widget(self.at.button, "Deactivate…").click().run()
        if type_label:
            typed = widget(self.at.text_input, "Type the key's label to confirm")
            typed.set_value(self.model[self.chosen].label).run()
        self.at.button(key="deactivate_cancel").click().run()
        assert not [b for b in self.at.button if b.key == "deactivate_confirm"]

    @rule(label=some.sampled_from(LABELS), cancel=some.booleans())
    def create_a_key(self, label: str, cancel: bool) -> None:
        """Create a key, or open the dialog, type and cancel. A label another key carries
        leaves Create off (no tick is given here)."""
        before = stored()
        self.at.button(key="create_open").click().run()
        self.at.text_input(key="create_label").set_value(label).run()
        new = label.strip()
        refused = any(k.label == new for k in self.model.values())
        if cancel or refused:
            self.at.button(key="create_cancel").click().run()
            assert not [b for b in self.at.button if b.key == "create_submit"]
            return
        self.at.button(key="create_submit").click().run()
        self.at.button(key="create_done").click().run()
        [made] = set(stored()) - set(before)
        self.model[made] = Key(new or "DeepL API Key", None, None, False)
        self.log.append(("create", made, "done"))

    @rule(i=some.integers(0, 50), by_label=some.booleans())
    def arrive_by_link(self, i: int, by_label: bool) -> None:
        target = self.ids[i % len(self.ids)]
        label = self.model[target].label
        unique = sum(k.label == label for k in self.model.values()) == 1
        self.at = open_page("limits", key=label if by_label and unique else target)
        self.chosen = target
        form_shows(self.at, self.model[target])

    @invariant()
    def exactly_the_intended_keys_changed(self) -> None:
        if not hasattr(self, "at"):
            return
        assert not self.at.exception, self.at.exception
        assert stored() == self.model
        assert audited() == self.log
        assert shown_key(self.at) == self.chosen
        assert self.at.query_params["key"] == self.chosen


def test_any_walk_through_the_key_actions_changes_only_the_key_acted_on(changed_demo, tmp_path):
    KeyPageWalk.under = tmp_path
    run_state_machine_as_test(
        KeyPageWalk, settings=settings(max_examples=20, stateful_step_count=10)
    )


def signed_in_limits(email: str, groups: list[str]) -> AppTest:
    """Keys & limits in the demo, signed in as ``email`` holding the roles of ``groups``:
    Marketing's lead, or the organization's key administrator."""
    at = app_test()
    at.secrets.update(
        AUTH
        | {
            "ADMIN_EMAILS": [],
            "roles": {
                "claim": "groups",
                "groups": {"leads": ["team lead of Marketing"], "keys": ["key administrator"]},
            },
        }
    )
    at.user = {"is_logged_in": True, "email": email, "groups": groups}
    at.switch_page(str(page_at("limits").file))
    return at.run()


# Every action Keys & limits offers a person who may change keys (the guardrails' Apply and
# Restore are offered only with enforced budgets, which the example budgets have none of).
ACTIONS = [
    "Create a key…",
    "Rename",
    "Save limits",
    "Deactivate…",
    "Rotate…",
    "Leaked: deactivate now and replace…",
]


def test_a_lead_signed_in_to_the_demo_has_no_action_and_an_administrator_is_named(changed_demo):
    """Signed in, roles decide in the demo too: a team lead's Keys & limits offers no
    enabled action, and a key administrator's rename is audited under the token's e-mail."""
    lead = signed_in_limits("lead@example.org", ["leads"])
    assert not lead.exception
    assert [(b.label, b.disabled) for b in lead.button if b.label != "Sign out"] == [
        (label, True) for label in ACTIONS
    ]
    admin = signed_in_limits("ops@example.org", ["keys"])
    assert [(b.label, b.disabled) for b in admin.button if b.label != "Sign out"] == [
        (label, False) for label in ACTIONS
    ]
    before = stored()
    target = shown_key(admin)
    admin = rename(admin, "Renamed by ops")
    assert not admin.exception
    assert stored()[target].label == "Renamed by ops" != before[target].label
    assert [e["who"] for e in audit_entries()] == ["ops@example.org"]
