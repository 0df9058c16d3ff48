"""The synthetic organization's custom tags: the signature keys' own and a dozen shared ones,
or many thousands with a long tail (customers used every day, documents seldom)."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np

from emulator.org import TagShare

# Custom tags of the signature keys: (tag, share of the key's text characters). The launch
# campaign's tag runs for LAUNCH_CAMPAIGN_DAYS from the launch; the dormant key and the document
# pipeline tag nothing.
SIGNATURE_TAGS: tuple[tuple[tuple[str, float], ...], ...] = (
    (("checkout", 0.2), ("product-pages", 0.3)),
    (("quarterly-report", 0.5),),
    (("support-tickets", 0.45), ("chat-replies", 0.2)),
    (),
    (("launch-campaign", 0.6), ("newsletter", 0.15)),
    (("email-drafts", 0.35), ("product-pages", 0.15)),
    (("meeting-notes", 0.5),),
    (),
)
LAUNCH_CAMPAIGN_DAYS = 90
# Further keys draw one to three of these, so most tags span several keys.
MORE_TAGS = (
    "checkout",
    "product-pages",
    "help-center",
    "support-tickets",
    "release-notes",
    "newsletter",
    "chat-replies",
    "catalog-sync",
    "legal-review",
    "onboarding",
    "email-drafts",
    "meeting-notes",
)
# Many custom tags (`draw_many_tags`): customers used every day, documents seldom.
MAX_TAGS = 100_000
CUSTOMERS_PER_ROOT = 3  # customers: 3 × √(tags), 300 of 10,000
CUSTOMER_SHARE = 0.6  # of a key's text characters, for all its customers together
MIN_CUSTOMER_SHARE = 0.0002  # so a customer tags a character of TAGGED_TEXT
MAX_CUSTOMERS_PER_KEY = 1_500  # customers whose least shares leave room for the biggest
DOCUMENT_SHARE = 0.3  # of a key-day's text characters, for the documents used that day
DOCUMENT_RUNS = 3  # runs of the first document; the others' in proportion to 1 / rank
RUN_DAYS = 5
TAGGED_TEXT = 5_000  # characters of one kind on the key-day a tag starts on


def draw_tags(
    rng: np.random.Generator, n_keys: int, first_day: dt.date, n_days: int
) -> list[tuple[TagShare, ...]]:
    """Custom tags per key: the signature keys' own, then for three in four further keys one to
    three shared tags on 10-35% of the text each (at most 90% together), a quarter of them
    only for a stretch of 30-180 days. Every key has some text, so all tags come to use."""
    launch = first_day + dt.timedelta(days=n_days // 2)
    campaign = (launch, launch + dt.timedelta(days=LAUNCH_CAMPAIGN_DAYS - 1))
    tags: list[tuple[TagShare, ...]] = []
    for k in range(n_keys):
        if k < len(SIGNATURE_TAGS):
            tags.append(
                tuple(
                    TagShare(tag, share, *(campaign if tag == "launch-campaign" else ()))
                    for tag, share in SIGNATURE_TAGS[k]
                )
            )
            continue
        if rng.random() >= 0.75:
            tags.append(())
            continue
        names = rng.choice(MORE_TAGS, size=int(rng.integers(1, 4)), replace=False)
        shares = rng.uniform(0.1, 0.35, len(names))
        shares *= min(1.0, 0.9 / shares.sum())
        drawn = []
        for name, share in zip(names.tolist(), shares.tolist(), strict=True):
            span: tuple[dt.date, ...] = ()
            if rng.random() < 0.25:
                begin = first_day + dt.timedelta(days=int(rng.integers(0, n_days)))
                span = (begin, begin + dt.timedelta(days=int(rng.integers(30, 181))))
            drawn.append(TagShare(name, round(share, 4), *span))
        tags.append(tuple(drawn))
    return tags


def _tag_names(n_tags: int, n_customers: int) -> list[str]:
    """The tags' names by rank, customers first, numbered to one width so that they sort in
    rank order: ``customer-00001`` … ``doc-10000``."""
    width = len(str(n_tags))
    return [
        f"{'customer' if rank <= n_customers else 'doc'}-{rank:0{width}d}"
        for rank in range(1, n_tags + 1)
    ]


def _customer_shares(
    rng: np.random.Generator, n_keys: int, roomy_keys: np.ndarray, customers: list[str]
) -> list[list[TagShare]]:
    """Each key's customer tags (`customers` by rank), dealt out to the keys with room in a
    random order, round after round: a key's customers share CUSTOMER_SHARE of its text in
    proportion to 1 / rank, at least MIN_CUSTOMER_SHARE each, for the whole history."""
    shares: list[list[TagShare]] = [[] for _ in range(n_keys)]
    owner = np.resize(rng.permutation(roomy_keys), len(customers))
    for key in np.unique(owner).tolist():
        ranks = np.flatnonzero(owner == key)
        weight = 1.0 / (ranks + 1)
        free = CUSTOMER_SHARE - len(ranks) * MIN_CUSTOMER_SHARE
        part = MIN_CUSTOMER_SHARE + free * weight / weight.sum()
        shares[key] += [TagShare(customers[r], float(p)) for r, p in zip(ranks, part, strict=True)]
    return shares


def draw_many_tags(
    rng: np.random.Generator, taggable: np.ndarray, first_day: dt.date, n_tags: int
) -> list[tuple[TagShare, ...]]:
    """`n_tags` custom tags as an organization that tags per customer or per document has
    them: a long tail. `taggable` is keys × days, the larger of each key-day's text
    translation and text improvement characters.

    The first CUSTOMERS_PER_ROOT × √n_tags tags by rank (a few hundred of 10,000) are customers,
    each on one key for the whole history, so used on every day that key is: a key's customers
    share CUSTOMER_SHARE of its text in proportion to 1 / rank (at least MIN_CUSTOMER_SHARE
    each). The rest are documents, each used in one to DOCUMENT_RUNS runs of one to RUN_DAYS
    days on random keys (runs ∝ 1 / rank, at least one): together at most DOCUMENT_SHARE of a
    key-day's text, shared by the runs covering it. Customers and document runs start on a
    key-day with TAGGED_TEXT characters of one kind, so every tag carries characters at least
    once. Tags on a key-day then add up to at most CUSTOMER_SHARE + DOCUMENT_SHARE of its text.
    """
    if not 1 <= n_tags <= MAX_TAGS:
        raise ValueError(f"a synthetic organization has 1 to {MAX_TAGS:,} tags, not {n_tags}")
    n_keys, n_days = taggable.shape
    roomy_key, roomy_day = np.nonzero(taggable >= TAGGED_TEXT)
    roomy_keys = np.unique(roomy_key)
    n_customers = min(n_tags, round(CUSTOMERS_PER_ROOT * math.sqrt(n_tags)))
    if not len(roomy_keys) or -(-n_customers // len(roomy_keys)) > MAX_CUSTOMERS_PER_KEY:
        raise ValueError(f"too little text in this organization to carry {n_tags:,} tags")
    names = _tag_names(n_tags, n_customers)
    shares = _customer_shares(rng, n_keys, roomy_keys, names[:n_customers])
    # Documents: runs per tag, each run on a key-day with room, then the days it covers.
    ranks = np.arange(n_customers, n_tags)
    runs = np.maximum(1, np.rint(DOCUMENT_RUNS * (n_customers + 1) / (ranks + 1))).astype(int)
    tag = np.repeat(ranks, runs)
    cell = rng.integers(0, len(roomy_key), len(tag))
    key, start = roomy_key[cell], roomy_day[cell]
    # One run per key and tag (the store keeps one span per key and tag): the first drawn.
    _, first = np.unique(tag * n_keys + key, return_index=True)
    tag, key, start = tag[first], key[first], start[first]
    stop = np.minimum(start + rng.integers(1, RUN_DAYS + 1, len(tag)), n_days)
    covering = np.zeros((n_keys, n_days + 1), dtype=np.int64)
    np.add.at(covering, (key, start), 1)
    np.add.at(covering, (key, stop), -1)
    covering = covering.cumsum(axis=1)
    # Each run's share is at most DOCUMENT_SHARE over the runs on its most crowded day.
    crowded = np.array([covering[k, a:b].max() for k, a, b in zip(key, start, stop, strict=True)])
    share = DOCUMENT_SHARE * rng.uniform(0.5, 1.0, len(tag)) / crowded
    if (share * TAGGED_TEXT < 1.01).any():
        raise ValueError(f"too little text in this organization to carry {n_tags:,} tags")
    for r, k, a, b, p in zip(tag, key, start, stop, share, strict=True):
        shares[k].append(
            TagShare(
                names[r],
                float(p),
                first_day + dt.timedelta(days=int(a)),
                first_day + dt.timedelta(days=int(b) - 1),
            )
        )
    return [tuple(key_shares) for key_shares in shares]
