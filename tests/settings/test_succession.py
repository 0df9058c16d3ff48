"""A rotated key's replacement written into hand-made teams documents: beside the old key's
masked key or label, into a multi-line array or as a new array, its comments kept; nothing
where a pattern still claims it; and no edit, only the words to add by hand, where another
team's pattern would claim the new label too."""

from __future__ import annotations

from analytics.settings.succession import Succession, succeeded

OLD, NEW = ("ab12****ef56", "Web shop"), ("cd34****9a0b", "Web shop (2026-03)")


def test_a_key_listed_by_its_mask_is_followed_by_the_new_mask_in_a_multi_line_array():
    text = '[[team]]\nname = "Web"\nkeys = [\n  "ab12****ef56",  # the shop\n]\n'
    assert succeeded(text, "teams.toml", OLD, NEW) == Succession(
        '"cd34****9a0b" to keys of [[team]] "Web"',
        '[[team]]\nname = "Web"\nkeys = [\n  "ab12****ef56",  # the shop\n  "cd34****9a0b",\n]\n',
    )


def test_a_team_without_labels_gets_the_array_and_an_owner_entry_by_mask_stays_by_mask():
    text = (
        '[[team]]\nname = "Web"\nlabel_patterns = ["web-*"]\n\n'
        '[[key]]\nkey = "ab12****ef56"\npurpose = "Checkout"\n'
    )
    carried = succeeded(text, "teams.toml", (OLD[0], "web-shop"), (NEW[0], "Shop front"))
    assert carried.text == (
        '[[team]]\nname = "Web"\nlabel_patterns = ["web-*"]\nlabels = ["Shop front"]\n\n'
        '[[key]]\nkey = "ab12****ef56"\npurpose = "Checkout"\n\n'
        '[[key]]\nkey = "cd34****9a0b"\npurpose = "Checkout"\n'
    )
    assert carried.hand == (
        '"Shop front" to labels of [[team]] "Web"; [[key]] key = "cd34****9a0b", '
        'purpose = "Checkout"'
    )


def test_a_pattern_the_new_label_still_matches_needs_nothing():
    text = '[[team]]\nname = "Web"\nlabel_patterns = ["Web shop*"]\n'
    assert succeeded(text, "teams.toml", OLD, NEW) == Succession("", None)


def test_a_new_label_another_teams_pattern_claims_is_left_to_a_person():
    text = (
        '[[team]]\nname = "Web"\nlabels = ["Web shop"]\n\n'
        '[[team]]\nname = "Rotated"\nlabel_patterns = ["* (2026-03)"]\n'
    )
    assert succeeded(text, "teams.toml", OLD, NEW) == Succession(
        '"Web shop (2026-03)" to labels of [[team]] "Web"', None
    )
