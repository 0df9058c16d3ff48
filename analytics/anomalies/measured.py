"""What the detection is, in the words the Anomalies page shows, and how well it does: the
figures `python -m bench --only anomaly_detection` measured at full scale on the benchmark's
synthetic organization (bench/anomalies.py), which docs/anomalies.md states too. Kept here, as
text the page lays out, so that the page and the docs say one thing; a change to the detector
measures them again."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Measured:
    """Injected spikes found (of 3 to 12 times a key's usual day, and of those of 3 to 4
    times), and the anomalies found on the same organization without injected ones (false
    alarms) over its key-years."""

    found: int
    spikes: int
    found_3_to_4: int
    spikes_3_to_4: int
    false_alarms: int
    key_years: float

    @property
    def recall(self) -> float:
        return self.found / self.spikes

    @property
    def false_alarms_per_key_year(self) -> float:
        return self.false_alarms / self.key_years

    def sentence(self) -> str:
        """The figures as one sentence."""
        return (
            f"On the benchmark's synthetic organization it finds {self.found} of "
            f"{self.spikes} injected spikes of 3 to 12 times a key's usual day "
            f"({self.found_3_to_4} of the {self.spikes_3_to_4} of 3 to 4 times), with "
            f"{self.false_alarms_per_key_year:.2f} false alarms per key and year."
        )


# anomaly_recall and anomaly_false_alarms of `python -m bench --only anomaly_detection` at full
# scale (1,000 keys over five years), 2026-11-28: docs/performance.md.
MEASURED: Final = Measured(
    found=98, spikes=100, found_3_to_4=21, spikes_3_to_4=23, false_alarms=759, key_years=1847.5
)


def method_caption() -> str:
    """The Anomalies page's caption: how days are judged, the four kinds, and how well spikes
    are found."""
    return (
        "Each day is compared with its usual day: the level of the same kind of days (working "
        "days, or weekends) of the eight weeks before it, each weekday at its own level where "
        "the half year before shows one, for every key and metric and for the organization. A "
        "**spike** stands further above its usual day than the series' own day-to-day spread "
        "(read over that half year) allows, a **drop** is a run of unused days the key's habit "
        "makes unlikely, a **new key** one first used with material usage, a **dormant key** "
        "one used again after 30 days or more. "
        + MEASURED.sentence()
        + " Marks given here hold for `python -m analytics check-anomalies` too."
    )
