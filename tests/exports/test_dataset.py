"""`export-dataset`: the demo organization's key-and-day usage with cost and FOCUS rows as a
Hive-partitioned Parquet dataset, in a folder and in a real S3-compatible server on loopback
(moto's server): read back whole it is `export`'s file of the same range, row for row; a
second run writes nothing; a run stopped after some partitions leaves the manifest as it was
and no partial file, and the next run completes it; new days write only their partitions, and
the open days are written on every run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.dataset as ds
import pytest
import s3fs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.builders import invoke
from support.s3 import s3_server

from analytics.exports import dataset
from analytics.usage import calendar
from emulator import EmulatorConfig, create_app

DEMO = {"SERVICE_DEMO_KEYS": "4", "SERVICE_DEMO_DAYS": "90"}
USAGE_ORDER = ["usage_date", "api_key"]
FOCUS_ORDER = ["ChargePeriodStart", "SubAccountId", "ServiceName", "ChargeCategory"]

pytestmark = pytest.mark.usefixtures("instant_retries")


def month_start_in_past() -> date:
    """The first day of a month 45 to 76 days back: the days around it (six before, five
    after) are closed, in the small demo's 90 days, and before the day its relabelled key
    takes its new label (three fifths into the 90 days, about 36 days back), so every key
    keeps one label over them."""
    return (calendar.utc_today() - timedelta(days=45)).replace(day=1)


@pytest.fixture(scope="module")
def used_days() -> set[date]:
    """The days on which the small demo's keys were used, by its emulator's ledger: a day
    without use (a quiet weekend day) has no partition to write."""
    today = calendar.utc_today()
    days = int(DEMO["SERVICE_DEMO_DAYS"])
    config = EmulatorConfig(keys=int(DEMO["SERVICE_DEMO_KEYS"]), days=days, today=today)
    emulator = create_app(config).state.emulator
    try:
        return {row.usage_date for row in emulator.ledger(today - timedelta(days=days), today)}
    finally:
        emulator.store.close()


@pytest.fixture
def demo_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    env = {**DEMO, "SERVICE_HISTORY_PATH": str(tmp_path / "history")}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


@pytest.fixture
def s3_bucket(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A bucket of moto's S3 server on a free loopback port, reached as the command reaches
    any: through the AWS environment variables."""
    with s3_server(monkeypatch) as s3:
        s3.mkdir("warehouse")
        yield "s3://warehouse/usage-dataset"


def run(to: str, first: date, last: date, *options: str) -> tuple[int, str]:
    days = ("--start", str(first), "--end", str(last))
    result = invoke("export-dataset", "--demo", *days, "--to", to, *options)
    return result.exit_code, result.stderr


def exported(tmp_path: Path, first: date, last: date, *options: str) -> pd.DataFrame:
    out = tmp_path / f"export-{len(options)}.parquet"
    days = ("--start", str(first), "--end", str(last))
    result = invoke("export", "--demo", *days, *options, "-o", str(out))
    assert result.exit_code == 0, result.stderr
    return pd.read_parquet(out)


def read_table(to: str, table: str) -> pd.DataFrame:
    """One table of the dataset read whole by pyarrow, the partition column dropped."""
    filesystem = s3fs.S3FileSystem() if to.startswith("s3://") else None
    root = to.removeprefix("s3://")
    read = ds.dataset(
        f"{root}/{table}", format="parquet", partitioning="hive", filesystem=filesystem
    )
    return read.to_table().to_pandas().drop(columns="date")


def manifest_bytes(to: str) -> bytes:
    if to.startswith("s3://"):
        return s3fs.S3FileSystem().cat_file(f"{to}/manifest.json")
    return (Path(to) / "manifest.json").read_bytes()


def manifest(to: str) -> dict:
    return json.loads(manifest_bytes(to))


def files_under(to: str) -> set[str]:
    """Every file (object) under the destination, by its path there."""
    if to.startswith("s3://"):
        root = to.removeprefix("s3://")
        return {path.removeprefix(f"{root}/") for path in s3fs.S3FileSystem().find(root)}
    return {p.relative_to(to).as_posix() for p in Path(to).rglob("*") if p.is_file()}


def same_rows(got: pd.DataFrame, expected: pd.DataFrame, order: list[str]) -> None:
    names = {str(c): object for c, kind in expected.dtypes.items() if kind == "category"}
    got = got.astype(names).sort_values(order).reset_index(drop=True)
    expected = expected.astype(names).sort_values(order).reset_index(drop=True)
    pd.testing.assert_frame_equal(got[list(expected.columns)], expected, check_dtype=False)


def written_count(stderr: str) -> int:
    line = next(line for line in stderr.splitlines() if line.startswith("Wrote "))
    return int(line.split()[1])


def puts_counted(patch: pytest.MonkeyPatch) -> list[str]:
    """Every file a run puts, by its path, in order."""
    writes: list[str] = []
    put = dataset.Destination.put

    def counted(self, relative, content):
        writes.append(relative)
        put(self, relative, content)

    patch.setattr(dataset.Destination, "put", counted)
    return writes


@pytest.mark.parametrize("where", ["folder", "s3"])
def test_the_dataset_is_the_exports_rows_and_a_second_run_writes_nothing(
    where, tmp_path, demo_env, request
):
    to = str(tmp_path / "dataset") if where == "folder" else request.getfixturevalue("s3_bucket")
    first = month_start_in_past() - timedelta(days=5)
    last = first + timedelta(days=9)
    code, stderr = run(to, first, last)
    assert code == 0, stderr
    usage = exported(tmp_path, first, last, "--group-by", "key_and_day", "--with-cost")
    focus = exported(tmp_path, first, last, "--focus")
    same_rows(read_table(to, "usage"), usage, USAGE_ORDER)
    same_rows(read_table(to, "focus"), focus, FOCUS_ORDER)
    listed = manifest(to)
    assert listed["schema_version"] == dataset.SCHEMA_VERSION
    days = {p["date"] for p in listed["partitions"] if p["table"] == "usage"}
    assert days == {str(day) for day in usage["usage_date"]}
    assert sum(p["rows"] for p in listed["partitions"] if p["table"] == "usage") == len(usage)
    assert sum(p["rows"] for p in listed["partitions"] if p["table"] == "focus") == len(focus)
    assert written_count(stderr) == len(listed["partitions"])

    code, stderr = run(to, first, last)
    assert code == 0 and written_count(stderr) == 0
    assert manifest(to) == listed


def test_new_days_write_only_their_partitions(tmp_path, demo_env):
    """A month's days first, then the range grown into the next month: only the new month's
    days are written (the old month's money is unchanged, each hash the same)."""
    to = str(tmp_path / "dataset")
    month = month_start_in_past()
    first = month - timedelta(days=6)
    assert run(to, first, month - timedelta(days=1))[0] == 0
    before = {p["path"]: p["sha256"] for p in manifest(to)["partitions"]}
    with pytest.MonkeyPatch.context() as patch:
        writes = puts_counted(patch)
        assert run(to, first, month + timedelta(days=2))[0] == 0
    new_days = {f"date={month + timedelta(days=n)}" for n in range(3)}
    assert writes[:-1] and {path.split("/")[1] for path in writes[:-1]} <= new_days
    assert writes[-1] == "manifest.json"
    after = {p["path"]: p["sha256"] for p in manifest(to)["partitions"]}
    assert {path: after[path] for path in before} == before


@pytest.mark.parametrize("where", ["folder", "s3"])
def test_a_run_stopped_half_way_keeps_the_manifest_and_the_next_completes_it(
    where, tmp_path, demo_env, request
):
    to = str(tmp_path / "dataset") if where == "folder" else request.getfixturevalue("s3_bucket")
    month = month_start_in_past()
    first, last = month - timedelta(days=6), month + timedelta(days=5)
    assert run(to, first, month - timedelta(days=1))[0] == 0
    earlier = manifest_bytes(to)
    put = dataset.Destination.put
    puts = []

    def failing(self, relative, content):
        if len(puts) == 2:
            raise OSError(28, "No space left on device", relative)
        puts.append(relative)
        put(self, relative, content)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dataset.Destination, "put", failing)
        code, stderr = run(to, first, last)
    assert code == 1, stderr
    assert manifest_bytes(to) == earlier
    files = files_under(to)
    listed = {p["path"] for p in json.loads(earlier)["partitions"]}
    assert files == listed | set(puts) | {"manifest.json"}

    code, stderr = run(to, first, last)
    assert code == 0, stderr
    usage = exported(tmp_path, first, last, "--group-by", "key_and_day", "--with-cost")
    same_rows(read_table(to, "usage"), usage, USAGE_ORDER)
    assert written_count(stderr) == len(manifest(to)["partitions"]) - len(listed)


def read_by_duckdb(to: str, table: str) -> pd.DataFrame:
    """One table of the dataset read whole as a warehouse reads it, the partition column
    dropped (amounts kept as decimals, through Arrow)."""
    pattern = f"{to}/{table}/*/*.parquet"
    query = f"SELECT * EXCLUDE (date) FROM read_parquet('{pattern}', hive_partitioning = true)"
    return duckdb.sql(query).to_arrow_table().to_pandas()


def test_one_new_day_writes_its_month_alone_and_the_dataset_is_a_fresh_export(
    tmp_path, demo_env, used_days
):
    """A closed day of use added to the range: its month is written again (the day moves its
    month's base-fee shares), no earlier month is, and the dataset read back whole by DuckDB
    is a full export of the range made afresh."""
    month = month_start_in_past()
    first = month - timedelta(days=20)
    new_day = min(day for day in used_days if day >= month + timedelta(days=9))
    to = str(tmp_path / "dataset")
    assert run(to, first, new_day - timedelta(days=1))[0] == 0
    before = {p["path"]: p["sha256"] for p in manifest(to)["partitions"]}
    with pytest.MonkeyPatch.context() as patch:
        writes = puts_counted(patch)
        assert run(to, first, new_day)[0] == 0
    assert writes[-1] == "manifest.json"
    written_days = {date.fromisoformat(path[-23:-13]) for path in writes[:-1]}
    assert new_day in written_days and all(day >= month for day in written_days)
    after = {p["path"]: p["sha256"] for p in manifest(to)["partitions"]}
    assert {p: h for p, h in after.items() if p[-23:-13] < str(month)} == {
        p: h for p, h in before.items() if p[-23:-13] < str(month)
    }
    usage = exported(tmp_path, first, new_day, "--group-by", "key_and_day", "--with-cost")
    same_rows(read_by_duckdb(to, "usage"), usage, USAGE_ORDER)
    same_rows(
        read_by_duckdb(to, "focus"), exported(tmp_path, first, new_day, "--focus"), FOCUS_ORDER
    )


def test_new_prices_write_every_partition_again(tmp_path, demo_env):
    """The same range with other prices: every partition's money changed, so every one is
    written again, and the dataset is the export at the new prices."""
    first = month_start_in_past() - timedelta(days=5)
    last = first + timedelta(days=9)
    example = (Path(__file__).parents[2] / "pricing.example.toml").read_text()
    # Every month's fee a thousand more, and text translation dearer.
    dearer = example.replace("monthly_fee = ", "monthly_fee = 1").replace(
        "text_translation_characters = 20.00", "text_translation_characters = 22.00"
    )
    assert dearer != example
    prices = {name: tmp_path / f"{name}.toml" for name in ("example", "dearer")}
    prices["example"].write_text(example)
    prices["dearer"].write_text(dearer)
    to = str(tmp_path / "dataset")
    assert run(to, first, last, "--pricing", str(prices["example"]))[0] == 0
    before = {p["path"]: p["sha256"] for p in manifest(to)["partitions"]}
    code, stderr = run(to, first, last, "--pricing", str(prices["dearer"]))
    assert code == 0, stderr
    after = {p["path"]: p["sha256"] for p in manifest(to)["partitions"]}
    assert written_count(stderr) == len(after) == len(before)
    assert all(after[path] != digest for path, digest in before.items())
    options = ("--group-by", "key_and_day", "--with-cost", "--pricing", str(prices["dearer"]))
    same_rows(read_by_duckdb(to, "usage"), exported(tmp_path, first, last, *options), USAGE_ORDER)


def test_the_open_days_are_written_on_every_run(tmp_path, demo_env):
    to = str(tmp_path / "dataset")
    today = calendar.utc_today()
    first = today - timedelta(days=8)
    assert run(to, first, today)[0] == 0
    with pytest.MonkeyPatch.context() as patch:
        writes = puts_counted(patch)
        assert run(to, first, today)[0] == 0
    open_days = {p for p in writes if p != "manifest.json"}
    first_open = today - timedelta(days=3)
    listed = {p["path"] for p in manifest(to)["partitions"]}
    assert open_days == {p for p in listed if date.fromisoformat(p[-23:-13]) >= first_open}
    assert open_days


def test_credentials_in_the_url_are_refused_and_never_printed(tmp_path, demo_env):
    day = month_start_in_past()
    code, stderr = run("s3://AKIDSECRET:hunter2@warehouse/usage", day, day)
    assert code == 2
    assert "AWS_ACCESS_KEY_ID" in stderr
    assert "hunter2" not in stderr and "AKIDSECRET" not in stderr


DAY0 = date(2025, 3, 1)
day_rows = st.lists(
    st.tuples(st.integers(0, 5), st.sampled_from(["a", "b", "c"]), st.integers(0, 10**9)),
    max_size=12,
)


def hand_made(rows: list[tuple[int, str, int]]) -> dict[str, pd.DataFrame]:
    """A usage and a FOCUS table of the same hand-made rows: (day offset, key, characters)."""
    days = [DAY0 + timedelta(days=offset) for offset, _, _ in rows]
    usage = pd.DataFrame(
        {
            "usage_date": days,
            "api_key": [key for _, key, _ in rows],
            "total_characters": pd.array([n for _, _, n in rows], dtype="int64"),
        }
    )
    starts = pd.to_datetime(pd.Series(days, dtype="object")).dt.tz_localize("UTC")
    focus = pd.DataFrame({"ChargePeriodStart": starts, "BilledCost": usage["total_characters"]})
    return {"usage": usage, "focus": focus}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(before=day_rows, after=day_rows)
def test_a_run_writes_exactly_the_days_whose_rows_changed(tmp_path, before, after):
    """Hand-made rows written twice: the second run writes the days whose rows differ (both
    tables), removes the days left without rows, and the folder holds what the manifest lists."""
    to = tmp_path / f"hand-{len(list(tmp_path.iterdir()))}"
    days = dataset.Days(DAY0, DAY0 + timedelta(days=5), DAY0 + timedelta(days=30))
    run_at = datetime(2025, 4, 1, tzinfo=UTC)
    to_folder = dataset.Destination(str(to))
    dataset.export_dataset(to_folder, lambda *_: hand_made(before), days, "inputs", run_at)
    outcome = dataset.export_dataset(to_folder, lambda *_: hand_made(after), days, "inputs", run_at)

    def per_day(rows: list[tuple[int, str, int]], table: str) -> dict[int, list[tuple]]:
        """Each day's rows of ``table`` as written: the usage rows name their key, the FOCUS
        rows here only their cost (so a day whose keys changed and costs did not is the same
        FOCUS partition)."""
        grouped: dict[int, list[tuple]] = {}
        for offset, key, n in rows:
            grouped.setdefault(offset, []).append((key, n) if table == "usage" else (n,))
        return grouped

    changed = {
        f"{table}/date={DAY0 + timedelta(days=offset)}/part.parquet"
        for table in ("usage", "focus")
        for old, new in [(per_day(before, table), per_day(after, table))]
        for offset in new
        if old.get(offset) != new[offset]
    }
    assert set(outcome.written) == changed
    old, new = per_day(before, "usage"), per_day(after, "usage")
    assert {p.split("/")[1] for p in outcome.removed} == {
        f"date={DAY0 + timedelta(days=offset)}" for offset in set(old) - set(new)
    }
    if after:
        back = read_table(str(to), "usage").sort_values(
            ["usage_date", "api_key", "total_characters"]
        )
        expected = hand_made(after)["usage"].sort_values(
            ["usage_date", "api_key", "total_characters"]
        )
        assert back["total_characters"].tolist() == expected["total_characters"].tolist()
    files = {p.relative_to(to).as_posix() for p in to.rglob("*.parquet")}
    # No rows in either run: nothing written, not even a manifest.
    listed = {p["path"] for p in manifest(str(to))["partitions"]} if before or after else set()
    assert files == listed


def daily(first: date, last: date, label: str) -> dict[str, pd.DataFrame]:
    """Key ``a`` (labelled ``label``) using 7 characters on each day of first–last."""
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    usage = pd.DataFrame(
        {"usage_date": days, "api_key": "a", "api_key_label": label, "total_characters": 7}
    )
    starts = pd.to_datetime(pd.Series(days, dtype="object")).dt.tz_localize("UTC")
    return {"usage": usage, "focus": pd.DataFrame({"ChargePeriodStart": starts, "BilledCost": 7})}


@pytest.mark.parametrize(
    ("inputs", "label", "computed"),
    [
        # The new day's month, from its first day: the open days of the last run are in it.
        ("prices", "Shop", [(date(2025, 4, 1), date(2025, 4, 11))]),
        # Other prices: the whole range.
        ("other prices", "Shop", [(date(2025, 3, 1), date(2025, 4, 11))]),
        # A key renamed: its month first, then (its older rows carry the old name) the range.
        ("prices", "Web shop", [(date(2025, 4, 1), date(2025, 4, 11)), (DAY0, date(2025, 4, 11))]),
    ],
)
def test_a_run_computes_from_the_first_day_that_can_have_changed(tmp_path, inputs, label, computed):
    destination = dataset.Destination(str(tmp_path / "hand"))
    run_at = datetime(2025, 4, 12, tzinfo=UTC)
    first = dataset.Days(DAY0, date(2025, 4, 10), date(2025, 4, 8))
    dataset.export_dataset(destination, lambda a, b: daily(a, b, "Shop"), first, "prices", run_at)
    calls = []

    def compute(start: date, end: date) -> dict[str, pd.DataFrame]:
        calls.append((start, end))
        return daily(start, end, label)

    second = dataset.Days(DAY0, date(2025, 4, 11), date(2025, 4, 9))
    outcome = dataset.export_dataset(destination, compute, second, inputs, run_at)
    assert calls == computed
    assert date(2025, 4, 11) in {date.fromisoformat(p[-23:-13]) for p in outcome.written}
    assert len(read_table(destination.url, "usage")) == (date(2025, 4, 11) - DAY0).days + 1
    again = dataset.export_dataset(destination, compute, second, inputs, run_at)
    # Nothing new: only the open days are written again, from the first open day's month.
    assert calls[-1] == (date(2025, 4, 1), date(2025, 4, 11)) and not again.removed
    assert {p[-23:-13] for p in again.written} == {"2025-04-09", "2025-04-10", "2025-04-11"}
