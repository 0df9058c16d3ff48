"""Small tables shaped from the key-day, tag-day and pair-day frames: KPIs (`kpis`), series
over time and top-N + Other (`series`), per-key (`keys`), per-tag (`tags`) and per-pair
(`pairs`) tables, and how each item is named and found (`names`). Pages, the report and
exports show them as they are; all of it is tested without Streamlit.
"""

from analytics.usage.tables.keys import TABLE_ORDER, bucket_breakdown, key_table, restrict_keys
from analytics.usage.tables.kpis import Kpi, kpis, relative_change
from analytics.usage.tables.names import (
    OTHER,
    UNATTRIBUTED,
    UNTAGGED,
    key_display,
    key_names,
    pair_display,
    search_keys,
    search_tags,
    tag_display,
)
from analytics.usage.tables.pairs import (
    PAIR_TABLE_ORDER,
    pair_keys,
    pair_matrix,
    pair_table,
    pairs_of,
)
from analytics.usage.tables.series import (
    SPARKLINE_POINTS,
    cumulative,
    rolling_mean,
    sparkline_granularity,
    top_keys,
    top_n_over_time,
    top_n_totals,
    usage_over_time,
)
from analytics.usage.tables.tags import (
    SPARKLINE_TAGS,
    TAG_CHOICES,
    TAG_LABELS,
    TAG_TABLE_ORDER,
    TEXT_CHARACTERS_LABEL,
    TagChoices,
    TagSummary,
    tag_choices,
    tag_days,
    tag_summary,
    tag_table,
    tags_over_time,
    text_over_time,
)

__all__ = [
    "OTHER",
    "PAIR_TABLE_ORDER",
    "SPARKLINE_POINTS",
    "SPARKLINE_TAGS",
    "TABLE_ORDER",
    "TAG_CHOICES",
    "TAG_LABELS",
    "TAG_TABLE_ORDER",
    "TEXT_CHARACTERS_LABEL",
    "UNATTRIBUTED",
    "UNTAGGED",
    "Kpi",
    "TagChoices",
    "TagSummary",
    "bucket_breakdown",
    "cumulative",
    "key_display",
    "key_names",
    "key_table",
    "kpis",
    "pair_display",
    "pair_keys",
    "pair_matrix",
    "pair_table",
    "pairs_of",
    "relative_change",
    "restrict_keys",
    "rolling_mean",
    "search_keys",
    "search_tags",
    "sparkline_granularity",
    "tag_choices",
    "tag_days",
    "tag_display",
    "tag_summary",
    "tag_table",
    "tags_over_time",
    "text_over_time",
    "top_keys",
    "top_n_over_time",
    "top_n_totals",
    "usage_over_time",
]
