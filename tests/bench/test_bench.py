"""The benchmark harness at 1/20 scale: every scenario runs, and what it claims holds.

Timings are not checked here (a busy test machine says nothing about them); `python -m bench`
at full scale is the measurement. What is checked is what the run cannot fake: the outputs a
scenario calls identical are compared as files, row counts and window counts against the
emulator's ledger and the calendar, and the results file against its schema.
"""

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import orjson
import pandas as pd
import pytest
from support.bench import (
    DATA_OUT,
    HISTORY_DAYS,
    IN_CHROMIUM,
    KEYS,
    REPLAY,
    Smoke,
    assert_reported,
    by_name,
    run_smoke,
)
from support.builders import assert_matches_ledger
from support.servers import ROOT

from bench.__main__ import STATE_SCENARIOS, machine
from bench.decoding import naive_key_day, tidy_key_day
from bench.targets import SCENARIOS
from emulator import EmulatorConfig, create_app
from emulator.synthetic import generate
from emulator.usage_report import build_report

pytestmark = pytest.mark.smoke

APART = (REPLAY, *IN_CHROMIUM, *STATE_SCENARIOS, *DATA_OUT)
HERE = [name for name in SCENARIOS if name not in APART]
TARGETS = {
    "decode_vs_naive",
    "decode_vs_orjson",
    "decode_tolerance",
    "csv_export",
    "memory_export",
    "pages_scale",
    "incremental_refresh",
    "concurrent_windows",
    "capacity_rerun",
    "tag_fetch",
    "anomaly_recall",
    "anomaly_false_alarms",
    "check_anomalies",
    "chargeback_pricing",
    "pair_fetch",
    "tag_fetch_10k",
    "tags_scale",
    *(
        f"{line}_{hard}{horizon}"
        for line in ("forecast_wape_vs_naive", "interval_coverage_80")
        for hard in ("", "hard_")
        for horizon in ("month", "quarter", "12_months")
    ),
    *(
        f"{line}_real_{horizon}"
        for line in ("forecast_wape_vs_naive", "forecast_wape_vs_library", "interval_coverage_80")
        for horizon in ("month", "quarter", "12_months")
    ),
    "recommend_time",
}


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Smoke:
    """Every scenario but those run in their own files, tests/bench/test_replay.py,
    tests/bench/test_bench_chromium.py, tests/bench/test_bench_state.py and
    tests/bench/test_bench_data_out.py, beside this one."""
    return run_smoke(tmp_path_factory.mktemp("bench"), *HERE)


def test_every_target_is_reported_once_with_a_finite_positive_ratio(smoke):
    assert_reported(smoke, TARGETS)


def test_csv_export_files_are_byte_identical_and_hold_the_ledger(smoke, five_years):
    kept = smoke.kept / "csv_export"
    ours, reference = (kept / "exports.csv").read_bytes(), (kept / "pandas_to_csv.csv").read_bytes()
    assert ours == reference
    assert by_name(smoke.printed)["csv_export"]["identical"] is True
    assert by_name(smoke.printed)["csv_export"]["rows"] == len(five_years)
    assert_matches_ledger(read_export(kept / "exports.csv"), five_years)


def test_incremental_refresh_writes_the_same_file_twice_from_closed_history(smoke, five_years):
    kept = smoke.kept / "incremental_refresh"
    firsts = sorted(kept.glob("first-*.csv"))
    assert len(firsts) >= 2
    for first in firsts:
        second = kept / first.name.replace("first", "second")
        assert first.read_bytes() == second.read_bytes(), first.name
        assert_matches_ledger(read_export(first), five_years)
    line = by_name(smoke.printed)["incremental_refresh"]
    assert (line["identical"], line["only_open_days_fetched"]) == (True, True)
    # The second run fetches one window of the three days that may still change.
    assert line["second_run_windows"] == 1
    assert line["second_run_days_from_history"] == HISTORY_DAYS - 3


def test_memory_export_wrote_every_key_day(smoke, five_years):
    line = by_name(smoke.printed)["memory_export"]
    assert line["export_succeeded"] is True
    assert line["rows"] == len(five_years) > 10_000
    assert line["peak_rss_mb"] > 0


def test_peak_memory_is_the_commands_own_not_that_of_the_process_starting_it(tmp_path):
    """This process holds 600 MB; a command it starts reports its own peak, below that, and its
    exit status. Had the peak counted the address space the command was forked from, it would
    be 600 MB or more; the command's own (about 170 MB for one that imports the whole product,
    more where the kernel backs memory with huge pages) stays well under 400 MB."""
    held = bytearray(b"\x01") * (600 * 1024**2)  # every page written, so resident
    peaks = {}
    for name, command in {"zen": ["this"], "refused": ["analytics", "export", "--no-such"]}.items():
        peak_file = tmp_path / f"{name}-kb"
        done = subprocess.run(
            [sys.executable, "-m", "bench.peak", str(peak_file), *command],
            cwd=ROOT,
            capture_output=True,
        )
        peaks[name] = (done.returncode, int(peak_file.read_text()))
    assert len(held) == 600 * 1024**2
    assert peaks["zen"][0] == 0 and peaks["refused"][0] == 2
    assert all(0 < kb < 400 * 1024 for _, kb in peaks.values())


def test_concurrent_windows_fetch_five_years_in_five_windows(smoke):
    line = by_name(smoke.printed)["concurrent_windows"]
    assert line["windows"] == line["full_organization"]["windows"] == 6  # ⌈1,826 / 365⌉
    assert line["identical"] is True and line["full_organization"]["identical"] is True
    assert line["keys"] == EmulatorConfig().keys and line["full_organization"]["keys"] == KEYS


def smoke_ledger(smoke, name: str, days: int = HISTORY_DAYS, tags: int | None = None) -> list:
    """The smoke organization's ledger `name` (the emulator's tag or pair ledger) over the
    five years the benchmark fetches (or the `days` of an organization of that many days and
    `tags` tags)."""
    config = EmulatorConfig(seed=42, keys=KEYS, days=days, today=smoke.today, tags=tags)
    emulator = create_app(config).state.emulator
    try:
        read = getattr(emulator, name)
        return read(smoke.today - dt.timedelta(days=days), smoke.today - dt.timedelta(days=1))
    finally:
        emulator.store.close()


def test_tag_fetch_reads_every_tag_day_of_the_five_years(smoke):
    """Every (day, tag) of the smoke organization's tag ledger, from six windows of pages."""
    ledger = smoke_ledger(smoke, "tag_ledger")
    line = by_name(smoke.printed)["tag_fetch"]
    assert line["rows"] == len({(row.usage_date, row.custom_tag) for row in ledger}) > 1000
    assert line["windows"] == 6 and line["tags_within_text"] is True


def test_tag_fetch_10k_reads_every_tag_day_of_a_year_of_10000_tags(smoke):
    """Every (day, tag) of the year of the organization with 10,000 tags, from one window of
    pages, and every one of its tags."""
    ledger = smoke_ledger(smoke, "tag_ledger", days=365, tags=10_000)
    line = by_name(smoke.printed)["tag_fetch_10k"]
    assert line["rows"] == len({(row.usage_date, row.custom_tag) for row in ledger}) > 10_000
    assert line["tags"] == len({row.custom_tag for row in ledger}) == 10_000
    assert line["key_day_rows"] == len(smoke_ledger(smoke, "ledger", days=365, tags=10_000))
    assert line["windows"] == 1
    assert line["tags_within_text"] is True and line["every_tag"] is True


def test_tags_scale_shows_every_tag_and_only_the_top_tags_in_the_chart(smoke):
    line = by_name(smoke.printed)["tags_scale"]
    many = smoke_ledger(smoke, "tag_ledger", tags=10_000)
    assert line["table_rows"] == {"many": len({row.custom_tag for row in many}), "few": 100}
    assert line["table_rows"]["many"] == 10_000
    assert line["every_tag_in_table"] is True and line["top_n_series_only"] is True
    assert line["figures_under_1mb"] is True
    assert 0 < line["largest_figure_bytes"] <= 1024**2
    assert line["keys"] == KEYS and set(line["seconds"]) == {"many", "few"}


def test_anomaly_quality_is_measured_on_the_injected_ground_truth(smoke):
    truth = generate(42, KEYS, HISTORY_DAYS, smoke.today).injected
    recall = by_name(smoke.printed)["anomaly_recall"]
    assert recall["spikes"] == sum(i.kind == "spike" for i in truth) == 5
    assert recall["spikes_found"] == sum(found for found, _ in recall["by_factor"].values())
    assert recall["ratio"] == pytest.approx(0.9 / recall["recall"], abs=1e-3)
    assert set(recall["events_found"]) == {"drop", "new", "dormant"}
    alarms = by_name(smoke.printed)["anomaly_false_alarms"]
    assert alarms["false_alarms"] == sum(alarms["by_kind"].values())
    assert alarms["ratio"] == pytest.approx(alarms["false_alarms"] / alarms["key_years"], abs=1e-3)
    assert alarms["key_years"] > 50  # ~50 keys over the last ~1.8 years


def test_check_anomalies_reads_five_years_from_a_warm_history_store(smoke):
    line = by_name(smoke.printed)["check_anomalies"]
    assert line["only_open_days_fetched"] is True
    assert line["days"] == HISTORY_DAYS
    assert line["anomalies"] > 0
    assert set(line["seconds"]) == {"export", "check_anomalies"}


def test_pair_fetch_reads_every_pair_day_of_the_five_years(smoke):
    """Every (day, pair) of the smoke organization's pair ledger from six windows of pages,
    and by key every (day, pair, key), the unattributed parts under one key `-`."""
    ledger = smoke_ledger(smoke, "pair_ledger")
    keyed = {
        (row.usage_date, row.source_language, row.target_language, row.api_key)
        if row.attributed
        else (row.usage_date, row.source_language, row.target_language, "-")
        for row in ledger
    }
    line = by_name(smoke.printed)["pair_fetch"]
    assert line["rows"] == len({pair_day[:3] for pair_day in keyed}) > 1000
    assert line["pair_key_day_rows"] == len(keyed) > line["rows"]
    assert line["windows"] == 6 and line["pairs_add_up"] is True
    assert line["keys_add_up"] is True


def test_pages_figures_stay_small(smoke):
    line = by_name(smoke.printed)["pages_scale"]
    assert line["figures_under_1mb"] is True
    assert 0 < line["largest_figure_bytes"] <= 1024**2
    assert line["keys"] == {"big": KEYS, "small": 10}


def test_chargeback_pricing_bills_every_key_day_of_the_five_years(smoke, five_years):
    line = by_name(smoke.printed)["chargeback_pricing"]
    assert line["rows"] == len(five_years)
    assert line["same_usage"] is True and line["teams_add_up"] is True
    assert line["teams"] == 6  # teams.example.toml's five, then Unassigned


# Origins scored per series at each horizon: every month start from the 25th of the five
# years (2024-02) whose horizon had ended by the history's end (2026-11-24).
SCORED = {"month": 33, "quarter": 31, "12_months": 22}


@pytest.mark.parametrize("hard", ["", "hard_"])
def test_forecast_lines_score_each_horizon_of_each_series_as_the_product_serves_it(smoke, hard):
    """Each organization and its three largest keys by the year before the first scored
    origin (their one-off changes counted before it and from it on, none on the smooth
    organization): each scored at every horizon from the same origins as the seasonal naive,
    every point inside its own 80 % interval, each line's ratio what its figures say."""
    lines = by_name(smoke.printed)
    series = 4
    for horizon, origins in SCORED.items():
        quality = lines[f"forecast_wape_vs_naive_{hard}{horizon}"]
        covered = lines[f"interval_coverage_80_{hard}{horizon}"]
        for line in (quality, covered):
            assert (line["series"], line["scored"]) == (series, series * origins)
            assert sum(line["models"].values()) == line["scored"]
            assert line["organization"] == ("hard" if hard else "smooth")
        assert quality["naive_at_every_origin"] is True
        changed = [quality.get(f"keys_changed_{when}") for when in ("before", "within")]
        assert (sum(changed) <= series - 1) if hard else changed == [0, 0]
        assert quality["points_inside_their_80"] is True
        wape = quality["wape"]
        assert quality["ratio"] == pytest.approx(wape["served"] / wape["seasonal_naive"], rel=1e-3)
        assert quality["target"] == (0.85 if hard and horizon == "month" else 1.0 if hard else 0.8)
        assert covered["ratio"] == pytest.approx(abs(covered["coverage_80"] - 0.8), abs=1e-4)
        assert 0.9 * covered["forecast_above_zero"] <= covered["with_interval"]
        inside = covered["coverage_80"] * covered["with_interval"]
        assert inside == pytest.approx(round(inside), abs=0.01)


# The smoke run's real series and the month starts it scores at each horizon: the last two
# with a year before them whose horizon ended inside the series (bench/data/README.md).
REAL_ORIGINS = {
    "month": {"US births": ["2014-11", "2014-12"], "Capital Bikeshare": ["2012-11", "2012-12"]},
    "quarter": {"US births": ["2014-09", "2014-10"], "Capital Bikeshare": ["2012-09", "2012-10"]},
    "12 months": {"US births": ["2013-12", "2014-01"]},  # the bike share has two years only
}
MONTHS = {"month": 1, "quarter": 3, "12 months": 12}


def births_naive_wape(starts: list[str], months: int) -> float:
    """Seasonal naive's WAPE on US births, from the shipped file: each period's total
    against the total of the same weekdays 52 weeks before (104 for a day 52 weeks or more
    ahead: the 365th day of a 12-month period)."""
    births = pd.read_csv(ROOT / "bench" / "data" / "us_births.csv.gz", index_col="day")
    births.index = pd.to_datetime(births.index)
    errors = actuals = 0.0
    for start in starts:
        days = pd.date_range(start, pd.Timestamp(start) + pd.DateOffset(months=months), freq="D")
        ahead = np.arange(len(days) - 1)
        earlier = days[:-1] - pd.to_timedelta(364 * (ahead // 364 + 1), unit="D")
        actual = births.loc[days[:-1], "births"].sum()
        errors += abs(actual - births.loc[earlier, "births"].sum())
        actuals += actual
    return errors / actuals


@pytest.mark.parametrize("horizon", list(REAL_ORIGINS))
def test_real_series_lines_score_every_method_from_the_same_origins(smoke, horizon):
    """Each real line names its series and origins; seasonal naive's WAPE is the one read
    from the shipped file; each ratio is what the series' figures say, each series' weighing
    the same; the best library model is the lowest of the three."""
    suffix = horizon.replace(" ", "_")
    lines = by_name(smoke.printed)
    naive = lines[f"forecast_wape_vs_naive_real_{suffix}"]
    library = lines[f"forecast_wape_vs_library_real_{suffix}"]
    covered = lines[f"interval_coverage_80_real_{suffix}"]
    assert naive["series"] == library["series"]
    figures = naive["series"]
    assert set(figures) == set(REAL_ORIGINS[horizon])
    for name, starts in REAL_ORIGINS[horizon].items():
        assert figures[name]["origins"] == f"{starts[0]} to {starts[-1]}"
        assert figures[name]["scored"] == 2 == sum(figures[name]["served_models"].values())
        wape = figures[name]["wape"]
        models = ("ETS (AICc, weekly)", "Theta (weekly)", "STL + ETS (weekly)")
        assert figures[name]["best_library"] == min(models, key=lambda m: wape[m])
    oracle = births_naive_wape(REAL_ORIGINS[horizon]["US births"], MONTHS[horizon])
    assert figures["US births"]["wape"]["seasonal naive"] == pytest.approx(oracle, abs=1e-4)
    served = sum(f["wape"]["served"] for f in figures.values())
    assert naive["ratio"] == pytest.approx(
        served / sum(f["wape"]["seasonal naive"] for f in figures.values()), abs=2e-3
    )
    assert library["ratio"] == pytest.approx(
        served / sum(f["wape"][f["best_library"]] for f in figures.values()), abs=2e-3
    )
    assert naive["no_series_above_naive"] == (naive["worst_series"] <= 1.0)
    assert covered["scored"] == 2 * len(figures) >= covered["with_interval"]
    assert covered["ratio"] == pytest.approx(abs(covered["coverage_80"] - 0.8), abs=1e-4)


def test_recommend_time_is_what_its_seconds_say(smoke):
    timing = by_name(smoke.printed)["recommend_time"]
    assert timing["keys"] == KEYS
    seconds = timing["seconds"]
    assert timing["ratio"] == pytest.approx(
        seconds["recommend"] / seconds["check_budgets"], rel=1e-3
    )


def test_decoding_baseline_is_the_same_frame(smoke):
    assert by_name(smoke.printed)["decode_vs_naive"]["identical"] is True


def test_scenarios_cover_every_target_name():
    assert set(SCENARIOS) == {
        "decoding",
        "csv_export",
        "memory",
        "focus_export",
        "dataset_incremental",
        "api_usage",
        "pages",
        "incremental_refresh",
        "concurrent_windows",
        "capacity_rerun",
        "tag_fetch",
        "anomaly_detection",
        "check_anomalies",
        "state_marks",
        "state_pages",
        "chargeback_pricing",
        "pair_fetch",
        "tag_fetch_10k",
        "tags_scale",
        "guardrails",
        "browser_pages",
        "session_memory",
        "scoped_pages",
        "forecast_quality",
        "forecast_quality_hard",
        "forecast_quality_real",
        "recommend_time",
    }


def test_naive_baseline_builds_the_documented_frame(emulator_app):
    """The baseline is only fair if it produces exactly the frame the pipeline does, and both
    are the ledger's key-days."""
    emulator = emulator_app.state.emulator
    report = build_report(emulator.store, "2025-04-01", "2025-06-01", "key_and_day")
    body = orjson.dumps(report)
    naive, tidy = naive_key_day(body), tidy_key_day(body)
    assert len(tidy) == len(orjson.loads(body)["usage_report"]["key_and_day_usages"]) > 0
    assert tidy["api_key_label"].dtype == "category"
    assert naive.equals(tidy)
    assert (naive.dtypes == tidy.dtypes).all()
    assert_matches_ledger(tidy, emulator.ledger(dt.date(2025, 4, 1), dt.date(2025, 5, 31)))


def test_machine_names_the_cpu_and_memory():
    info = machine()
    assert info["nproc"] == os.cpu_count()
    assert info["memory_gib"] > 0
    assert info["cpu"]


def read_export(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(path, keep_default_na=False)
    frame["usage_date"] = pd.to_datetime(frame["usage_date"])
    return frame
