"""Who may change which key: the rule every key change asks (``keys.changes.KeyRule``), made
from how far a person's right to change keys reaches.

The rule is asked by the change functions themselves, below every front end, so a page's
disabled button and the refusal of a call made around it say the same words. A key belongs to
the team the teams settings give it (by the masked key it is recorded under, else its key id's
mask, and its label), as the scope reads it; a change of the organization's own (a new key of
no key's, the guardrails over every key) needs the whole organization.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from analytics.access.roles import Reach
from analytics.access.scope import WHOLE_ORGANIZATION, Visible
from analytics.cost import Teams
from analytics.keys import KeyRule, every_key, masked, no_key
from analytics.service import DeveloperKey


def key_rule(reach: Reach, teams: Teams, recorded: Mapping[str, str]) -> KeyRule:
    """The rule of a person whose right to change keys reaches ``reach``, keys placed in
    teams by ``teams`` and the audit log's ``recorded`` masks (key id → masked key)."""
    names = ", ".join(sorted(reach.teams))
    organization = Visible(WHOLE_ORGANIZATION, teams)

    def rule(key: DeveloperKey | None) -> str | None:
        if reach.whole:
            return None
        if not reach:
            return "You may not change keys: no role of yours changes them."
        if key is None:
            return (
                f"You may change the keys of {names} only: creating a key and the guardrails "
                "are the organization's."
            )
        mask = recorded.get(key.key_id) or masked(key.key_id)
        if reach.covers(organization.team_of_key(mask, key.label)):
            return None
        return f"You may change the keys of {names} only: this key is not one of them."

    return rule


def session_rule(
    refused: str | None,
    signed_in: bool,
    reach: Reach,
    placed: Callable[[], tuple[Teams, Mapping[str, str]]],
) -> KeyRule:
    """The rule of a dashboard session: none of its changes when ``refused`` says why (no
    right, or no sign-in to tell people apart); any key for the demo's anonymous visitor, a
    trusted deployment without sign-in or an administrator of the whole organization; else
    the keys of the teams its right reaches, placed by ``placed()`` (the teams in force and
    the audit log's masks, read only then)."""
    if refused is not None:
        return no_key(refused)
    if not signed_in or reach.whole:
        return every_key
    return key_rule(reach, *placed())
