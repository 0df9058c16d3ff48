"""The one vocabulary of usage metrics: the names the service uses, their labels and units,
and the one way every page, report and command writes a figure.

Characters and minutes are different units: minutes are never added to characters, charted on
their own axis and shown with two decimals. Speech-to-text and speech-to-speech minutes are two
services: they are never added to each other either.

Figures are written by the functions below, wherever they are shown: counts and minutes
(``format_value``, ``count_text``) and percentages, changes and shares alike (``percent_text``,
``format_change``, ``share_text``: one decimal and ``PERCENT_SIGN``, a narrow no-break space
and ``%``, ``+26.0 %``, which never breaks from its figure).
Each rounds half away from zero on the decimal a person would write for the float (a change of
0.2595 and one of 25.95 % both read ``+26.0 %``), so a figure reached by two computations
reads the same on every surface. Money is ``analytics.cost.money``'s.
"""

from __future__ import annotations

import json
import math
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Final, Literal

Metric = Literal[
    "total_characters",
    "text_translation_characters",
    "document_translation_characters",
    "text_improvement_characters",
    "speech_to_text_minutes",
    "speech_to_speech_minutes",
]

TOTAL_CHARACTERS: Final = "total_characters"
MINUTES: Final = "speech_to_text_minutes"
SPEECH_TO_SPEECH: Final = "speech_to_speech_minutes"
MINUTE_METRICS: Final[tuple[Metric, ...]] = (MINUTES, SPEECH_TO_SPEECH)
# The services whose characters make up the total.
SERVICE_CHARACTERS: Final[tuple[Metric, ...]] = (
    "text_translation_characters",
    "document_translation_characters",
    "text_improvement_characters",
)
CHARACTER_METRICS: Final[tuple[Metric, ...]] = (TOTAL_CHARACTERS, *SERVICE_CHARACTERS)
METRICS: Final[tuple[Metric, ...]] = (*CHARACTER_METRICS, *MINUTE_METRICS)

# Custom tags: only text is tagged, so a tag's total is its text translation plus improvement
# characters, and its share is of the organization's text characters, never of documents.
TagMetric = Literal[
    "total_characters", "text_translation_characters", "text_improvement_characters"
]
TEXT_CHARACTERS: Final[tuple[TagMetric, ...]] = (
    "text_translation_characters",
    "text_improvement_characters",
)
TAG_METRICS: Final[tuple[TagMetric, ...]] = (TOTAL_CHARACTERS, *TEXT_CHARACTERS)

METRIC_LABELS: Final[dict[str, str]] = {
    TOTAL_CHARACTERS: "Total characters",
    "text_translation_characters": "Text translation characters",
    "document_translation_characters": "Document translation characters",
    "text_improvement_characters": "Text improvement characters",
    MINUTES: "Speech-to-text minutes",
    SPEECH_TO_SPEECH: "Speech-to-speech minutes",
}
# Short names where the unit is clear from the context (a chart's legend beside its axis).
SERVICE_LABELS: Final[dict[str, str]] = {
    "text_translation_characters": "Text translation",
    "document_translation_characters": "Documents",
    "text_improvement_characters": "Text improvement",
    MINUTES: "Speech-to-text",
    SPEECH_TO_SPEECH: "Speech-to-speech",
}


def is_minutes(metric: str) -> bool:
    """Minutes are a duration: they are charted and summed apart from characters."""
    return metric in MINUTE_METRICS


# What a metric counts, as a column, a tile or a sentence names it beside a bare figure.
CHARACTERS_UNIT: Final = "characters"
MINUTES_UNIT: Final = "minutes"
# Characters are counted whole; minutes are shown to the hundredth (a second is 0.017 minute, so
# a third decimal reads as precision the usage does not have).
MINUTE_DECIMALS: Final = 2


def unit_of(metric: str) -> str:
    """What ``metric`` counts, ``characters`` or ``minutes``: every figure shown without its
    metric's label names it, so a tile of minutes never sits unnamed beside one of characters."""
    return MINUTES_UNIT if is_minutes(metric) else CHARACTERS_UNIT


def decimals(metric: str) -> int:
    """The decimals a figure of ``metric`` is shown with, wherever it is shown: whole
    characters, minutes to the hundredth."""
    return MINUTE_DECIMALS if is_minutes(metric) else 0


def rounded(value: float, metric: str) -> float:
    """A figure rounded as it is shown (``decimals``), for a table that holds numbers, so a
    cell never carries more digits than its column shows; halves away from zero, as
    ``format_value`` writes them (a cell of 2.5 characters reads 3 in the table and the text)."""
    return float(_half_up(value, decimals(metric)))


def column_format(metric: str) -> str:
    """The printf format a table column of ``metric`` is shown with (the dashboard's number
    columns): thousands separators and ``decimals``, the same digits ``format_value`` writes."""
    places = decimals(metric)
    return f"%,.{places}f" if places else "%,d"


# Digits a float is read to before it is rounded for display: below the noise of binary
# arithmetic (100 * 0.2595 is 25.949999999999996), far above any figure's shown precision.
_READ_DIGITS: Final = 9


def _half_up(value: float, places: int) -> Decimal:
    """``value`` rounded half away from zero to ``places`` decimals, as written by hand: the
    float is first read to ``_READ_DIGITS`` decimals, so binary noise never tips a half; a
    value that rounds to zero is 0, never -0."""
    with localcontext() as context:
        context.prec = 400  # enough digits for any float to its last shown decimal
        read = Decimal(repr(round(float(value), _READ_DIGITS)))
        return read.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP) + 0


def _missing(value: float | None) -> bool:
    """Nothing to show: no value, or one that is not a number (NaN, infinite)."""
    return value is None or not math.isfinite(value)


def format_value(value: float | None, metric: str) -> str:
    """Thousands separators; whole characters, minutes with two decimals (``decimals``)."""
    if _missing(value):
        return "N/A"
    assert value is not None
    return f"{_half_up(value, decimals(metric)):,}"


def count_text(value: float) -> str:
    """A count whose metric the context gives (a limit, a cell of a mixed table, a number of
    keys): whole numbers whole, others (minutes) to the hundredth, as ``format_value``."""
    return f"{_half_up(value, 0 if float(value).is_integer() else MINUTE_DECIMALS):,}"


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """A number of things as a sentence writes it, "1 key", "3 keys", "1,200 limit changes":
    never "key(s)", which every reader has to work out. ``plural``: a noun's own plural where
    an "s" does not make it."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def quoted(text: str) -> str:
    """A text a preview shows before → after (a key's label, a settings field's value): in
    double quotes as TOML writes a string, the same whatever quotes the text holds, where
    Python's ``repr`` chose single quotes or double by the text."""
    return json.dumps(text, ensure_ascii=False)


def with_unit(value: float | None, metric: str) -> str:
    """A figure and what it counts, ``1,234 characters`` or ``12.50 minutes``: for a tile or a
    sentence whose label does not name the unit."""
    return f"{format_value(value, metric)} {unit_of(metric)}"


# Percentages, shares of a total and changes alike, carry this many decimals wherever they are
# shown: texts through the functions below, the dashboard's tables through their columns.
PERCENT_DECIMALS: Final = 1
# What follows a percentage's figure: a narrow no-break space (U+202F) and the sign, so that
# "22.6 %" never wraps between figure and sign, and reads the same in a table, a page's text, a
# report and a terminal.
PERCENT_SIGN: Final = "\u202f%"


def percent_text(value: float | None, signed: bool = True) -> str:
    """A percentage (in percent) for a table cell or a text, the report's, the pages' and the
    commands': one decimal, then ``PERCENT_SIGN``, signed unless ``signed`` is False (a share);
    N/A where there was nothing to compare against (never a blank, a NaN or "None")."""
    if _missing(value):
        return "N/A"
    assert value is not None
    shown = _half_up(value, PERCENT_DECIMALS)
    sign = "+" if signed and shown >= 0 else ""
    return f"{sign}{shown:,}{PERCENT_SIGN}"


def share_text(share: float | None) -> str:
    """A share of a total, given as a fraction (0.1234), as `12.3 %`; N/A without a total."""
    return percent_text(None if share is None else 100 * share, signed=False)


def format_change(change: float | None) -> str:
    """A relative change, given as a fraction (0.123), as `+12.3 %`; N/A when there is
    nothing to compare against."""
    return percent_text(None if change is None else 100 * change)
