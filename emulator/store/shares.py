"""Custom tags and language pairs as shares of the ledger: the store keeps each key's tag
shares and weighted pairs once, not per key-day, and derives each key-day's part in SQL."""

from __future__ import annotations

from emulator.ledger import UNKNOWN
from emulator.org import PARTS, LanguagePair

# Each key-day's characters per custom tag, derived from the ledger and the keys' tag shares
# (see org.TagShare); parameters: the first and the stop day.
TAGGED = f"""
    SELECT u.usage_date, u.key_id, t.tag,
           u.text_translation_characters * t.parts / {PARTS} AS text,
           u.text_improvement_characters * t.parts / {PARTS} AS improvement
    FROM usage u JOIN key_tags t
        ON t.key_id = u.key_id AND u.usage_date BETWEEN t.first_day AND t.last_day
    WHERE u.usage_date >= ?1 AND u.usage_date < ?2
"""  # noqa: S608 - a constant


# Ledger column, its name in PAIRED, and the kind of language pair that carries it (False:
# translation pairs, True: same-language pairs; see org.LanguagePair); in UsageAmounts order.
PAIR_METRICS = (
    ("text_translation_characters", "text", False),
    ("document_translation_characters", "document", False),
    ("text_improvement_characters", "improvement", True),
    ("speech_to_text_minutes", "speech_to_text", True),
    ("speech_to_speech_minutes", "speech_to_speech", False),
)


def _part(column: str) -> str:
    """The pair's part of a key-day figure, as the difference of two cumulative shares: floors
    for characters, minutes rounded to six decimals. The parts of a figure then add up to it
    exactly (minutes to six decimals, as every answer rounds them). Zero figures, the most
    common, are not computed at all."""

    def cumulative(bound: str) -> str:
        share = f"u.{column} * p.{bound} / p.total"
        return f"ROUND({share}, 6)" if column.endswith("_minutes") else share

    return (
        f"CASE WHEN u.{column} > 0 THEN {cumulative('high')} - {cumulative('low')} "
        f"ELSE {_zero(column)} END"
    )


def _zero(column: str) -> str:
    return "0.0" if column.endswith("_minutes") else "0"


def _paired(same: bool) -> str:
    """Usage per key-day and pair of one kind; key-days with nothing of that kind are skipped."""
    parts = ", ".join(
        f"{_part(column) if kind is same else _zero(column)} AS {name}"
        for column, name, kind in PAIR_METRICS
    )
    used = " OR ".join(f"u.{column} > 0" for column, _, kind in PAIR_METRICS if kind is same)
    return f"""
        SELECT u.usage_date, u.key_id, u.label, p.pair_id, p.attributed, {parts}
        FROM usage u JOIN key_pairs p ON p.key_id = u.key_id AND p.same = {int(same)}
        WHERE u.usage_date >= ?1 AND u.usage_date < ?2 AND ({used})
    """  # noqa: S608 - built from constants


# Each key-day's usage per language pair; parameters as TAGGED.
PAIRED = f"{_paired(same=False)} UNION ALL {_paired(same=True)}"
PAIR_SUMS = ", ".join(f"SUM({name}) AS {name}" for _, name, _ in PAIR_METRICS)
NONZERO = (
    "SUM(text) + SUM(document) + SUM(improvement) > 0 OR SUM(speech_to_text) > 0 "
    "OR SUM(speech_to_speech) > 0"
)


def pair_rows(key_id: int, pairs: tuple[LanguagePair, ...]) -> list[tuple]:
    """(key id, (source, target), attributed, same, low, high, total) of one key: per kind,
    its pairs with cumulative weights; a kind the key declares no pair for goes to the pair
    '-' → '-' (language not recorded)."""
    rows = []
    for same in (False, True):
        kind = [p for p in pairs if p.same_language is same] or [LanguagePair(UNKNOWN, UNKNOWN, 1)]
        total, low = sum(p.weight for p in kind), 0
        for p in kind:
            pair = (p.source, p.target)
            rows.append((key_id, pair, p.attributed, same, low, low + p.weight, total))
            low += p.weight
    return rows
