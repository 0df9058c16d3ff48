"""The state store's lines at 1/20 scale: a smoke run of its own, beside
tests/bench/test_bench.py's (each file's smoke on its own worker), which starts its own
PostgreSQL cluster. As there, timings are not checked; what the lines claim is: every mark the
eight processes wrote is kept, read here from the embedded file itself and from PostgreSQL's
rows as the run left them, and the Anomalies page showed the same marks from either store."""

import json
import sqlite3

import pytest
from support.bench import KEYS, Smoke, assert_reported, by_name, run_smoke

from bench import postgres, state
from bench.__main__ import STATE_SCENARIOS

pytestmark = pytest.mark.smoke

SMOKE_MARKS = 200  # `Scale.state_marks` in the smoke run


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Smoke:
    if why := postgres.missing():
        from support.browsers import unavailable

        unavailable(why)
    return run_smoke(tmp_path_factory.mktemp("state"), *STATE_SCENARIOS)


def test_every_target_is_reported_once_with_a_finite_positive_ratio(smoke):
    assert_reported(smoke, set(STATE_SCENARIOS))


def test_every_mark_of_the_eight_writers_is_kept_in_either_store(smoke):
    line = by_name(smoke.printed)["state_marks"]
    assert (line["writers"], line["marks"], line["rounds"]) == (8, SMOKE_MARKS, 1)
    assert line["every_mark_kept"] is True
    seconds = line["seconds"]
    assert line["ratio"] == pytest.approx(seconds["postgresql"] / seconds["embedded"], rel=1e-2)
    wanted = [[anomaly, "expected"] for anomaly in sorted(state.mark_ids(SMOKE_MARKS))]
    kept = smoke.kept / "state_marks"
    assert json.loads((kept / "postgresql-marks.json").read_text()) == wanted
    with sqlite3.connect(kept / "embedded.sqlite") as connection:
        rows = connection.execute("SELECT account, anomaly, mark FROM anomaly_marks").fetchall()
    assert sorted([anomaly, mark] for account, anomaly, mark in rows) == wanted
    assert {account for account, _, _ in rows} == {state.ACCOUNT}


def test_the_anomalies_page_shows_the_same_marks_from_either_store(smoke):
    """Every other anomaly the page lists is marked, expected and acknowledged in turn; the
    tiles of every run, from either store, count them and the rest as new."""
    line = by_name(smoke.printed)["state_pages"]
    assert line["same_page"] is True and line["marks_shown"] is True
    assert (line["keys"], line["marks"]) == (KEYS, state.PAGE_MARKS)
    assert (line["rounds"], line["page_runs"]) == (state.PAGE_ROUNDS, state.PAGE_RUNS)
    assert line["anomalies"] > 0
    assert line["marked_on_page"] == (line["anomalies"] + 1) // 2
    tiles = {label: int(value.replace(",", "")) for label, value in line["tiles"].items()}
    assert tiles["Expected"] + tiles["Acknowledged"] == line["marked_on_page"]
    assert tiles["New"] + line["marked_on_page"] == line["anomalies"]
