"""The guardrails' end-to-end replay at the smoke scale: what its two lines claim, recomputed
from the emulator's own ledger and key store (run beside tests/bench/test_bench.py's smoke)."""

import datetime as dt
import math
import sqlite3
import tomllib

import pytest
from support.bench import NIL_WHEN_MET, REPLAY, Smoke, by_name, run_smoke
from support.servers import ROOT

from analytics.cost.teams import key_teams, load_teams
from bench import guardrails

pytestmark = pytest.mark.smoke


@pytest.fixture(scope="module")
def replay(tmp_path_factory) -> Smoke:
    return run_smoke(tmp_path_factory.mktemp("replay"), REPLAY)


def test_the_replay_reports_its_two_lines_each_nil_or_finite(replay):
    for lines in (replay.printed, replay.report["results"]):
        assert sorted(line["name"] for line in lines) == sorted(NIL_WHEN_MET)
        for line in lines:
            assert math.isfinite(line["ratio"]) and line["ratio"] >= 0 and line["target"] >= 0
            assert isinstance(line["ok"], bool), line


def test_guardrails_replay_holds_every_budget_by_the_emulators_ledger_and_key_store(replay):
    """What the replay's lines claim, recomputed from the emulator's own ledger (usage per
    key and day) and key store (labels, creation, the limits left at the end): no budget's
    keys used more than it in either usage period, though each period's natural usage was
    above it; the allowance left where a key was refused; every key capped, the new one too,
    and the limits left within each budget."""
    lines = by_name(replay.printed)
    overrun, stranded = lines["guardrail_overrun"], lines["guardrail_stranded"]
    kept = replay.kept / "guardrails"
    limits = {
        b["name"]: b["limit"] for b in tomllib.loads((kept / "budgets.toml").read_text())["budget"]
    }
    with sqlite3.connect(kept / "emulator.sqlite") as db:
        keys = db.execute(
            "SELECT key_id, label, created, deactivated, character_limit FROM keys WHERE NOT admin"
        ).fetchall()
        usage = db.execute(
            "SELECT usage_date, key_id, text_translation_characters"
            " + document_translation_characters + text_improvement_characters FROM usage"
        ).fetchall()
    team_of = key_teams(load_teams(ROOT / "teams.example.toml"), {k[0]: k[1] for k in keys})
    members = {
        "Organization": {k[0] for k in keys},
        f"{guardrails.TEAM} team": {k for k, team in team_of.items() if team == guardrails.TEAM},
    }
    periods = [tuple(map(dt.date.fromisoformat, bounds)) for bounds in overrun["periods"]]
    used = {
        name: [
            sum(n for day, key, n in usage if key in keys_in and first <= day_of(day) < stop)
            for first, stop in periods
        ]
        for name, keys_in in members.items()
    }
    assert overrun["used"] == used and set(limits) == set(used)
    replayed = sum(n for day, _, n in usage if periods[0][0] <= day_of(day) < periods[-1][1])
    assert overrun["served"] == replayed
    assert overrun["largest_request"] <= overrun["reserve"]
    for name, limit in limits.items():
        assert limit == round(guardrails.SHARE * min(overrun["natural"][name]))
        assert all(u <= limit for u in used[name]), name
        assert all(u < n for u, n in zip(used[name], overrun["natural"][name], strict=True))
    assert overrun["ratio"] == 0 and overrun["ok"] is True
    refused = overrun["refused"]  # per budget and period, by that budget's limits
    assert any(any(counts) for counts in refused.values())
    assert stranded["ratio"] == pytest.approx(
        max(
            (limits[n] - u) / limits[n]
            for n in limits
            for u, r in zip(used[n], refused[n], strict=True)
            if r
        ),
        abs=1e-4,
    )
    assert (
        overrun["counters_agree"] is True
        and overrun["days_checked"] == (periods[-1][1] - periods[0][0]).days
    )
    active = [k for k in keys if k[3] is None]
    [new] = [k for k in active if k[1] == guardrails.NEW_KEY[1]]
    assert (
        periods[0][0] <= day_of(new[2][:10]) < periods[0][1]
        and new[0] in members[f"{guardrails.TEAM} team"]
    )
    assert all(k[4] is not None for k in active)
    for name, keys_in in members.items():
        assert sum(k[4] for k in active if k[0] in keys_in) <= limits[name], name


def day_of(iso: str) -> dt.date:
    return dt.date.fromisoformat(iso)
