"""Each used key's label as the key list has it now, for the pages that name keys from usage.

Usage carries the label a key had on each day it was used, and the usage of a range is cached
half an hour: a key renamed on Keys & limits (``keys.changes``) would keep its old label on
the Keys page until then, and until it is used under the new one. The key list is read afresh
after every change (``key_list.dropped`` drops it), so a page reads a joined key's label
from it, by the same join Keys & limits shows (the mask the audit log recorded at the change
keeps a renamed key joined); a key the list does not name keeps its label in usage.
"""

from __future__ import annotations

import pandas as pd

from analytics.dashboard import key_list
from analytics.dashboard.source import Source
from analytics.keys import join
from analytics.service import ServiceError


def listed_labels(src: Source, table: pd.DataFrame) -> pd.DataFrame:
    """A per-key table (``api_key``, ``api_key_label``) with each key's label as the key list
    has it now; as it is when the list cannot be read (a key that may not list keys): the
    labels in usage are still the keys' names."""
    rows = list(zip(table["api_key"].astype(str), table["api_key_label"].astype(str), strict=True))
    usage_labels = dict(rows)
    reader = key_list.key_reader(src)
    try:
        listed = reader.developer_keys()
    except ServiceError:
        return table
    now = {
        row.api_key: row.label
        for row in join(listed, usage_labels, reader.recorded_masks())
        if row.joined and row.api_key is not None
    }
    labels = [now.get(key, label) for key, label in rows]
    return table.assign(api_key_label=labels)
