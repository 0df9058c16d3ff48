"""The one set of colours every figure draws with, for a light and a dark page at once, and the
measure they are chosen by: WCAG 2.x contrast against the page behind the chart.

Figures have no background of their own and are built once for every viewer, whatever scheme
the viewer's browser prefers, so each colour lies on Streamlit's white page or on its
near-black one. A mark (a line, bar, band or marker) is readable on both where it differs from
each by a contrast ratio of at least 3:1 (WCAG's measure for graphics): its relative luminance
lies between about 0.12 and 0.30, a mid tone. Hue then tells the series apart.
"""

from __future__ import annotations

import re

# Streamlit's page backgrounds (.streamlit/config.toml keeps both of its defaults).
LIGHT_PAGE = "#FFFFFF"
DARK_PAGE = "#0E1117"
MINIMUM_CONTRAST = 3.0

# Series colours, in the order series take them; every one a mid tone.
PALETTE = (
    "#3A78C2",  # blue
    "#C06A1A",  # orange
    "#3A9A6B",  # green
    "#C8463D",  # red
    "#7A5BA6",  # purple
    "#25909F",  # teal
    "#B7892B",  # ochre
    "#D46FA8",  # pink
    "#5C7A29",  # olive
    "#8C6D5A",  # brown
)
OTHER_COLOR = "#858D97"  # the rest beyond the top N: a cool grey
UNTAGGED_COLOR = "#908579"  # usage without a tag: a warm grey, apart from Other's
LIMIT_COLOR = PALETTE[3]
WARNING_COLOR = PALETTE[1]
RECOMMENDED_COLOR = PALETTE[2]
CURRENT_COLOR = PALETTE[1]
# A band (a forecast's interval, an anomaly's usual range) is a mark like any other: a slate
# nearly opaque, so it reaches 3:1 on both pages, of a hue apart from the blue and orange
# lines drawn over it; the grid shows faintly through.
BAND_FILL = "rgba(107, 127, 158, 0.9)"
# A heat map's colour scale, least to most: both ends mid tones (and every colour between, as
# each channel only falls), where a scale from white to navy drew its largest cell navy on the
# dark page and its smallest white on the light one.
HEAT_SCALE = ("#6F94C4", "#3166AC")

_CSS_COLOUR = re.compile(r"rgba?\(([^)]*)\)")

RGBA = tuple[float, float, float, float]


def rgba(colour: str) -> RGBA:
    """Red, green and blue (0–255) and opacity (0–1) of a CSS colour as plotly and browsers
    write it: ``#RRGGBB``, ``rgb(r, g, b)`` or ``rgba(r, g, b, a)``."""
    text = colour.strip()
    if re.fullmatch(r"#[0-9A-Fa-f]{6}", text):
        red, green, blue = (float(int(text[i : i + 2], 16)) for i in (1, 3, 5))
        return red, green, blue, 1.0
    matched = _CSS_COLOUR.fullmatch(text)
    if matched is None:
        raise ValueError(f"not a colour: {colour!r}")
    parts = [float(part) for part in matched.group(1).replace("/", ",").split(",")]
    if len(parts) not in (3, 4):
        raise ValueError(f"not a colour: {colour!r}")
    red, green, blue, *alpha = parts
    return red, green, blue, alpha[0] if alpha else 1.0


def over(top: RGBA, bottom: RGBA, opacity: float = 1.0) -> RGBA:
    """`top` painted at its own opacity times `opacity` over the opaque `bottom`, as a browser
    composites it (in sRGB)."""
    alpha = top[3] * opacity
    red, green, blue = (
        alpha * t + (1 - alpha) * b for t, b in zip(top[:3], bottom[:3], strict=True)
    )
    return red, green, blue, 1.0


def relative_luminance(colour: RGBA) -> float:
    """WCAG 2.x relative luminance of an opaque colour: 0 for black, 1 for white."""

    def linear(channel: float) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(channel) for channel in colour[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast_ratio(first: RGBA, second: RGBA) -> float:
    """WCAG 2.x contrast ratio of two opaque colours, from 1 (the same) to 21 (black on
    white), whichever is the lighter."""
    lighter, darker = sorted(map(relative_luminance, (first, second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)
