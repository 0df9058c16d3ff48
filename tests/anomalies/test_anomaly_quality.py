"""Anomaly detection against the emulator's ground truth, with the goals as assertions: nine
in ten injected spikes (three to twelve times a key's usual day) found, three in four of those
of three to four times, and under half a false alarm per key and year on the clean organization
(no injected anomalies, after its last key started). 1,000 keys over two years: a hundred
injected spikes, 650 clean key-years. The detector that read each day against the median of its
eight same weekdays found 16 of the 23 spikes of three to four times here, with 0.60 false
alarms per key and year."""

from __future__ import annotations

from support.servers import FIXED_TODAY

from bench.anomalies import FALSE_ALARM_LIMIT, RECALL_GOAL, anomaly_quality
from emulator.synthetic import generate


def test_injected_anomalies_are_found_and_false_alarms_are_rare(record_property):
    quality = anomaly_quality(1000, 730, FIXED_TODAY)
    truth = generate(42, 1000, 730, FIXED_TODAY).injected
    assert quality.spikes == sum(i.kind == "spike" for i in truth) == 100
    assert sum(total for _, total in quality.by_factor.values()) == 100
    record_property("anomaly_recall", quality.recall)
    record_property("false_alarms_per_key_year", round(quality.false_alarms_per_key_year, 3))
    print(
        f"recall {quality.recall:.2f} {quality.by_factor}; false alarms "
        f"{quality.false_alarms_per_key_year:.2f} per key-year {quality.false_alarm_kinds}"
    )
    assert quality.recall >= RECALL_GOAL
    found, spikes = quality.by_factor["3-4x"]
    assert found / spikes >= 0.75
    assert quality.events_found == {"dormant": True, "drop": True, "new": True}
    assert quality.key_years > 600
    assert quality.false_alarms_per_key_year <= FALSE_ALARM_LIMIT / 2
