"""What an anomaly is, once found: its kind, whose days, what was usual, how severe, and the
sentence that tells it.

The detection engine (`detect`) decides which days are anomalies and hands their figures
here; how an anomaly reads, on a page, in an alert or in the report, is decided only here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Final, Literal, get_args

from analytics.usage import METRIC_LABELS, TOTAL_CHARACTERS, Metric, format_value, share_text

# The organization's own series, under a key no masked key can be.
ORGANIZATION: Final = "organization"
ORGANIZATION_LABEL: Final = "Organization"


@dataclass(frozen=True)
class Whole:
    """What the keys of a judged frame add up to, as the sentences name it: the organization,
    whose own series is judged too, or a team's scope (``name`` as ``access.Scope.name``
    writes it, "team Marketing"), whose keys are judged against their own sum (a new key's
    share of the team's usual day) but whose sum is not told as a series: an anomaly's id
    names the organization's series, never a team's."""

    name: str = "the organization"
    judged: bool = True  # the sum judged as a series of its own (ORGANIZATION)

    @property
    def title(self) -> str:
        """The name at the start of a sentence: "The organization", "Team Marketing"."""
        return f"{self.name[0].upper()}{self.name[1:]}"


WHOLE_ORGANIZATION: Final = Whole()

Kind = Literal["spike", "drop", "new", "dormant"]
KINDS: Final[tuple[Kind, ...]] = get_args(Kind)
KIND_TITLES: Final[dict[str, str]] = {
    "spike": "Spike",
    "drop": "Drop",
    "new": "New key",
    "dormant": "Dormant key used",
}
Severity = Literal["high", "medium", "low"]
SEVERITIES: Final[tuple[Severity, ...]] = get_args(Severity)


@dataclass(frozen=True)
class Anomaly:
    """One anomaly: what happened to which key's metric on which days, against what was usual.

    ``observed`` is the peak day of a spike, the total of a drop's days, the biggest first-week
    day of a new key (its last day) or the first day back of a dormant key; ``expected`` what
    was usual (a spike: its usual day, see `baseline`; a drop: the usual total of its days; new
    and dormant keys: 0); ``bound`` the spike's upper bound, the level a drop stayed under, or
    the materiality a new key passed (a dormant key: 0).
    """

    kind: Kind
    api_key: str
    label: str
    metric: Metric
    first: date
    last: date
    observed: float
    expected: float
    bound: float
    severity: Severity
    sentence: str

    @property
    def id(self) -> str:
        """Stable from run to run, so a mark given to it holds while it is found."""
        return anomaly_id(self.kind, self.api_key, self.metric, self.first)


def anomaly_id(kind: str, api_key: str, metric: str, first: date) -> str:
    return f"{kind}:{api_key}:{metric}:{first:%Y-%m-%d}"


def ordered(anomalies: Sequence[Anomaly]) -> list[Anomaly]:
    """Most severe first, then the newest, then by id: the order of every list of them."""
    return sorted(
        anomalies, key=lambda a: (SEVERITIES.index(a.severity), -a.last.toordinal(), a.id)
    )


# --- each kind, told -------------------------------------------------------------------------


@dataclass(frozen=True)
class KeySeries:
    """One judged series: a masked key's daily usage of one metric, or the organization's
    (`ORGANIZATION`), and what the frame's keys add up to (`Whole`), which its sentences name."""

    api_key: str
    label: str
    metric: Metric
    whole: Whole = WHOLE_ORGANIZATION  # what the frame's keys add up to

    def anomaly(
        self,
        kind: Kind,
        days: tuple[date, date],
        figures: tuple[float, float, float],
        severity: Severity,
        sentence: str,
    ) -> Anomaly:
        """This series' anomaly from its first to its last day of `days`, its `figures` the
        observed, expected and bound of `Anomaly`: the one place its fields are put in order."""
        return Anomaly(
            kind, self.api_key, self.label, self.metric, *days, *figures, severity, sentence
        )


def spike(
    who: KeySeries,
    days: tuple[date, date, date],
    observed: float,
    median: float,
    bound: float,
    severity: Severity,
) -> Anomaly:
    """A run of spike days from its first to its last day, told at its peak day (the third),
    whose usage was `observed` against the usual `median`."""
    first, last, day = days
    metric = who.metric
    sentence = (
        f"{_subject(who)} used {format_value(observed, metric)} {units(metric)} on "
        f"{day_text(day)}, about {_times(observed / median)} its usual {day:%A} (expected up "
        f"to {format_value(bound, metric)})."
    )
    if last > first:
        sentence += (
            f" Above its usual level for {(last - first).days + 1} days, "
            f"{day_text(first)} to {day_text(last)}."
        )
    return who.anomaly("spike", (first, last), (observed, median, bound), severity, sentence)


def drop(
    who: KeySeries, first: date, last: date, observed: float, usual: float, bound: float,
    severity: Severity,
) -> Anomaly:  # fmt: skip
    """Days at (near) zero from `first` to `last`, `observed` in all where `usual` was usual."""
    metric = who.metric
    amount = (
        f"no {units(metric)}"
        if observed == 0
        else f"only {format_value(observed, metric)} {units(metric)}"
    )
    sentence = (
        f"{_subject(who)} used {amount} from {day_text(first)} to {day_text(last)} "
        f"({(last - first).days + 1} days), where about {format_value(usual, metric)} would be "
        "usual."
    )
    return who.anomaly("drop", (first, last), (observed, usual, bound), severity, sentence)


def new_key(
    who: KeySeries, first: date, peak_day: date, peak: float, usual: float, material: float,
    severity: Severity,
) -> Anomaly:  # fmt: skip
    """A new key from its first day to the day of its first week's `peak` (``observed``),
    against the `usual` day of its whole (the organization's, or its team scope's)."""
    metric = who.metric
    whose = f"{who.whole.name}'s"
    share = (
        f"{share_text(peak / usual)} of {whose} usual day"
        if usual > 0
        else f"{whose} first such usage"
    )
    sentence = (
        f"{_subject(who)} is a new key, first used on {day_text(first)}: up to "
        f"{format_value(peak, metric)} {units(metric)} a day in its first week, {share}."
    )
    return who.anomaly("new", (first, peak_day), (peak, 0.0, material), severity, sentence)


def dormant(who: KeySeries, day: date, silent: int, observed: float, severity: Severity) -> Anomaly:
    """A key used again on `day` after `silent` days, told by its first metric used that day."""
    metric = who.metric
    sentence = (
        f"{_subject(who)} was used again on {day_text(day)} after {silent} days without "
        f"usage: {format_value(observed, metric)} {units(metric)}."
    )
    return who.anomaly("dormant", (day, day), (observed, 0.0, 0.0), severity, sentence)


# --- words ---------------------------------------------------------------------------------------


def units(metric: str) -> str:
    """A metric's unit as a sentence says it: "characters", "document translation characters",
    "speech-to-text minutes"."""
    return "characters" if metric == TOTAL_CHARACTERS else METRIC_LABELS[metric].lower()


def day_text(day: date) -> str:
    return f"{day:%a %Y-%m-%d}"


def _subject(who: KeySeries) -> str:
    if who.api_key == ORGANIZATION:
        return who.whole.title
    return who.label or who.api_key


def _times(ratio: float) -> str:
    return f"{ratio:.0f}×" if ratio >= 3 else f"{ratio:.1f}×"
