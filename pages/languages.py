"""Languages: what each resource supports, side by side, with glossary pairs and v2→v3 changes."""

import streamlit as st

from analytics import languages
from analytics.dashboard import data
from analytics.dashboard.messages import service_errors
from analytics.dashboard.source import source as data_source

source = data_source()

st.title("Languages")
st.caption("From the v3 and v2 language lists; refreshed at most hourly.")

with service_errors(source):
    lists = data.language_lists(source)
    v2_sources, v2_targets = data.v2_lists(source)

check = st.column_config.CheckboxColumn
resource = (
    st.segmented_control(
        "Resource",
        languages.RESOURCES,
        help="Shown in the By resource and Feature matrix tabs.",
        default="translate_text",
        format_func=languages.RESOURCE_LABELS.__getitem__,
        required=True,
        key="resource",
        bind="query-params",
    )
    or "translate_text"
)
by_resource, matrix, side_by_side, glossary, versions, detection = st.tabs(
    [
        "By resource",
        "Feature matrix",
        "Availability",
        "Glossary pairs",
        "v2 → v3",
        "Detect language (beta)",
    ]
)

with by_resource:
    table = languages.language_table(lists[resource])
    st.dataframe(
        table,
        hide_index=True,
        column_config={
            "lang": "Code",
            "name": "Language",
            "source": check("Source"),
            "target": check("Target"),
            "status": "Status",
            "features": "Features",
        },
    )
    st.caption(f"{len(table)} languages for {languages.RESOURCE_LABELS[resource].lower()}.")

with matrix:
    features = languages.feature_matrix(lists[resource])
    st.caption(f"Features per language for {languages.RESOURCE_LABELS[resource].lower()}.")
    st.dataframe(features, hide_index=True, column_config={"lang": "Code", "name": "Language"})

with side_by_side:
    st.dataframe(
        languages.availability(lists),
        hide_index=True,
        column_config={"lang": "Code", "name": "Language", **languages.RESOURCE_LABELS},
    )

with glossary:
    pairs = languages.glossary_pairs(lists["glossary"])
    document_pairs = languages.document_glossary_pairs(lists["translate_document"])
    left, right = st.columns(2, gap="large")
    pair_columns = {
        "source_lang": "Source",
        "source_name": "Source language",
        "target_lang": "Target",
        "target_name": "Target language",
    }
    with left:
        st.subheader(f"Glossary language pairs ({len(pairs):,})")
        st.caption("Any valid glossary source with any valid target of another language.")
        st.dataframe(pairs, hide_index=True, column_config=pair_columns)
    with right:
        st.subheader(f"Glossaries in document translation ({len(document_pairs):,})")
        st.caption("The `glossary` feature is present on both languages of translate_document.")
        st.dataframe(document_pairs, hide_index=True, column_config=pair_columns)

with versions:
    differences = languages.v2_v3_differences(v2_sources, v2_targets, lists["translate_text"])
    st.caption(
        "v2 `/v2/languages` (uppercase codes, `supports_formality`) against v3 "
        "`translate_text` (BCP 47 casing, `features.formality`), matched case-insensitively."
    )
    st.dataframe(
        differences,
        hide_index=True,
        column_config={
            "v2_code": "v2 code",
            "v3_code": "v3 code",
            "name": "Language",
            "v2_roles": "v2 role",
            "v3_roles": "v3 role",
            "v2_supports_formality": check("v2 supports_formality"),
            "v3_formality_feature": check("v3 formality feature"),
            "casing_differs": check("Casing differs"),
            "formality_agrees": check("Formality agrees"),
        },
    )

with detection:
    st.caption("Beta: needs an account enrolled in language detection. Up to 50 texts per call.")
    with st.form("detect"):
        raw = st.text_area("Texts, one per line", height=140)
        submitted = st.form_submit_button("Detect", icon=":material/search:")
    texts = languages.pasted_texts(raw)
    if submitted and not texts:
        st.info("Paste at least one line of text.")
    elif submitted:
        with service_errors(source):
            results = data.detect(source, texts)
        st.dataframe(
            languages.detection_table(texts, results, lists),
            hide_index=True,
            column_config={
                "text": "Text",
                "status": "Status",
                "language": "Code",
                "name": "Language",
                "usable_as_source_in": "Usable as source in",
            },
        )
