"""The settings in force as one object: a preview or an upload is a copy with one part's text
swapped (`SettingsInForce.with_text`), the others read through the original once; a copy
named otherwise (`named`) names its documents in its errors as asked, part by part."""

from __future__ import annotations

from pathlib import Path

import pytest

from analytics.cost.prices import PricingSettingsError
from analytics.cost.teams import TeamSettingsError
from analytics.settings.in_force import Document, SettingsInForce
from analytics.settings.parts import Part

TEAMS = '[[team]]\nname = "Web"\nlabel_patterns = ["web-*"]\n'
OTHER_TEAMS = '[[team]]\nname = "Field apps"\nlabel_patterns = ["field-*"]\n'
BAD_PRICING = 'currency = "EUR"\n'  # no [[price]] entries


def _held(reads: list[Part]) -> SettingsInForce:
    """Settings held in files of a folder ``config``: the teams and a pricing document with no
    price; every read of a part is recorded in ``reads``."""
    texts: dict[Part, str] = {"teams": TEAMS, "pricing": BAD_PRICING}

    def read(part: Part) -> Document | None:
        reads.append(part)
        if part not in texts:
            return None
        path = Path("config") / f"{part}.example.toml"
        return Document(part, texts[part], str(path), None, path)

    return SettingsInForce(read, naming="name")


def test_a_preview_swaps_one_part_and_reads_the_others_once_through_the_original() -> None:
    reads: list[Part] = []
    held = _held(reads)
    preview = held.with_text("teams", OTHER_TEAMS)
    assert [team.name for team in preview.teams.teams] == ["Field apps"]
    assert [team.name for team in held.teams.teams] == ["Web"]
    assert preview.name("teams") == "teams.example.toml"  # named as the original names it
    assert held.with_text("teams", OTHER_TEAMS, "mine.toml").name("teams") == "mine.toml"
    assert held.with_text("teams", None).document("teams") is None
    for settings, part in ((preview, "budgets"), (held, "budgets"), (preview, "pricing")):
        settings.document(part)
    assert sorted(reads) == ["budgets", "pricing", "teams"]  # each read once, for both
    assert preview.texts("teams", "pricing") == (OTHER_TEAMS, BAD_PRICING)
    assert held.texts("teams", "pricing") == (TEAMS, BAD_PRICING)
    saved = held.with_text("teams", OTHER_TEAMS, "the teams, version 2")
    assert saved.texts("teams", "budgets") == preview.texts("teams", "budgets")
    assert saved.texts("teams", "budgets") == (OTHER_TEAMS, None)


def test_a_copy_names_each_part_as_asked() -> None:
    held = _held([])
    with pytest.raises(PricingSettingsError, match=r"^pricing\.example\.toml: no \[\[price\]\]"):
        _ = held.pricing
    named = held.named({"pricing": "part", "teams": "where", "budgets": "name", "alerts": "name"})
    with pytest.raises(PricingSettingsError, match=r"^pricing\.toml: no \[\[price\]\]"):
        _ = named.pricing
    assert named.source("teams") == "config/teams.example.toml"  # where it is
    with pytest.raises(TeamSettingsError, match=r"^teams\.example\.toml: not valid TOML"):
        _ = named.with_text("teams", "[[team]\n").given_teams  # a preview: named by name
