"""The data-out lines at 1/20 scale: a smoke run of their own, beside tests/bench/test_bench.py's
(each file's smoke on its own worker). As there, timings are not checked; what the lines claim
is, against the smoke organization's ledger: the FOCUS file and the export with cost hold the
ledger's usage and the same money, the dataset's second run wrote its new day's month and no
earlier day, and the API's file is the export's, every key-day of the year in it."""

import datetime as dt
from decimal import Decimal

import pandas as pd
import pytest
from support.bench import DATA_OUT, KEYS, Smoke, assert_reported, by_name, run_smoke
from support.builders import ledger_totals

pytestmark = pytest.mark.smoke


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Smoke:
    return run_smoke(tmp_path_factory.mktemp("data-out"), *DATA_OUT)


def test_every_target_is_reported_once_with_a_finite_positive_ratio(smoke):
    assert_reported(smoke, set(DATA_OUT))


def test_the_focus_file_holds_the_ledgers_usage_and_the_exports_money(smoke, five_years):
    line = by_name(smoke.printed)["focus_export"]
    assert line["key_days"] == len(five_years)
    assert line["billed_cost_is_total_cost"] is True
    assert line["parquet_billed_cost_is_csvs"] is True and line["csv_ratio"] > 0
    assert Decimal(line["billed_cost"]) == Decimal(line["total_cost"]) > 0
    kept = smoke.kept / "focus_export"
    focus = pd.read_csv(kept / "focus.csv", dtype=str, keep_default_na=False)
    plain = pd.read_csv(kept / "export_with_cost.csv", dtype=str, keep_default_na=False)
    totals = ledger_totals(five_years)
    for metric in ("text_translation_characters", "document_translation_characters"):
        consumed = focus.loc[focus["x_Metric"] == metric, "ConsumedQuantity"]
        assert sum(map(int, consumed)) == totals[metric] == sum(map(int, plain[metric]))
    billed = sum(map(Decimal, focus["BilledCost"]))
    assert billed == sum(map(Decimal, filter(None, plain["total_cost_eur"])))
    assert str(billed) == line["billed_cost"]


def test_the_datasets_second_run_wrote_the_new_days_month_alone(smoke, five_years):
    line = by_name(smoke.printed)["dataset_incremental"]
    assert line["only_new_month_and_open_days_written"] is True
    assert line["manifest_lists_every_partition"] is True
    # The organization's last day (2026-11-24) is the new one: November is written again.
    assert line["written_from"] == "2026-11-01"
    days = {row.usage_date for row in five_years}
    november = {day for day in days if day >= dt.date(2026, 11, 1)}
    assert len(days) > 1000 and november
    # A usage and a FOCUS partition a day with usage, and a month's Purchase row on its first
    # day, which may have none.
    assert 2 * len(days) <= line["partitions"] <= 2 * len(days) + 61
    assert 2 <= line["second_run_written"] <= 2 * len(november)
    assert set(line["seconds"]) == {"first", "second"}


def test_the_apis_file_is_the_exports_and_holds_every_key_day_of_the_year(smoke, five_years):
    line = by_name(smoke.printed)["api_usage"]
    assert line["same_rows"] is True and line["days"] == 365
    kept = smoke.kept / "api_usage"
    assert (kept / "api_usage.csv").read_bytes() == (kept / "export.csv").read_bytes()
    year = [r for r in five_years if r.usage_date >= smoke.today - dt.timedelta(days=365)]
    assert line["rows"] == len(year) > KEYS
    served = pd.read_csv(kept / "api_usage.csv")
    assert served["total_characters"].sum() == ledger_totals(year)["total_characters"]
