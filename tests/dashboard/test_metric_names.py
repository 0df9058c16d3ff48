"""No page shows a metric by its field name (`total_characters`): titles, captions, messages,
select boxes, tables and charts name it by its label. Every page is run headless and every
text it shows is read."""

from __future__ import annotations

import re

import pytest
from support.headless import PAGES, open_page
from support.shown import worded_texts

from analytics.usage.metrics import METRICS

FIELD_NAME = re.compile("|".join(METRICS))
# An anomaly's id is what `mark-anomaly` is given, typed as shown: a key, not a name.
ANOMALY_ID = re.compile(r"(?:spike|drop|new|dormant):[^`'\s]+")
# Views that show more than a page's first run: every anomaly, every source of an export, a
# chart of minutes.
VIEWS = [
    *((page, {}) for page in PAGES),
    ("anomalies", {"listed": "All"}),
    ("export", {"source": "Custom tags"}),
    ("export", {"source": "Language pairs"}),
    ("trends", {"metric": "Speech-to-text minutes"}),
]


@pytest.mark.parametrize(("page", "params"), VIEWS, ids=[f"{p}{q or ''}" for p, q in VIEWS])
def test_no_page_shows_a_metrics_field_name(demo_env, page, params):
    at = open_page(page, **params)
    texts = worded_texts(at)
    assert texts and not at.exception
    raw = {text for text in texts if FIELD_NAME.search(ANOMALY_ID.sub("", text))}
    assert raw == set()
