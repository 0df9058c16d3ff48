"""The synthetic organization's language pairs: each key's source, its dominant and rare
targets, unattributed usage, and the same-language pairs of improvement and speech."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from emulator.org import LanguagePair

# Language pairs: each key translates from one source (mostly English) into one to three
# dominant targets and a tail of two to eight rare ones; it improves text (and transcribes
# speech) in its source language, some keys in a second one too.
SOURCES = ("en", "de", "fr", "es", "ja")
SOURCE_ODDS = (0.7, 0.12, 0.08, 0.05, 0.05)
# Target and how likely it is picked early (so dominant pairs favour the popular targets).
TARGETS = {
    "de": 14, "fr": 12, "es": 11, "ja": 9, "it": 7, "zh-Hans": 7, "pt-BR": 6, "en-US": 5,
    "nl": 5, "pl": 4, "ko": 4, "en-GB": 4, "sv": 2, "da": 2, "tr": 2, "fi": 1.5, "cs": 1.5,
    "uk": 1.5, "pt-PT": 1.5,
}  # fmt: skip
PAIR_WEIGHT = 10_000  # a key's weights of one kind add up to about this


def draw_pairs(rng: np.random.Generator, n_keys: int) -> list[tuple[LanguagePair, ...]]:
    """Language pairs per key: 80-95% of its translation on one to three dominant targets, the
    rest on a tail of two to eight; for three keys in ten 2-10% of the dominant pair cannot be
    attributed to the key; same-language pairs for improvement and speech-to-text.

    Drawn for all keys at once (a thousand keys' worth of small draws would be slow): targets
    in weighted order without replacement through Efraimidis-Spirakis keys, shares through
    gamma variates (a Dirichlet per key, truncated to the key's number of pairs).
    """
    source = np.searchsorted(np.cumsum(SOURCE_ODDS), rng.random(n_keys) * sum(SOURCE_ODDS))
    codes = list(TARGETS)
    excluded = np.array([[c.split("-")[0] == s for c in codes] for s in SOURCES])[source]
    priority = np.where(excluded, -np.inf, np.log(rng.random((n_keys, len(codes)))))
    order = np.argsort(-priority / np.array(list(TARGETS.values())), axis=1)
    n_major, n_tail = rng.integers(1, 4, n_keys), rng.integers(2, 9, n_keys)
    major = _shares(rng.gamma(2.0, size=(n_keys, 3)), n_major) * rng.uniform(0.8, 0.95, (n_keys, 1))
    major = -np.sort(-major, axis=1)
    tail = _shares(rng.gamma(0.7, size=(n_keys, 8)), n_tail) * (
        1 - major.sum(axis=1, keepdims=True)
    )
    weights = np.maximum(np.rint(np.hstack([major, tail]) * PAIR_WEIGHT), 1).astype(int)
    unattributed = np.where(rng.random(n_keys) < 0.3, rng.uniform(0.02, 0.1, n_keys), 0)
    second = np.where(rng.random(n_keys) < 0.3, rng.integers(1, len(SOURCES), n_keys), 0)
    second_share = rng.uniform(0.05, 0.3, n_keys)
    keys = []
    for k in range(n_keys):
        language = SOURCES[source[k]]
        slots = [*range(n_major[k]), *range(3, 3 + n_tail[k])]
        pairs = [
            LanguagePair(language, codes[target], weight)
            for target, weight in zip(
                order[k, : len(slots)].tolist(), weights[k, slots].tolist(), strict=True
            )
        ]
        if unattributed[k]:
            pairs.append(
                replace(pairs[0], weight=int(unattributed[k] * PAIR_WEIGHT), attributed=False)
            )
        pairs.append(LanguagePair(language, language, PAIR_WEIGHT))
        if second[k]:
            other = SOURCES[(source[k] + second[k]) % len(SOURCES)]
            pairs.append(LanguagePair(other, other, int(second_share[k] * PAIR_WEIGHT)))
        keys.append(tuple(pairs))
    return keys


def _shares(draws: np.ndarray, used: np.ndarray) -> np.ndarray:
    """Rows of `draws` keeping the first `used` columns, scaled to add up to 1."""
    kept = np.where(np.arange(draws.shape[1]) < used[:, None], draws, 0.0)
    return kept / kept.sum(axis=1, keepdims=True)
