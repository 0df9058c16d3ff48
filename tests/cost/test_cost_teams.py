"""Teams: parsing teams files with clear errors, and mapping keys and tags to one team each."""

from __future__ import annotations

import fnmatch
import tomllib
from datetime import date, timedelta
from pathlib import Path

import pandas as pd
import pytest
from support.builders import DEMO_TODAY, assert_unreadable_files_refused, key_day_rows

from analytics.cost.teams import (
    UNASSIGNED,
    TeamSettingsError,
    assign_keys,
    key_teams,
    load_teams,
    parse_teams,
    tag_teams,
)
from emulator import EmulatorConfig, create_app

ROOT = Path(__file__).resolve().parents[2]


def teams(*entries: str) -> str:
    return "".join(f"\n[[team]]\n{entry}\n" for entry in entries)


def test_example_file_parses():
    parsed = load_teams(ROOT / "teams.example.toml")
    assert parsed.names == (
        "Web shop",
        "Customer support",
        "Marketing",
        "Documents",
        "Internal tools",
        UNASSIGNED,
    )
    assert parsed.teams[1].label_patterns == ("Customer support*",)
    assert parsed.teams[0].label_patterns == ("web-*", "shop-*")


def example_claims(text: str, exact: str, patterns: str) -> bool:
    """Whether a rule of teams.example.toml claims ``text``, read here with tomllib and fnmatch
    (the file's documented rules), not with the code under test."""
    example = tomllib.loads((ROOT / "teams.example.toml").read_text(encoding="utf-8"))
    return any(
        text in team.get(exact, ())
        or any(fnmatch.fnmatchcase(text, pattern) for pattern in team.get(patterns, ()))
        for team in example["team"]
    )


def test_the_example_teams_claim_most_of_the_demos_usage():
    """The demo organization (seed 42, 25 keys, 1,095 days): of its characters over the whole
    history, the keys no example team claims (by latest label) carry 5-15 %, and so do the
    custom tags none claims: a chargeback worth showing, with an Unassigned row to explain."""
    app = create_app(EmulatorConfig(seed=42, keys=25, days=1095, today=DEMO_TODAY))
    emulator = app.state.emulator
    first, last = DEMO_TODAY - timedelta(days=1095), DEMO_TODAY - timedelta(days=1)
    try:
        rows, tag_rows = emulator.ledger(first, last), emulator.tag_ledger(first, last)
    finally:
        emulator.store.close()
    latest = {row.api_key: row.api_key_label for row in sorted(rows, key=lambda r: r.usage_date)}
    characters: dict[str, int] = {}
    for row in rows:
        used = (
            row.text_translation_characters
            + row.document_translation_characters
            + row.text_improvement_characters
        )
        characters[row.api_key] = characters.get(row.api_key, 0) + used
    unclaimed = {
        k for k, label in latest.items() if not example_claims(label, "labels", "label_patterns")
    }
    assert {latest[key] for key in unclaimed} == {
        "QA sandbox",
        "Legacy integration",
        "Mobile app",
        "Browser extension",
    }
    share = sum(characters[key] for key in unclaimed) / sum(characters.values())
    assert 0.05 <= share <= 0.15, share
    # The code assigns the same keys to Unassigned.
    assigned = key_teams(load_teams(ROOT / "teams.example.toml"), latest)
    assert {key for key, team in assigned.items() if team == UNASSIGNED} == unclaimed

    tagged: dict[str, int] = {}
    for row in tag_rows:
        used = row.text_translation_characters + row.text_improvement_characters
        tagged[row.custom_tag] = tagged.get(row.custom_tag, 0) + used
    untagged = {tag for tag in tagged if not example_claims(tag, "tags", "tag_patterns")}
    assert untagged == {"meeting-notes", "onboarding"}
    assert 0.05 <= sum(tagged[tag] for tag in untagged) / sum(tagged.values()) <= 0.15


def test_keys_map_by_masked_key_label_or_label_pattern():
    parsed = parse_teams(
        teams(
            'name = "Web"\nlabels = ["Production website"]\nlabel_patterns = ["web-*"]',
            'name = "Support"\nkeys = ["a1b2****9z8y"]\nlabel_patterns = ["support [0-9]"]',
        )
    )
    labels = {
        "aaaa****0001": "Production website",
        "aaaa****0002": "web-shop",
        "aaaa****0003": "Web-shop",  # patterns are case-sensitive
        "aaaa****0004": "web-",  # * matches nothing too
        "a1b2****9z8y": "Nightly batch",  # by its masked key, whatever its label
        "aaaa****0005": "support 7",
        "aaaa****0006": "support 77",  # [0-9] is one character
        "aaaa****0007": "Production website (old)",  # labels are exact
    }
    assert key_teams(parsed, labels) == {
        "aaaa****0001": "Web",
        "aaaa****0002": "Web",
        "aaaa****0003": UNASSIGNED,
        "aaaa****0004": "Web",
        "a1b2****9z8y": "Support",
        "aaaa****0005": "Support",
        "aaaa****0006": UNASSIGNED,
        "aaaa****0007": UNASSIGNED,
    }


def test_each_teams_settings_answers_by_its_own_rules_one_key_at_a_time():
    """The rules are made ready once per teams settings and kept: settings read again alike
    answer alike, and settings whose pattern moved (from the same file name) by the new
    pattern, key by key as a scope asks."""
    written = teams('name = "Web"\nlabel_patterns = ["web-*"]')
    moved = teams('name = "Web"\nlabel_patterns = ["shop-*"]')
    asked = [("aaaa****0001", "web-shop"), ("aaaa****0002", "shop-front")]
    for text, expected in ((written, ["Web", UNASSIGNED]), (moved, [UNASSIGNED, "Web"])):
        for _ in range(2):  # the second reading, a new but equal object, answers alike
            parsed = parse_teams(text)
            assert [key_teams(parsed, {key: label})[key] for key, label in asked] == expected


def test_the_stars_of_a_masked_key_are_no_wildcard():
    parsed = parse_teams(teams('name = "Web"\nkeys = ["a1b2****9z8y"]'))
    assert key_teams(parsed, {"a1b2XXXX9z8y": "x", "a1b2****9z8y": "y"}) == {
        "a1b2XXXX9z8y": UNASSIGNED,
        "a1b2****9z8y": "Web",
    }


def test_tags_map_by_tag_or_tag_pattern():
    parsed = parse_teams(
        teams(
            'name = "Web"\ntags = ["checkout"]\ntag_patterns = ["cart-?"]',
            'name = "Apps"\ntag_patterns = ["app/*"]\nlabels = ["checkout"]',
        )
    )
    assert tag_teams(parsed, ["checkout", "cart-1", "cart-12", "app/ios", "App/ios"]) == {
        "checkout": "Web",
        "cart-1": "Web",
        "cart-12": UNASSIGNED,
        "app/ios": "Apps",  # labels never claim tags
        "App/ios": UNASSIGNED,
    }


def test_a_key_two_teams_claim_is_an_error_naming_both_rules():
    parsed = parse_teams(
        teams(
            'name = "Web"\nlabel_patterns = ["web-*"]',
            'name = "Shop"\nlabels = ["web-shop"]',
        ),
        "config/teams.toml",
    )
    with pytest.raises(TeamSettingsError) as raised:
        key_teams(parsed, {"aaaa****0001": "web-blog", "aaaa****0002": "web-shop"})
    assert str(raised.value) == (
        "config/teams.toml: key aaaa****0002 (label 'web-shop') matches [[team]] #1 'Web' "
        "(label_patterns 'web-*') and [[team]] #2 'Shop' (labels 'web-shop'); a key or tag "
        "belongs to at most one team"
    )


def test_a_tag_two_teams_claim_is_an_error():
    parsed = parse_teams(
        teams('name = "Web"\ntag_patterns = ["web*"]', 'name = "Apps"\ntag_patterns = ["*app"]')
    )
    with pytest.raises(TeamSettingsError, match=r"tag 'webapp' matches \[\[team\]\] #1 'Web'"):
        tag_teams(parsed, ["webapp"])


def test_rules_of_one_team_may_overlap():
    parsed = parse_teams(teams('name = "Web"\nlabels = ["web-shop"]\nlabel_patterns = ["web-*"]'))
    assert key_teams(parsed, {"aaaa****0001": "web-shop"}) == {"aaaa****0001": "Web"}


def test_assign_keys_gives_every_row_a_team_and_keeps_unassigned_rows():
    frame = key_day_rows(
        [
            (date(2025, 1, 1), "aaaa****0001", "web-shop", {}),
            (date(2025, 1, 1), "bbbb****0002", "batch", {}),
            (date(2025, 1, 2), "aaaa****0001", "web-shop", {}),
            (date(2025, 1, 2), "cccc****0003", "support 1", {}),
        ]
    )
    parsed = parse_teams(
        teams(
            'name = "Web"\nlabel_patterns = ["web-*"]', 'name = "Support"\nlabels = ["support 1"]'
        )
    )
    team = assign_keys(parsed, frame)
    assert team.name == "team"
    assert team.index.equals(frame.index)
    assert list(team.cat.categories) == ["Web", "Support", UNASSIGNED]
    assert team.tolist() == ["Web", UNASSIGNED, "Web", "Support"]


def test_assign_keys_reports_a_conflict():
    frame = key_day_rows([(date(2025, 1, 1), "aaaa****0001", "web-shop", {})])
    parsed = parse_teams(
        teams('name = "A"\nlabel_patterns = ["web*"]', 'name = "B"\nkeys = ["aaaa****0001"]')
    )
    with pytest.raises(
        TeamSettingsError, match=r"key aaaa\*\*\*\*0001 \(label 'web-shop'\) matches"
    ):
        assign_keys(parsed, frame)


def test_assign_keys_wants_one_label_per_key():
    frame = key_day_rows([(date(2025, 1, 1), "aaaa****0001", "web-shop", {})])
    frame = pd.concat([frame, frame.assign(api_key_label="web-blog")], ignore_index=True)
    parsed = parse_teams(teams('name = "Web"\nlabel_patterns = ["web-*"]'))
    with pytest.raises(ValueError, match="a key has two labels"):
        assign_keys(parsed, frame)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[team]\nname = 1", "teams.toml: not valid TOML"),
        ("", "teams.toml: no [[team]] entries"),
        (
            teams('name = "Web"\nlabel = ["x"]'),
            "teams.toml: [[team]] #1: Object contains unknown field `label`",
        ),
        (teams('labels = ["x"]'), "[[team]] #1: Object missing required field `name`"),
        (
            teams('name = " "\nlabels = ["x"]'),
            "[[team]] #1: name must not be empty: give the team a name",
        ),
        (
            teams('name = "unassigned"\nlabels = ["x"]'),
            "[[team]] #1: name 'unassigned' is kept for the keys and tags no team claims: "
            "choose another name",
        ),
        (
            teams('name = "Web"'),
            "[[team]] #1: team 'Web' claims nothing: give it keys, labels, label_patterns, "
            "tags or tag_patterns",
        ),
        (
            teams('name = "Web"\nlabels = ["x", ""]'),
            "[[team]] #1: labels: an empty text claims nothing; remove it",
        ),
        (teams('name = "Web"\nlabels = "x"'), "[[team]] #1 (labels): Expected `array`, got `str`"),
        (
            teams('name = "Web"\nlabels = ["x", 3]'),
            "[[team]] #1 (labels[1]): Expected `str`, got `int`",
        ),
        (
            teams('name = "Web"\nkeys = ["sk-live-1234567890"]'),
            "[[team]] #1: keys: 'sk-live-1234567890' is not a masked key; name keys as the "
            "dashboard shows them (abcd****wxyz), never by the secret key itself",
        ),
        (
            teams(
                'name = "Web"\nlabels = ["x"]',
                'name = "Apps"\nlabels = ["y"]',
                'name = "Web"\nlabels = ["z"]',
            ),
            "teams.toml: [[team]] #1 and #3 are both named 'Web'",
        ),
        (
            teams('name = "Web"\nlabels = ["x"]', 'name = "Apps"\nlabels = ["y", "x"]'),
            "teams.toml: [[team]] #1 and #2 (labels) both claim 'x'",
        ),
    ],
)
def test_bad_files_give_one_clear_error(text, message):
    with pytest.raises(TeamSettingsError) as raised:
        parse_teams(text)
    assert str(raised.value).startswith("teams.toml: ")
    assert message in str(raised.value)


def test_missing_and_unreadable_files(tmp_path):
    assert_unreadable_files_refused(load_teams, TeamSettingsError, tmp_path)
