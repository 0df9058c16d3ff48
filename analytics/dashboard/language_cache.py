"""The dashboard's language lists, resources and detection, at the boundary where they come in:
the lists are asked at most hourly (they change with the service's releases, not with usage),
keyed by the source's fingerprint like every cached call of `data`; detection is never
cached."""

from __future__ import annotations

import streamlit as st

from analytics import languages
from analytics.dashboard.data import client
from analytics.dashboard.source import Source
from analytics.service import DetectionResult, LanguageEntry, LanguageResource, Resource, V2Language

LANGUAGES_TTL = "1h"


@st.cache_data(ttl=LANGUAGES_TTL, show_spinner="Loading language lists…")
def _language_lists(
    fingerprint: str, _source: Source, resources: tuple[Resource, ...]
) -> dict[str, list[LanguageEntry]]:
    return {r: client(_source).languages(r, include_beta=True) for r in resources}


def language_lists(src: Source) -> dict[str, list[LanguageEntry]]:
    """The v3 list of every resource the service offers (`languages.offered`, from its
    resource list), refreshed at most hourly; beta and early-access entries included, since
    the page shows (and marks) everything the service offers."""
    return _language_lists(src.fingerprint, src, languages.offered(language_resources(src)))


@st.cache_data(ttl=LANGUAGES_TTL, show_spinner=False)
def _language_resources(fingerprint: str, _source: Source) -> list[LanguageResource]:
    return client(_source).language_resources()


def language_resources(src: Source) -> list[LanguageResource]:
    """Each resource's features and the side of a pair that needs them, refreshed at most
    hourly."""
    return _language_resources(src.fingerprint, src)


@st.cache_data(ttl=LANGUAGES_TTL, show_spinner=False)
def _v2_lists(fingerprint: str, _source: Source) -> tuple[list[V2Language], list[V2Language]]:
    c = client(_source)
    return c.languages_v2("source"), c.languages_v2("target")


def v2_lists(src: Source) -> tuple[list[V2Language], list[V2Language]]:
    """The v2 source and target lists, refreshed at most hourly."""
    return _v2_lists(src.fingerprint, src)


def detect(src: Source, texts: list[str]) -> list[DetectionResult]:
    """Not cached: detection is an explicit request with its own rate limit."""
    return client(src).detect(texts)
