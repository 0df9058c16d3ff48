"""Anomalies injected into the synthetic organization: the ground truth detection is measured
against. They change only the key-days they list, and the clean organization stays available."""

from __future__ import annotations

import datetime as dt

from support.servers import FIXED_TODAY, small_config

from emulator import EmulatorConfig, create_app
from emulator.synthetic import generate

SEED, KEYS, DAYS = 11, 40, 400


def by_key_day(org) -> dict[tuple[str, int], tuple]:
    return {(row[0], row[1]): row for row in org.usage}


def test_injection_changes_only_the_key_days_it_lists():
    injected = generate(SEED, KEYS, DAYS, FIXED_TODAY)
    clean = generate(SEED, KEYS, DAYS, FIXED_TODAY, anomalies=False)
    assert clean.injected == []
    masked = {key.masked: index for index, key in enumerate(injected.keys)}
    assert masked == {key.masked: index for index, key in enumerate(clean.keys)}
    kinds = [i.kind for i in injected.injected]
    assert kinds == ["dormant", "drop", "new"] + ["spike"] * (KEYS // 10)
    assert len({i.api_key for i in injected.injected}) == len(kinds)  # a key each

    before, after = by_key_day(clean), by_key_day(injected)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    listed = set()
    for event in injected.injected:
        key = masked[event.api_key]
        first = event.first.isoformat()
        if event.kind == "spike":
            assert before[(first, key)] != after[(first, key)]
            listed.add((first, key))
        else:
            # A drop, and the silence of a dormant key (45 days), leave no usage; a new key
            # has none before its first day; each is used on the day it names.
            silent_from = {"drop": event.first, "dormant": event.first - dt.timedelta(days=45)}
            since = silent_from.get(event.kind, dt.date.min).isoformat()
            quiet_until = event.last if event.kind == "drop" else event.first - dt.timedelta(1)
            for day, k in before.keys() | after.keys():
                if k == key and since <= day <= quiet_until.isoformat():
                    assert (day, k) not in after
                    listed.add((day, k))
            if event.kind != "drop":
                assert (first, key) in after
                listed.add((first, key))
    assert changed <= listed


def test_events_fall_in_the_last_ninety_days_and_spikes_on_working_days():
    org = generate(SEED, KEYS, DAYS, FIXED_TODAY)
    for event in org.injected:
        assert FIXED_TODAY - dt.timedelta(days=90) <= event.first <= event.last < FIXED_TODAY
        if event.kind == "spike":
            assert event.first.weekday() < 5
            assert 3 <= event.factor <= 12
            assert event.metric != "total_characters"
        else:
            assert event.metric == "total_characters"


def test_the_emulator_lists_them_and_the_clean_organization_has_none(tmp_path):
    emulator = create_app(small_config(keys=KEYS, days=DAYS, seed=SEED)).state.emulator
    assert emulator.injected == generate(SEED, KEYS, DAYS, FIXED_TODAY).injected
    emulator.store.close()
    clean = create_app(small_config(keys=KEYS, days=DAYS, seed=SEED, anomalies=False))
    assert clean.state.emulator.injected == []
    clean.state.emulator.store.close()
    short = create_app(small_config()).state.emulator  # 60 days: too short for baselines
    assert short.injected == []
    short.store.close()


def test_a_ledger_file_is_not_shared_between_the_two_organizations(tmp_path):
    path = tmp_path / "ledger.sqlite"
    config = EmulatorConfig(seed=SEED, keys=KEYS, days=DAYS, db=path, today=FIXED_TODAY)
    first = create_app(config).state.emulator
    drop = next(i for i in first.injected if i.kind == "drop")
    during = first.ledger(drop.first, drop.last)
    first.store.close()
    clean = create_app(EmulatorConfig(**{**config.__dict__, "anomalies": False})).state.emulator
    assert not any(row.api_key == drop.api_key for row in during)
    assert any(row.api_key == drop.api_key for row in clean.ledger(drop.first, drop.last))
    clean.store.close()
