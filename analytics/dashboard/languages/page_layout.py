"""The Languages page laid out, one function a tab: the resource chosen above the tabs, then
its languages, its feature matrix, a pair check, every resource side by side, the glossary
pairs, the v2→v3 differences and language detection. The lists are `language_cache`'s, read
once a run."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from analytics import languages
from analytics.dashboard import language_cache
from analytics.dashboard.column_config import language_columns
from analytics.dashboard.messages import service_errors
from analytics.dashboard.source import Source
from analytics.pages import LANGUAGE_TABS, page_at
from analytics.service import LanguageEntry, LanguageResource, V2Language

Lists = dict[str, list[LanguageEntry]]


def languages_page(source: Source) -> None:
    """The whole page over `source`: the language lists read once, the resource chosen, and
    each tab."""
    st.title("Languages")
    st.caption(
        "From the v3 and v2 language lists; refreshed at most hourly. Beta and early-access "
        "languages and features are included and marked with their status: the service may "
        "still change or withdraw them."
    )
    with service_errors(source):
        lists = language_cache.language_lists(source)
        resources = language_cache.language_resources(source)
        v2_sources, v2_targets = language_cache.v2_lists(source)
    resource = (
        st.segmented_control(
            "Resource",
            tuple(lists),  # the resources the service offers
            help="Shown in the By resource, Feature matrix and Pair check tabs.",
            default="translate_text",
            format_func=languages.RESOURCE_LABELS.__getitem__,
            required=True,
            key="resource",
            bind="query-params",
        )
        or "translate_text"
    )
    label = languages.RESOURCE_LABELS[resource]
    by_resource, matrix, pair_check, side_by_side, glossary, versions, detection = st.tabs(
        list(LANGUAGE_TABS), key="languages_view"
    )
    with by_resource:
        table = languages.language_table(lists[resource])
        st.dataframe(table, hide_index=True, column_config=language_columns(table))
        st.caption(f"{len(table)} languages for {label.lower()}.")
    with matrix:
        features = languages.feature_matrix(lists[resource])
        st.caption(f"Features per language for {label.lower()}.")
        st.dataframe(features, hide_index=True, column_config=language_columns(features))
    with pair_check:
        check_pair(resources, lists[resource], resource)
    with side_by_side:
        side = languages.availability(lists)
        st.dataframe(side, hide_index=True, column_config=language_columns(side))
    with glossary:
        glossary_pairs(lists)
    with versions:
        v2_v3_differences(v2_sources, v2_targets, lists)
    with detection:
        detect(source, lists)


def check_pair(
    resources: Sequence[LanguageResource], entries: Sequence[LanguageEntry], resource: str
) -> None:
    """A source and a target of the resource, each kept in the address, with the features
    available for the pair, and a link to the source language's usage in language pairs."""
    label = languages.RESOURCE_LABELS[resource]
    sources = [e.lang for e in entries if e.usable_as_source]
    targets = [e.lang for e in entries if e.usable_as_target]
    left, right = st.columns(2)
    source_lang = language_select(left, "Source language", sources, "source")
    target_lang = language_select(
        right, "Target language", targets, "target", languages.other_language(targets, source_lang)
    )
    if source_lang is None or target_lang is None:
        missing = "source" if source_lang is None else "target"
        st.info(f"No language is usable as a {missing} for {label.lower()}: no pair to check.")
    else:
        usable = languages.pair_features(resources, entries, resource, source_lang, target_lang)
        names = {e.lang: languages.marked(e.name, e.status) for e in entries}
        pair = f"{names[source_lang]} → {names[target_lang]}"
        if usable.empty:
            st.info(f"No features are listed for {label.lower()}: nothing to check for {pair}.")
        else:
            st.caption(
                f"{usable['available'].sum()} of {len(usable)} features of "
                f"{label.lower()} available for {pair}. A feature is available when each "
                "language it is needed on supports it."
            )
            st.dataframe(usable, hide_index=True, column_config=language_columns(usable))
    if source_lang is not None:
        st.page_link(
            page_at("pairs").file,
            label=f"Usage of {source_lang} in language pairs",
            icon=":material/swap_horiz:",
            query_params={"language": source_lang},
        )


def language_select(
    where: DeltaGenerator, label: str, codes: list[str], key: str, index: int = 0
) -> str | None:
    """A language of `codes`, kept in the address as `key`; None when the resource has no
    language usable on that side, as Streamlit's selectbox of no options gives."""
    return where.selectbox(label, codes, index=index, key=key, bind="query-params")


def glossary_pairs(lists: Lists) -> None:
    """The glossary language pairs, and the pairs whose documents a glossary can translate."""
    pairs = languages.glossary_pairs(lists["glossary"])
    document_pairs = languages.document_glossary_pairs(lists["translate_document"])
    left, right = st.columns(2, gap="large")
    with left:
        st.subheader(f"Glossary language pairs ({len(pairs):,})")
        st.caption("Any valid glossary source with any valid target of another language.")
        st.dataframe(pairs, hide_index=True, column_config=language_columns(pairs))
    with right:
        st.subheader(f"Glossaries in document translation ({len(document_pairs):,})")
        st.caption(
            f"The {languages.feature_label('glossary')} feature is present on both languages "
            f"of {languages.RESOURCE_LABELS['translate_document'].lower()}."
        )
        st.dataframe(
            document_pairs, hide_index=True, column_config=language_columns(document_pairs)
        )


def v2_v3_differences(
    v2_sources: Sequence[V2Language], v2_targets: Sequence[V2Language], lists: Lists
) -> None:
    """Where the v2 lists and v3's text translation list disagree."""
    differences = languages.v2_v3_differences(v2_sources, v2_targets, lists["translate_text"])
    st.caption(
        "v2 `/v2/languages` (uppercase codes, `supports_formality`) against v3 "
        "`translate_text` (BCP 47 casing, `features.formality`), matched case-insensitively."
    )
    st.dataframe(differences, hide_index=True, column_config=language_columns(differences))


def detect(source: Source, lists: Lists) -> None:
    """Texts pasted one a line, each one's language detected at Detect: never cached, since
    detection is an explicit request with its own rate limit."""
    st.caption("Beta: needs an account enrolled in language detection. Up to 50 texts per call.")
    with st.form("detect"):
        raw = st.text_area("Texts, one per line", height=140)
        submitted = st.form_submit_button("Detect", icon=":material/search:")
    texts = languages.pasted_texts(raw)
    if submitted and not texts:
        st.info("Paste at least one line of text.")
    elif submitted:
        with service_errors(source):
            results = language_cache.detect(source, texts)
        detected = languages.detection_table(texts, results, lists)
        st.dataframe(detected, hide_index=True, column_config=language_columns(detected))
