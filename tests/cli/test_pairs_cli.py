"""`python -m analytics export --source language-pairs`: exact files for a small organization
served over loopback, the unattributed rows kept as the service sends them, the formula guard,
exit codes, and groupings that do not go with the source.

The expected numbers follow the organization file's rule (a key-day's figure is split over the
key's pairs of its kind by weight, as differences of cumulative floors), worked out by hand.
"""

from __future__ import annotations

import pytest
from support.builders import csv_file, export_command, export_file
from support.orgfiles import SPLIT_PAIRS, org_key, org_usage, organization

pytestmark = pytest.mark.usefixtures("instant_retries")

ADMIN, PLAIN = "pair-admin-0001-aaaa:adm", "pair-plain-0002-bbbb"
ORG = organization(
    org_key(ADMIN, "Admin", f"pairs = {SPLIT_PAIRS}", admin=True),
    org_key(PLAIN, "@Web", 'pairs = [{ source = "de", target = "fr" }]'),
    org_usage(ADMIN, "2025-03-01", text=1000, document=500, improvement=40, stt=1.5),
    org_usage(ADMIN, "2025-03-02", text=11),
    org_usage(PLAIN, "2025-03-02", text=2000, improvement=8),
)
METRICS = (
    "total_characters,text_translation_characters,document_translation_characters,"
    "text_improvement_characters,speech_to_text_minutes,speech_to_speech_minutes"
)
A, B = "pair****:adm,Admin", "pair****bbbb,'@Web"  # the label's formula defused
# Admin's translation splits 3:1:1 over en→ja, en→de and en→ja unattributed (key "-"):
# 1000 → 600/200/200 and 500 → 300/100/100 on the 1st, 11 → 6/2/3 on the 2nd; its improvement
# and minutes go to en→en. Web has no same-language pair: its improvement is "-" → "-".
BY_PAIR_KEY_AND_DAY = [
    f"usage_date,source_language,target_language,api_key,api_key_label,{METRICS}",
    f"2025-03-01,en,de,{A},300,200,100,0,0.0,0.0",
    f"2025-03-01,en,en,{A},40,0,0,40,1.5,0.0",
    "2025-03-01,en,ja,-,unknown,300,200,100,0,0.0,0.0",
    f"2025-03-01,en,ja,{A},900,600,300,0,0.0,0.0",
    f"2025-03-02,-,-,{B},8,0,0,8,0.0,0.0",
    f"2025-03-02,de,fr,{B},2000,2000,0,0,0.0,0.0",
    f"2025-03-02,en,de,{A},2,2,0,0,0.0,0.0",
    "2025-03-02,en,ja,-,unknown,3,3,0,0,0.0,0.0",
    f"2025-03-02,en,ja,{A},6,6,0,0,0.0,0.0",
]
BY_PAIR = [
    f"source_language,target_language,{METRICS}",
    "de,fr,2000,2000,0,0,0.0,0.0",
    "en,ja,1209,809,400,0,0.0,0.0",
    "en,de,302,202,100,0,0.0,0.0",
    "en,en,40,0,0,40,1.5,0.0",
    "-,-,8,0,0,8,0.0,0.0",
]
BY_PAIR_AND_KEY = [
    f"source_language,target_language,api_key,api_key_label,{METRICS}",
    f"de,fr,{B},2000,2000,0,0,0.0,0.0",
    f"en,ja,{A},906,606,300,0,0.0,0.0",
    "en,ja,-,unknown,303,203,100,0,0.0,0.0",
    f"en,de,{A},302,202,100,0,0.0,0.0",
    f"en,en,{A},40,0,0,40,1.5,0.0",
    f"-,-,{B},8,0,0,8,0.0,0.0",
]
BY_PAIR_AND_DAY = [
    f"usage_date,source_language,target_language,{METRICS}",
    "2025-03-01,en,de,300,200,100,0,0.0,0.0",
    "2025-03-01,en,en,40,0,0,40,1.5,0.0",
    "2025-03-01,en,ja,1200,800,400,0,0.0,0.0",
    "2025-03-02,-,-,8,0,0,8,0.0,0.0",
    "2025-03-02,de,fr,2000,2000,0,0,0.0,0.0",
    "2025-03-02,en,de,2,2,0,0,0.0,0.0",
    "2025-03-02,en,ja,9,9,0,0,0.0,0.0",
]
RANGE = ["--start", "2025-03-01", "--end", "2025-03-05"]


def export(base_url: str, *args: str, key: str = ADMIN):
    return export_command(base_url, key, *RANGE, *args)


def written(base_url: str, out, *args: str) -> bytes:
    return export_file(base_url, ADMIN, out, *RANGE, "--source", "language-pairs", *args)


@pytest.mark.parametrize(
    ("grouping", "expected"),
    [
        ([], BY_PAIR),
        (["--group-by", "pair"], BY_PAIR),
        (["--group-by", "pair_and_day"], BY_PAIR_AND_DAY),
        (["--group-by", "pair_and_key"], BY_PAIR_AND_KEY),
        (["--group-by", "pair_key_and_day"], BY_PAIR_KEY_AND_DAY),
    ],
)
def test_pair_exports_are_exact(served_org, tmp_path, grouping, expected):
    assert written(served_org, tmp_path / "pairs.csv", *grouping) == csv_file(expected)


def test_raw_keeps_the_label(served_org, tmp_path):
    raw = written(served_org, tmp_path / "raw.csv", "--group-by", "pair_and_key", "--raw")
    assert raw == csv_file([line.replace("'@", "@") for line in BY_PAIR_AND_KEY])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--source", "language-pairs", "--group-by", "key"], "does not go with --source"),
        (["--source", "language-pairs", "--group-by", "tag"], "choose one of pair, pair_and_day"),
        (["--source", "tags", "--group-by", "pair"], "--group-by pair does not go"),
    ],
)
def test_a_grouping_of_another_source_exits_2_before_fetching(tmp_path, args, message):
    out = tmp_path / "pairs.csv"
    result = export("http://127.0.0.1:9", *args, "-o", str(out))  # nothing listens there
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()


def test_a_key_that_is_not_an_administrator_exits_3_without_a_file(served_org, tmp_path):
    out = tmp_path / "pairs.csv"
    result = export(served_org, "--source", "language-pairs", "-o", str(out), key=PLAIN)
    assert result.exit_code == 3
    assert "403" in result.stderr and PLAIN not in result.stderr
    assert not out.exists()
