"""What a scope shows: random organizations whose teams claim keys by masked key, exact label
or label pattern and tags by tag or pattern, each kept row checked against the test's own
matcher (written from the structure the organization was drawn with, not from the teams
file's rules) and the support's ledger frames as the oracle of the frames."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import NamedTuple

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.builders import (
    METRICS,
    PAIR_DAY_COLUMNS,
    assert_matches_ledger,
    assert_matches_pair_ledger,
    assert_matches_tag_ledger,
    ledger_frame,
    ledger_totals,
    pair_ledger_frame,
    tag_ledger_frame,
)

from analytics.access import WHOLE_ORGANIZATION, OutOfScope, Reach, Scope, Visible
from analytics.capacity.budgets import parse_budgets
from analytics.cost.teams import parse_teams
from analytics.service.models import DeveloperKey
from analytics.usage.frames import (
    key_day_frame,
    pair_day_frame,
    pair_key_day_frame,
    tag_day_frame,
)
from analytics.usage.pipeline import FetchedRange

FIRST = date(2025, 3, 1)
LAST = FIRST + timedelta(days=3)
TEAM_NAMES = ["Web shop", "Apps", "Data"]
ELSEWHERE = "Elsewhere"  # a team a grant may name that the teams settings do not hold
# Labels are PREFIX-SUFFIX; "web" and "Web" are two prefixes, since label patterns are
# case-sensitive. A team claims the labels of the prefixes it owns, each prefix one way.
KEY_PREFIXES = ["web", "Web", "ios", "data"]
LABEL_SUFFIXES = ["1", "2", "12", "x"]
LABEL_KINDS = ["*", "?", "[12]", "exact"]
TAG_PREFIXES = ["web", "ios", "ops"]
TAG_SUFFIXES = ["a", "b", "ab"]
TAG_KINDS = ["*", "?", "exact"]
PAIRS = [("en", "de"), ("en", "fr"), ("de", "en")]
DAYS = range((LAST - FIRST).days + 1)
UNATTRIBUTED = "-"  # the pair report's key of usage no key made, labelled "unknown"


@dataclass(frozen=True)
class Claim:
    """One team's claim on the names (labels or tags) of one prefix: all of them (``*``), the
    one-character suffixes (``?``), the suffixes 1 and 2 (``[12]``) or the names listed."""

    team: str
    prefix: str
    kind: str
    names: tuple[str, ...] = ()

    def matches(self, name: str, separator: str) -> bool:
        prefix, _, suffix = name.partition(separator)
        if prefix != self.prefix:
            return False
        return {
            "*": True,
            "?": len(suffix) == 1,
            "[12]": suffix in ("1", "2"),
            "exact": name in self.names,
        }[self.kind]

    def rule(self, separator: str, exact: str, patterns: str) -> tuple[str, list[str]]:
        """The field and the values of the teams file that write this claim."""
        if self.kind == "exact":
            return exact, list(self.names)
        return patterns, [f"{self.prefix}{separator}{self.kind}"]


@dataclass(frozen=True)
class Key:
    mask: str
    key_id: str  # its masked form is `mask`, as the service's key ids of paid-plan keys
    label: str  # in usage
    listed_label: str  # in the key list
    used: bool
    listed: bool


class Used(NamedTuple):
    """A row of usage in the shape the support's ledger frames read."""

    usage_date: date
    api_key: str
    api_key_label: str
    text_translation_characters: int
    document_translation_characters: int
    text_improvement_characters: int
    speech_to_text_minutes: float
    speech_to_speech_minutes: float
    source_language: str = ""
    target_language: str = ""
    attributed: bool = True


class Tagged(NamedTuple):
    usage_date: date
    custom_tag: str
    text_translation_characters: int
    text_improvement_characters: int


@dataclass(frozen=True)
class Organization:
    teams: list[str]
    label_claims: list[Claim]
    mask_claims: dict[str, str]
    tag_claims: list[Claim]
    keys: list[Key]
    tags: list[str]
    key_rows: list[Used]
    pair_rows: list[Used]
    tag_rows: list[Tagged]
    scope: frozenset[str]

    def key_team(self, mask: str, label: str) -> str | None:
        """The test's matcher: the team that claims the key's mask, else its label."""
        if mask in self.mask_claims:
            return self.mask_claims[mask]
        return next((c.team for c in self.label_claims if c.matches(label, "-")), None)

    def tag_team(self, tag: str) -> str | None:
        return next((c.team for c in self.tag_claims if c.matches(tag, "_")), None)

    def in_scope(self, team: str | None) -> bool:
        return team in self.scope

    def keys_in_scope(self, rows: list[Used]) -> list[Used]:
        """The rows of the keys the test's matcher gives a team in scope."""
        return [row for row in rows if self.in_scope(self.key_team(row.api_key, row.api_key_label))]

    def teams_file(self) -> str:
        """The teams file of these claims, as a person would write it."""
        entries = []
        for index, name in enumerate(self.teams):
            fields: dict[str, list[str]] = {}
            for claim in self.label_claims:
                if claim.team == name:
                    field, values = claim.rule("-", "labels", "label_patterns")
                    fields.setdefault(field, []).extend(values)
            for claim in self.tag_claims:
                if claim.team == name:
                    field, values = claim.rule("_", "tags", "tag_patterns")
                    fields.setdefault(field, []).extend(values)
            masks = [mask for mask, team in self.mask_claims.items() if team == name]
            if masks:
                fields["keys"] = masks
            if not fields:  # a team must claim something: a tag nobody uses
                fields["tags"] = [f"spare-{index}"]
            lines = [f"name = {json.dumps(name)}"]
            lines += [f"{field} = {json.dumps(values)}" for field, values in fields.items()]
            entries.append("[[team]]\n" + "\n".join(lines) + "\n")
        return "\n".join(entries)


def claims(
    draw: st.DrawFn,
    owners: dict[str, str | None],
    names: Callable[[str], list[str]],
    kinds: list[str],
) -> list[Claim]:
    found = []
    for prefix, team in owners.items():
        if team is not None:
            kind = draw(st.sampled_from(kinds))
            listed = st.lists(st.sampled_from(names(prefix)), min_size=1, unique=True)
            found.append(Claim(team, prefix, kind, tuple(draw(listed)) if kind == "exact" else ()))
    return found


counts = st.tuples(
    st.integers(0, 900_000),
    st.integers(0, 90_000),
    st.integers(0, 9_000),
    st.integers(0, 400).map(lambda quarters: quarters / 4),
    st.integers(0, 40).map(lambda quarters: quarters / 4),
)
days = st.sets(st.sampled_from(DAYS), min_size=1)


@st.composite
def organizations(draw: st.DrawFn) -> Organization:
    teams = TEAM_NAMES[: draw(st.integers(1, len(TEAM_NAMES)))]
    owner_or_none = st.sampled_from([None, *teams])
    key_owners = {prefix: draw(owner_or_none) for prefix in KEY_PREFIXES}
    label_claims = claims(
        draw, key_owners, lambda p: [f"{p}-{s}" for s in LABEL_SUFFIXES], LABEL_KINDS
    )
    tag_owners = {prefix: draw(owner_or_none) for prefix in TAG_PREFIXES}
    tag_claims = claims(draw, tag_owners, lambda p: [f"{p}_{s}" for s in TAG_SUFFIXES], TAG_KINDS)

    heads = draw(
        st.lists(
            st.text("0123456789abcdef", min_size=4, max_size=4), min_size=1, max_size=8, unique=True
        )
    )
    keys, mask_claims = [], {}
    for index, head in enumerate(heads):
        tail = f"{draw(st.integers(0, 9999)):04d}"
        mask, prefix = f"{head}****{tail}", draw(st.sampled_from(KEY_PREFIXES))
        label = f"{prefix}-{draw(st.sampled_from(LABEL_SUFFIXES))}"
        used, listed = draw(st.sampled_from([(True, True), (True, False), (False, True)]))
        # A key renamed in the list keeps its prefix; a key with no usage has a label no
        # usage carries, so the key list joins every key by its key id's mask.
        renamed = f"{prefix}-{draw(st.sampled_from(LABEL_SUFFIXES))}"
        listed_label = renamed if used else f"{prefix}-old{index}"
        keys.append(Key(mask, f"{head}-key-id-{tail}", label, listed_label, used, listed))
        if draw(st.booleans()):  # claimed by its mask, by its prefix's owner if it has one
            mask_claims[mask] = key_owners[prefix] or draw(st.sampled_from(teams))

    key_rows = [
        Used(FIRST + timedelta(days=day), key.mask, key.label, *draw(counts))
        for key in keys
        if key.used
        for day in sorted(draw(days))
    ]
    pair_keys = [(key.mask, key.label) for key in keys if key.used]
    pair_rows = [
        Used(FIRST + timedelta(days=day), mask, label, *draw(counts), *pair, mask != UNATTRIBUTED)
        for mask, label in [*pair_keys, (UNATTRIBUTED, "unknown")]
        for day, pair in draw(st.sets(st.tuples(st.sampled_from(DAYS), st.sampled_from(PAIRS))))
    ]
    tag_names = [f"{p}_{s}" for p in TAG_PREFIXES for s in TAG_SUFFIXES]
    tags = draw(st.lists(st.sampled_from(tag_names), unique=True, min_size=1, max_size=6))
    tag_rows = [
        Tagged(FIRST + timedelta(days=day), tag, *draw(st.tuples(*[st.integers(0, 50_000)] * 2)))
        for tag in tags
        for day in sorted(draw(days))
    ]
    scope = draw(st.sets(st.sampled_from([*teams, ELSEWHERE]), min_size=1))
    return Organization(
        teams,
        label_claims,
        mask_claims,
        tag_claims,
        keys,
        tags,
        sorted(key_rows, key=lambda row: (row.usage_date, row.api_key)),
        pair_rows,
        tag_rows,
        frozenset(scope),
    )


# --- the frames as the project builds them, and the oracle's -------------------------------


def key_day(rows: list[Used]) -> pd.DataFrame:
    return key_day_frame([ledger_frame(rows)])


def pair_key_day(rows: list[Used]) -> pd.DataFrame:
    return pair_key_day_frame([pair_ledger_frame(rows, by_key=True)])


def tag_day(rows: list[Tagged]) -> pd.DataFrame:
    return tag_day_frame([tag_ledger_frame(rows)])


def assert_kept(shown: pd.DataFrame, given: pd.DataFrame, kept: list, matches: Callable) -> None:
    """``shown`` holds exactly the ``kept`` rows (no row is an empty frame of the columns
    given), in the dtypes given."""
    assert list(shown.columns) == list(given.columns)
    assert list(map(str, shown.dtypes)) == list(map(str, given.dtypes))
    if kept:
        matches(shown, kept)
    else:
        assert shown.empty


def categories(frame: pd.DataFrame, column: str) -> set[str]:
    return set(frame[column].cat.categories)


def reader(frames: dict[str, pd.DataFrame]) -> tuple[Callable[[str], FetchedRange], list[str]]:
    """A report reader over ready frames, and the names it was asked for."""
    asked: list[str] = []

    def read(name: str) -> FetchedRange:
        asked.append(name)
        return FetchedRange(frames[name], FIRST, LAST, windows_fetched=1)

    return read, asked


def visible(org: Organization) -> Visible:
    return Visible(Scope(org.scope), parse_teams(org.teams_file()))


def keys_kept(org: Organization, rows: list, frame_of: Callable, matches: Callable) -> tuple:
    """The team's view, the frame of the ledger's `rows`, the rows of the team's keys among
    them, and the view's per-key rows of that frame, checked to be exactly those."""
    shown, frame, kept = visible(org), frame_of(rows), org.keys_in_scope(rows)
    by_key = shown.key_day(frame)
    assert_kept(by_key, frame, kept, matches)
    return shown, frame, kept, by_key


# --- a team's scope --------------------------------------------------------------------------


@settings(max_examples=30)
@given(organizations())
def test_a_team_scope_keeps_exactly_its_keys_rows(org):
    shown, frame, kept, rows = keys_kept(org, org.key_rows, key_day, assert_matches_ledger)
    assert rows[METRICS].sum().to_dict() == pytest.approx(ledger_totals(kept))
    assert categories(rows, "api_key") == {row.api_key for row in kept}
    assert categories(rows, "api_key_label") == {row.api_key_label for row in kept}

    read, asked = reader({"usage": frame})
    fetched = shown.report("usage", read)
    assert asked == ["usage"]
    assert (fetched.start, fetched.end, fetched.windows_fetched) == (FIRST, LAST, 1)
    assert_kept(fetched.frame, frame, kept, assert_matches_ledger)


@settings(max_examples=30)
@given(organizations())
def test_a_team_scope_keeps_exactly_its_tags_rows(org):
    shown = visible(org)
    frame = tag_day(org.tag_rows)
    kept = [row for row in org.tag_rows if org.in_scope(org.tag_team(row.custom_tag))]

    rows = shown.tag_day(frame)
    assert_kept(rows, frame, kept, assert_matches_tag_ledger)
    assert categories(rows, "custom_tag") == {row.custom_tag for row in kept}

    read, asked = reader({"tags": frame})
    assert_kept(shown.report("tags", read).frame, frame, kept, assert_matches_tag_ledger)
    assert asked == ["tags"]


@settings(max_examples=30)
@given(organizations())
def test_a_team_scopes_pairs_are_summed_from_its_keys_pair_rows(org):
    shown, frame, kept, by_key = keys_kept(
        org, org.pair_rows, pair_key_day, assert_matches_pair_ledger
    )
    assert categories(by_key, "api_key") == {row.api_key for row in kept}

    pairs = shown.pair_day(frame)
    assert list(pairs.columns) == PAIR_DAY_COLUMNS
    if kept:
        assert_matches_pair_ledger(pairs, kept)
    else:
        assert pairs.empty
    assert pairs[METRICS].sum().to_dict() == pytest.approx(ledger_totals(kept))
    assert categories(pairs, "source_language") == {row.source_language for row in kept}
    assert categories(pairs, "target_language") == {row.target_language for row in kept}

    read, asked = reader({"pair_keys": frame})
    fetched = shown.report("pairs", read)
    assert asked == ["pair_keys"]
    assert (fetched.start, fetched.end) == (FIRST, LAST)
    pd.testing.assert_frame_equal(fetched.frame, pairs)


@settings(max_examples=30)
@given(organizations())
def test_a_team_scope_lists_exactly_its_keys_and_tags(org):
    shown = visible(org)
    usage_labels = {key.mask: key.label for key in org.keys if key.used}
    listed = [DeveloperKey(key.key_id, key.listed_label) for key in org.keys if key.listed]
    in_list = [
        DeveloperKey(key.key_id, key.listed_label)
        for key in org.keys
        if key.listed and org.in_scope(org.key_team(key.mask, key.listed_label))
    ]

    assert shown.key_labels(usage_labels) == {
        mask: label
        for mask, label in usage_labels.items()
        if org.in_scope(org.key_team(mask, label))
    }
    assert shown.developer_keys(listed, usage_labels) == in_list
    assert shown.key_ids(listed, usage_labels) == {key.key_id for key in in_list}
    assert shown.tags(org.tags) == [tag for tag in org.tags if org.in_scope(org.tag_team(tag))]


# --- the whole organization -------------------------------------------------------------------


@settings(max_examples=15)
@given(organizations())
def test_the_whole_organization_sees_everything_unchanged(org):
    shown = Visible(WHOLE_ORGANIZATION, parse_teams(org.teams_file()))
    frames = {
        "usage": key_day(org.key_rows),
        "tags": tag_day(org.tag_rows),
        "pairs": pair_day_frame([pair_ledger_frame(org.pair_rows, by_key=False)]),
        "pair_keys": pair_key_day(org.pair_rows),
    }
    originals = {name: frame.copy() for name, frame in frames.items()}
    for name, frame in frames.items():
        read, asked = reader(frames)
        pd.testing.assert_frame_equal(shown.report(name, read).frame, originals[name])
        assert asked == [name]
        pd.testing.assert_frame_equal(frame, originals[name])
    pd.testing.assert_frame_equal(shown.key_day(frames["usage"]), originals["usage"])
    pd.testing.assert_frame_equal(shown.tag_day(frames["tags"]), originals["tags"])
    if org.pair_rows:
        assert_matches_pair_ledger(shown.pair_day(frames["pair_keys"]), org.pair_rows)

    usage_labels = {key.mask: key.label for key in org.keys if key.used}
    listed = [DeveloperKey(key.key_id, key.listed_label) for key in org.keys if key.listed]
    assert shown.key_labels(usage_labels) == usage_labels
    assert shown.developer_keys(listed, usage_labels) == listed
    assert shown.key_ids(listed, usage_labels) == {key.key_id for key in listed}
    assert shown.tags(org.tags) == org.tags


# --- by hand ------------------------------------------------------------------------------------

HAND_TEAMS = parse_teams(
    '[[team]]\nname = "Web shop"\nlabel_patterns = ["web-*"]\ntags = ["checkout"]\n'
    '[[team]]\nname = "Apps"\nkeys = ["web0****0002"]\n'
)


def test_a_teams_pairs_by_hand():
    rows = [
        Used(FIRST, "web0****0001", "web-shop", 100, 0, 0, 0.0, 0.0, "en", "de"),
        Used(FIRST, "web0****0002", "app", 40, 0, 0, 0.0, 0.0, "en", "de"),  # Apps' key
        Used(FIRST, "blog****0003", "blog", 7, 0, 0, 0.0, 0.0, "en", "fr"),
        Used(FIRST, "web0****0004", "web-blog", 20, 3, 1, 0.5, 0.0, "en", "de"),
    ]
    pairs = Visible(Scope(frozenset({"Web shop"})), HAND_TEAMS).pair_day(pair_key_day(rows))
    assert len(pairs) == 1
    row = pairs.iloc[0]
    assert (row.source_language, row.target_language) == ("en", "de")
    assert (row.total_characters, row.text_translation_characters) == (124, 120)
    assert row.speech_to_text_minutes == 0.5


def test_a_teams_rows_and_tags_by_hand():
    frame = key_day(
        [
            Used(FIRST, "web0****0001", "web-shop", 100, 0, 0, 0.0, 0.0),
            Used(FIRST, "web0****0002", "app", 40, 0, 0, 0.0, 0.0),
        ]
    )
    apps = Visible(Scope(frozenset({"Apps"})), HAND_TEAMS)
    assert apps.key_day(frame)["api_key"].tolist() == ["web0****0002"]
    assert apps.key_day(frame)["total_characters"].tolist() == [40]
    assert apps.tags(["checkout", "search"]) == []
    web = Visible(Scope(frozenset({"Web shop"})), HAND_TEAMS)
    assert web.tags(["search", "checkout"]) == ["checkout"]
    assert list(web.key_day(frame)["api_key"].cat.categories) == ["web0****0001"]


# --- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scope", "name"),
    [
        (WHOLE_ORGANIZATION, "the organization"),
        (Scope(frozenset({"Web shop"})), "team Web shop"),
        (Scope(frozenset({"Web shop", "Apps"})), "teams Apps, Web shop"),
    ],
)
def test_a_refusal_names_what_was_asked_and_the_scope(scope, name):
    refused = scope.refusal("key 'k-123'")
    assert isinstance(refused, OutOfScope)
    assert str(refused) == f"key 'k-123' is outside your scope ({name}): nothing of it is shown"


def test_a_team_outside_the_scope_is_refused_by_the_name_it_was_asked_by():
    scope = Scope(frozenset({"Web shop"}))
    scope.check_team("Web shop")
    with pytest.raises(OutOfScope) as refused:
        scope.check_team("Apps")
    assert str(refused.value) == (
        "team 'Apps' is outside your scope (team Web shop): nothing of it is shown"
    )
    WHOLE_ORGANIZATION.check_team("Apps")


def test_a_scope_is_the_reach_of_the_right_to_see():
    assert Scope.of(Reach(whole=True)) == WHOLE_ORGANIZATION
    assert Scope.of(Reach(teams=frozenset({"Apps"}))) == Scope(frozenset({"Apps"}))
    with pytest.raises(ValueError, match="no right to see"):
        Scope.of(Reach())


# --- budgets --------------------------------------------------------------------------------


@st.composite
def budgets_of(draw, org: Organization) -> list[tuple[str, str | None, str | None, bool]]:
    """Budgets over the organization: each (name, team, key label, in money), the team or the
    key (a listed label) or neither (the organization's)."""
    drawn = []
    for n in range(draw(st.integers(1, 6))):
        whose = draw(st.sampled_from(["team", "key", "organization"]))
        team = draw(st.sampled_from([*org.teams, ELSEWHERE])) if whose == "team" else None
        key = draw(st.sampled_from([k.label for k in org.keys])) if whose == "key" else None
        drawn.append((f"Budget {n}", team, key, draw(st.booleans())))
    return drawn


def budgets_file(budgets: list[tuple[str, str | None, str | None, bool]]) -> str:
    entries = []
    for name, team, key, money in budgets:
        lines = [f"name = {json.dumps(name)}", "period = 'month'", "limit = 1000"]
        lines.append("metric = 'cost'" if money else "metric = 'total_characters'")
        if team is not None:
            lines.append(f"team = {json.dumps(team)}")
        if key is not None:
            lines.append(f"key = {json.dumps(key)}")
        entries.append("[[budget]]\n" + "\n".join(lines))
    return "contract_year_start = '04-01'\n\n" + "\n\n".join(entries) + "\n"


@settings(max_examples=30)
@given(st.data())
def test_a_team_scope_keeps_exactly_its_budgets_and_the_documents_year(data):
    """A team's budgets are those of its teams and of its keys (by the test's matcher), in
    usage: the organization's and those in money are the organization's figures. Whatever is
    kept (none: None), the whole organization keeps everything."""
    org = data.draw(organizations())
    drawn = data.draw(budgets_of(org))
    file = parse_budgets(budgets_file(drawn))
    # Named by label, a key budget is the scope's when the label's claim is, and no team
    # outside the scope claims keys by masked key (one of them may carry the label).
    masked_elsewhere = any(not org.in_scope(team) for team in org.mask_claims.values())

    def by_label(label: str) -> str | None:
        return next((c.team for c in org.label_claims if c.matches(label, "-")), None)

    expected = [
        name
        for name, team, key, money in drawn
        if not money
        and (
            (team is not None and org.in_scope(team))
            or (key is not None and not masked_elsewhere and org.in_scope(by_label(key)))
        )
    ]
    shown = visible(org).budgets(file)
    kept = list(shown.budgets) if shown else []
    assert [b.title for b in kept] == expected
    # Never another team's: every key a kept budget names is, by the test's matcher, the scope's.
    for budget in kept:
        named = [k for k in org.keys if budget.key in (k.label, k.mask)]
        assert all(org.in_scope(org.key_team(k.mask, k.label)) for k in named)
    assert Visible(WHOLE_ORGANIZATION, parse_teams(org.teams_file())).budgets(file) == file
