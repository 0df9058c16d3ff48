"""What a session may see, applied where usage and keys are read: every frame, key list and
audit entry a page or command reads passes through one ``Visible``, so no page filters on its
own and none can read around it.

A **scope** is the whole organization or some teams. A team's keys and custom tags are those
the teams settings give it (``analytics.cost.teams``: by masked key, label or label pattern;
tags by tag or pattern), so a key renamed out of a team's pattern leaves its scope at once. Its
language pairs are those of its keys: the pair-day frame of a team is summed from the
pair-key-day frame of its keys, never the organization's pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

import msgspec
import numpy as np
import numpy.typing as npt
import pandas as pd

from analytics.access.roles import Reach
from analytics.anomalies import Whole
from analytics.capacity import BudgetSettings
from analytics.cost import NO_TEAMS, Teams, assign_keys, key_teams, tag_teams
from analytics.keys import join, masked
from analytics.service import DeveloperKey
from analytics.usage import METRICS, PAIR_COLUMNS, FetchedRange, counted, pair_day_frame


class OutOfScope(LookupError):
    """Something asked for lies outside the person's scope: the message names what was asked
    (as it was asked, never the thing's label) and the scope."""


@dataclass(frozen=True, order=True)
class Scope:
    """The whole organization (``teams`` None) or the named teams."""

    teams: frozenset[str] | None = None

    @classmethod
    def of(cls, reach: Reach) -> Scope:
        """The scope of a right to see: nothing at all is no scope (see ``Reach``)."""
        if not reach:
            raise ValueError("a person with no right to see has no scope")
        return WHOLE_ORGANIZATION if reach.whole else cls(reach.teams)

    @property
    def whole(self) -> bool:
        return self.teams is None

    @property
    def name(self) -> str:
        """``the organization``, ``team Web shop``, ``teams A, B``: the words of refusals."""
        if self.teams is None:
            return "the organization"
        names = sorted(self.teams)
        return f"team{'s' if len(names) > 1 else ''} {', '.join(names)}"

    @property
    def whole_series(self) -> Whole:
        """What the scope's keys add up to, as an anomaly's sentence names it ("a new key, 3 %
        of team Marketing's usual day"): the organization's series is judged and told only
        for the whole organization."""
        return Whole(self.name, judged=self.whole)

    def refusal(self, what: str) -> OutOfScope:
        """The refusal of ``what`` (a key id as typed, a team, a grouping)."""
        return OutOfScope(f"{what} is outside your scope ({self.name}): nothing of it is shown")

    def line(self, keys: int, tags: int) -> str:
        """The line every page of a team scope shows: whose figures these are."""
        return (
            f"{self.name[0].upper()}{self.name[1:]}: {counted(keys, 'key')}, {counted(tags, 'tag')}"
        )

    def withheld(self, what: str) -> str:
        """What a surface says, once, in place of the organization's figures a team's scope is
        not shown (``what``: "The plan's figures", "The cost forecasts")."""
        return f"{what} are the organization's: not shown to {self.name}."

    def check_team(self, team: str) -> None:
        """Refuse a team outside the scope, by the name it was asked by."""
        if self.teams is not None and team not in self.teams:
            raise self.refusal(f"team {team!r}")


WHOLE_ORGANIZATION: Final = Scope()


@dataclass(frozen=True)
class Read:
    """A daily report as a scope shows it (``shown``), and the organization's report it was
    taken from, which is never written itself."""

    shown: FetchedRange
    organization: FetchedRange


@dataclass(frozen=True)
class Visible:
    """A scope over the teams settings in force: what of each frame and list it shows."""

    scope: Scope
    teams: Teams = NO_TEAMS

    def sees(self, team: str) -> bool:
        """Whether the scope sees ``team`` (every team, for the whole organization)."""
        return self.scope.teams is None or team in self.scope.teams

    def report(self, name: str, read: Callable[[str], FetchedRange]) -> FetchedRange:
        """The daily report ``name`` (``usage``, ``tags``, ``pairs``, ``pair_keys``) as the
        scope sees it, ``read(name)`` reading the organization's: the one way both front ends
        read a report. A team's pairs are summed from its keys' pair-key-day report."""
        if self.scope.whole:
            return read(name)
        if name == "pairs":
            fetched = read("pair_keys")
            return replace(fetched, frame=self.pair_day(fetched.frame))
        fetched = read(name)
        shown = self.tag_day if name == "tags" else self.key_day
        return replace(fetched, frame=shown(fetched.frame))

    def read(self, name: str, read: Callable[[str], FetchedRange]) -> Read:
        """The daily report ``name`` as the scope sees it, and the organization's report it was
        taken from, each of ``read``'s reports fetched once: a team's money is its share of the
        organization's, so pricing reads the organization's rows (a team's pairs: the team's own,
        summed from its keys' report)."""
        organization: dict[str, FetchedRange] = {}

        def once(report: str) -> FetchedRange:
            if report not in organization:
                organization[report] = read(report)
            return organization[report]

        shown = self.report(name, once)
        return Read(shown, once(name) if name in organization else shown)

    def outside_team(self, name: str) -> bool:
        """Whether ``name`` is a team of the settings (or ``Unassigned``) outside the scope."""
        return name in self.teams.names and not self.sees(name)

    def key_day(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The rows of a key-day (or pair-key-day) frame whose key is in the scope."""
        if self.scope.whole or frame.empty:
            return frame
        team = assign_keys(self.teams, frame)
        kept = team.isin(list(self.scope.teams or ())).to_numpy()
        return _rows(frame, kept)

    def tag_day(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The rows of a tag-day frame whose tag is in the scope."""
        if self.scope.whole or frame.empty:
            return frame
        team_of = tag_teams(self.teams, map(str, frame["custom_tag"].unique()))
        kept = frame["custom_tag"].astype(str).map(team_of).map(self.sees).to_numpy(bool)
        return _rows(frame, kept)

    def pair_day(self, pair_key_day: pd.DataFrame) -> pd.DataFrame:
        """The pair-day frame of the scope's keys, summed from their pair-key-day rows."""
        rows = self.key_day(pair_key_day)
        summed = (
            rows.groupby(["usage_date", *PAIR_COLUMNS], observed=True)[list(METRICS)]
            .sum()
            .reset_index()
        )
        return pair_day_frame([summed])

    def team_rows(self, frame: pd.DataFrame, column: str = "team") -> pd.DataFrame:
        """The rows of a table by team (``column`` names the team) whose team is in the
        scope: a team's money is the organization's money of its rows, so tables of money are
        made over the organization and then narrowed here, never priced over a team alone
        (the included volume and the base fee are shared over every key)."""
        if self.scope.whole or frame.empty:
            return frame
        return _rows(frame, frame[column].astype(str).map(self.sees).to_numpy(bool))

    def budgets(self, given: BudgetSettings) -> BudgetSettings | None:
        """The budgets of ``given`` the scope sees: those of its teams and of its keys (a key
        named by label or masked key), in characters or minutes, in their order. The
        organization's budgets and the plan's are the organization's figures, left out of a
        team's; so are budgets in money: a team's money is its share of the organization's,
        which a budget measured over its keys alone cannot price as Chargeback does. None: no
        budget is left."""
        if self.scope.whole:
            return given
        kept = tuple(
            budget
            for budget in given.budgets
            if not budget.is_cost
            and (
                (budget.team is not None and self.sees(budget.team))
                or (budget.key is not None and self._sees_key_budget(budget.key))
            )
        )
        return msgspec.structs.replace(given, budgets=kept) if kept else None

    def _sees_key_budget(self, key: str) -> bool:
        """Whether a budget of the key named ``key`` (a masked key, or a label) is the
        scope's. Named by a label, the key may be one a team outside the scope claims by its
        masked key, which only the key list tells: while such claims exist, the budget is
        left out rather than shown to a team that may not own it."""
        masked_elsewhere = any(t.keys for t in self.teams.teams if not self.sees(t.name))
        if "*" not in key and masked_elsewhere:
            return False
        return self.sees(self.team_of_key(key, key))

    def key_labels(self, masks_to_labels: Mapping[str, str]) -> dict[str, str]:
        """Of masked key → label, the keys in the scope."""
        if self.scope.whole:
            return dict(masks_to_labels)
        team_of = key_teams(self.teams, masks_to_labels)
        return {mask: label for mask, label in masks_to_labels.items() if self.sees(team_of[mask])}

    def developer_keys(
        self,
        keys: Sequence[DeveloperKey],
        usage_labels: Mapping[str, str],
        recorded: Mapping[str, str] | None = None,
    ) -> list[DeveloperKey]:
        """The listed keys in the scope: each matched by the masked key it joins in usage
        (``keys.join``), else by its key id's mask, and its label in the key list."""
        if self.scope.whole:
            return list(keys)
        # Joined once for the whole list: a join per key made the list quadratic in its keys.
        shown = self.key_ids(keys, usage_labels, recorded)
        return [key for key in keys if key.key_id in shown]

    def key_ids(
        self,
        keys: Sequence[DeveloperKey],
        usage_labels: Mapping[str, str],
        recorded: Mapping[str, str] | None = None,
    ) -> frozenset[str]:
        """The key ids of the listed keys in the scope."""
        if self.scope.whole:
            return frozenset(key.key_id for key in keys)
        return frozenset(
            row.key.key_id
            for row in join(keys, usage_labels, recorded)
            if row.key is not None
            and self.sees(self.team_of_key(row.api_key or masked(row.key.key_id), row.label))
        )

    def team_of_key(self, mask: str, label: str) -> str:
        """The team the settings give the key of ``mask`` and ``label``."""
        return key_teams(self.teams, {mask: label})[mask]

    def tags(self, tags: Iterable[str]) -> list[str]:
        """The custom tags in the scope, in the order given."""
        given = list(tags)
        if self.scope.whole:
            return given
        team_of = tag_teams(self.teams, given)
        return [tag for tag in given if self.sees(team_of[tag])]


# The organization seen whole: what a session without a team scope reads through.
EVERYTHING: Final = Visible(WHOLE_ORGANIZATION)


def _rows(frame: pd.DataFrame, kept: npt.NDArray[np.bool_]) -> pd.DataFrame:
    """The kept rows, with the frame's categories kept to the values they still hold, so a
    category list (a chart's legend, a filter's options) names nothing out of the scope."""
    rows = frame[kept].reset_index(drop=True)
    for column in rows.columns:
        if isinstance(rows[column].dtype, pd.CategoricalDtype):
            rows[column] = rows[column].cat.remove_unused_categories()
    return rows
