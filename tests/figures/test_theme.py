"""The contrast measure the figures' colours are chosen by (WCAG 2.x), on literal colours whose
ratios are known, and every colour of the theme against both of Streamlit's pages."""

from __future__ import annotations

import pytest

from analytics.figures import theme
from analytics.figures.theme import contrast_ratio, over, relative_luminance, rgba

BLACK, WHITE = (0.0, 0.0, 0.0, 1.0), (255.0, 255.0, 255.0, 1.0)


def test_black_and_white_are_the_extremes():
    assert relative_luminance(BLACK) == 0
    assert relative_luminance(WHITE) == pytest.approx(1)
    assert contrast_ratio(BLACK, WHITE) == pytest.approx(21)
    assert contrast_ratio(WHITE, BLACK) == pytest.approx(21)  # whichever comes first
    assert contrast_ratio(WHITE, WHITE) == 1


@pytest.mark.parametrize(
    ("colour", "on", "ratio"),
    [
        ("#777777", "#FFFFFF", 4.48),  # WCAG's often quoted grey just short of 4.5
        ("#767676", "#FFFFFF", 4.54),
        ("rgb(255, 0, 0)", "#FFFFFF", 4.00),
        ("#0000FF", "#000000", 2.44),
    ],
)
def test_known_ratios(colour, on, ratio):
    assert contrast_ratio(rgba(colour), rgba(on)) == pytest.approx(ratio, abs=0.005)


def test_a_translucent_colour_is_composited_over_what_lies_below():
    assert rgba("rgba(0, 0, 0, 0.5)") == (0, 0, 0, 0.5)
    assert over(rgba("rgba(0, 0, 0, 0.5)"), WHITE) == (127.5, 127.5, 127.5, 1.0)
    assert over(rgba("#000000"), WHITE, opacity=0.25) == (191.25, 191.25, 191.25, 1.0)
    assert over(rgba("rgba(0, 0, 0, 0)"), WHITE) == WHITE


def test_a_bad_colour_is_refused_in_one_line():
    with pytest.raises(ValueError, match="not a colour: 'blue'"):
        rgba("blue")


COLOURS = [
    *theme.PALETTE,
    theme.OTHER_COLOR,
    theme.UNTAGGED_COLOR,
    theme.LIMIT_COLOR,
    theme.WARNING_COLOR,
    theme.RECOMMENDED_COLOR,
    theme.CURRENT_COLOR,
    theme.BAND_FILL,
    *theme.HEAT_SCALE,
]


@pytest.mark.parametrize("page", [theme.LIGHT_PAGE, theme.DARK_PAGE])
def test_every_colour_of_the_theme_reads_on_both_pages(page):
    background = rgba(page)
    for colour in COLOURS:
        shown = over(rgba(colour), background)
        assert contrast_ratio(shown, background) >= theme.MINIMUM_CONTRAST, (colour, page)
