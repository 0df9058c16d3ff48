"""Every text a headless run of a page puts in front of its viewer: what a person reads, not
what the page hands Streamlit to work with (a select box's value, a hidden column, a chart
trace's grouping key)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from streamlit.testing.v1 import AppTest

# Keys of a plotly figure that are never drawn as text (grouping, data, styling).
_UNDRAWN = frozenset(
    {
        "offsetgroup", "legendgroup", "uid", "type", "mode", "hoverinfo", "xaxis", "yaxis",
        "x", "y", "z", "customdata", "ids", "fill", "color", "bgcolor", "bordercolor",
        "family", "colorscale", "dash", "shape", "orientation", "anchor", "overlaying", "side",
        "xref", "yref", "xanchor", "yanchor", "valign", "align", "tickformat", "hoverformat",
        "barmode", "hovermode", "fillcolor", "rangemode", "textposition", "line_shape",
        "dragmode", "template", "autorange", "automargin", "layer", "ticklabelposition",
    }
)  # fmt: skip
# Elements whose value is the option picked, shown through its option text.
_CHOICES = frozenset({"selectbox", "radio", "multiselect", "select_slider", "button_group"})


def shown_texts(at: AppTest) -> list[str]:
    """The texts of a run: titles, text, captions, messages, labels, help, options as
    written, metrics, table headings and text cells, and a chart's drawn texts."""
    return list(_texts(at._tree))


def worded_texts(at: AppTest) -> list[str]:
    """The texts a page words itself (`shown_texts`), without the settings documents it shows
    (the Settings page's TOML and its editors): those are the files' own text, with their
    field names, comments and the files they go with, which no wording rule of a page reads."""
    documents = {c.value for c in at.code if c.language == "toml"} | {t.value for t in at.text_area}
    return [text for text in shown_texts(at) if text not in documents]


def _texts(node: object) -> Iterator[str]:
    kind = getattr(node, "type", "")
    if kind == "plotly_chart":
        yield from _drawn(json.loads(node.proto.spec))
    elif kind == "dataframe":
        yield from _table(node)
    elif kind == "progress":
        yield node.proto.text
    elif kind == "button_group":
        proto = node.proto
        yield proto.label
        yield from (option.content for option in proto.options)
    for name in ("label", "help", "placeholder", "options", "delta", "body", "value"):
        if name == "value" and kind in _CHOICES:
            continue
        try:
            value = getattr(node, name)
        except (AttributeError, NotImplementedError, ValueError, TypeError):
            continue
        if isinstance(value, str):
            yield value
        elif isinstance(value, list | tuple):
            yield from (v for v in value if isinstance(v, str))
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from _texts(child)
    if kind == "exception":
        yield from node.stack_trace


def _table(node: object) -> Iterator[str]:
    """A table's headings (a column's configured label, else its name) and its text cells,
    for the columns it shows."""
    config = json.loads(node.proto.columns or "{}")
    frame = node.value
    for column in list(node.proto.column_order) or list(frame.columns):
        settings = config.get(str(column), {})
        if settings.get("hidden"):
            continue
        yield settings.get("label", str(column))
        if column in frame.columns and frame[column].dtype == object:
            yield from (str(cell) for cell in frame[column].dropna().astype(str).unique())


def _drawn(spec: object, key: str | None = None) -> Iterator[str]:
    if isinstance(spec, dict):
        for name, value in spec.items():
            if name not in _UNDRAWN:
                yield from _drawn(value, name)
    elif isinstance(spec, list):
        for value in spec:
            yield from _drawn(value, key)
    elif isinstance(spec, str):
        yield spec


def change_as_written(now: int, before: int) -> str:
    """The change from ``before`` to ``now`` (whole counts) in percent as a person writes it,
    worked out exactly: one decimal, halves away from zero, a narrow no-break space (U+202F)
    before ``%``."""
    tenths, remainder = divmod(abs(now - before) * 1000, before)
    tenths += 2 * remainder >= before
    sign = "-" if now < before and tenths else "+"
    return f"{sign}{tenths // 10:,}.{tenths % 10}\u202f%"
