"""`python -m analytics export --source tags`: exact files for a small organization served over
loopback, the formula guard, exit codes, and groupings that do not go with the source.

The expected numbers follow the organization file's rule (a tag carries floor(characters ×
share) of its key's text per day), worked out by hand here.
"""

from __future__ import annotations

import pandas as pd
import pytest
from support.builders import csv_file, export_command, export_file
from support.orgfiles import org_key, org_usage, organization

pytestmark = pytest.mark.usefixtures("instant_retries")

ADMIN, PLAIN = "tags-admin-0001-aaaa:adm", "tags-plain-0002-bbbb"
ADMIN_TAGS = """tags = [
    { tag = "checkout", share = 0.25 },
    { tag = "=cmd|x", share = 0.5, first = 2025-03-02, last = 2025-03-02 },
]"""
ORG = organization(
    org_key(ADMIN, "Admin", ADMIN_TAGS, admin=True),
    org_key(PLAIN, "Website", 'tags = [{ tag = "checkout", share = 0.1 }]'),
    org_usage(ADMIN, "2025-03-01", text=1000, improvement=40),
    org_usage(ADMIN, "2025-03-02", text=333, improvement=7),
    org_usage(PLAIN, "2025-03-02", text=2000, document=500),
    org_usage(ADMIN, "2025-03-04", text=10),
)
HEADER = "custom_tag,total_characters,text_translation_characters,text_improvement_characters"
# checkout: 1000 × 0.25, 40 × 0.25 on the 1st; 333 × 0.25, 7 × 0.25 and 2000 × 0.1 on the 2nd
# (documents are never tagged); 10 × 0.25 on the 4th. "=cmd|x": 333 × 0.5, 7 × 0.5 on the 2nd,
# its formula defused with a leading apostrophe (and sorted first: "=" before "c").
BY_DAY = [
    f"usage_date,{HEADER}",
    "2025-03-01,checkout,260,250,10",
    "2025-03-02,'=cmd|x,169,166,3",
    "2025-03-02,checkout,284,283,1",
    "2025-03-04,checkout,2,2,0",
]
BY_TAG = [HEADER, "checkout,546,535,11", "'=cmd|x,169,166,3"]
RANGE = ["--start", "2025-03-01", "--end", "2025-03-05"]


def export(base_url: str, *args: str, key: str = ADMIN):
    return export_command(base_url, key, *RANGE, *args)


def written(base_url: str, out, *args: str) -> bytes:
    return export_file(base_url, ADMIN, out, *RANGE, *args)


@pytest.mark.parametrize(
    ("grouping", "expected"),
    [([], BY_DAY), (["--group-by", "tag_and_day"], BY_DAY), (["--group-by", "tag"], BY_TAG)],
)
def test_tag_exports_are_exact(served_org, tmp_path, grouping, expected):
    tags = written(served_org, tmp_path / "tags.csv", "--source", "tags", *grouping)
    assert tags == csv_file(expected)


def test_raw_keeps_the_tag_and_other_formats_hold_the_same_rows(served_org, tmp_path):
    raw = written(served_org, tmp_path / "raw.csv", "--source", "tags", "--raw")
    assert raw == csv_file([line.replace("'=", "=") for line in BY_DAY])
    for name in ("tags.parquet", "tags.xlsx"):
        written(served_org, tmp_path / name, "--source", "tags", "--group-by", "tag")
    parquet = pd.read_parquet(tmp_path / "tags.parquet")
    excel = pd.read_excel(tmp_path / "tags.xlsx")
    assert parquet["custom_tag"].astype(str).tolist() == ["checkout", "=cmd|x"]  # no guard
    assert excel["custom_tag"].tolist() == ["checkout", "'=cmd|x"]
    assert parquet["total_characters"].tolist() == excel["total_characters"].tolist() == [546, 169]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--source", "tags", "--group-by", "key"],
            "--group-by key does not go with --source tags",
        ),
        (["--source", "tags", "--group-by", "none"], "choose one of tag_and_day, tag"),
        (["--group-by", "tag"], "--group-by tag does not go with --source usage"),
        (["--source", "usage", "--group-by", "tag_and_day"], "choose one of key_and_day, key"),
        (["--source", "keys"], "keys"),
    ],
)
def test_a_grouping_of_the_other_source_exits_2_before_fetching(
    served_org, tmp_path, args, message
):
    out = tmp_path / "tags.csv"
    out.write_bytes(b"earlier export\r\n")
    result = export("http://127.0.0.1:9", *args, "-o", str(out))  # nothing listens there
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert out.read_bytes() == b"earlier export\r\n"


def test_default_source_keeps_the_usage_export(served_org, tmp_path):
    usage = written(served_org, tmp_path / "usage.csv", "--group-by", "key")
    assert usage.splitlines()[:2] == [
        b"api_key,api_key_label,total_characters,text_translation_characters,"
        b"document_translation_characters,text_improvement_characters,speech_to_text_minutes,"
        b"speech_to_speech_minutes",
        b"tags****bbbb,Website,2500,2000,500,0,0.0,0.0",
    ]


def test_a_key_that_is_not_an_administrator_exits_3_without_a_file(served_org, tmp_path):
    out = tmp_path / "tags.csv"
    result = export(served_org, "--source", "tags", "-o", str(out), key=PLAIN)
    assert result.exit_code == 3
    assert "403" in result.stderr and "trace id" in result.stderr and PLAIN not in result.stderr
    assert not out.exists()


# 1 cent a text translation character, 3 cents a text improvement character; a base fee and an
# included volume, which tags never carry (they are the organization's).
TAG_PRICES = """currency = "EUR"
[[price]]
from = "2025-01-01"
monthly_fee = 250
unit_prices = { text_translation_characters = 10_000, document_translation_characters = 0, \
text_improvement_characters = 30_000, speech_to_text_minutes = 0 }
included_per_month = { text_translation_characters = 1_000_000 }
"""
TAG_TEAMS = '[[team]]\nname = "Shop"\ntag_patterns = ["check*"]\n'


@pytest.mark.parametrize(
    ("grouping", "expected"),
    [
        # checkout on the 1st: 250 + 3 × 10 cents; "=cmd|x": 166 + 3 × 3; and so on.
        (
            "tag_and_day",
            [
                f"usage_date,custom_tag,team,{HEADER.removeprefix('custom_tag,')},usage_cost_eur",
                "2025-03-01,checkout,Shop,260,250,10,2.80",
                "2025-03-02,'=cmd|x,Unassigned,169,166,3,1.75",
                "2025-03-02,checkout,Shop,284,283,1,2.86",
                "2025-03-04,checkout,Shop,2,2,0,0.02",
            ],
        ),
        (
            "tag",
            [
                f"custom_tag,team,{HEADER.removeprefix('custom_tag,')},usage_cost_eur",
                "checkout,Shop,546,535,11,5.68",
                "'=cmd|x,Unassigned,169,166,3,1.75",
            ],
        ),
    ],
)
def test_tag_exports_with_cost_at_list_prices_and_each_tags_team(
    served_org, tmp_path, grouping, expected
):
    (tmp_path / "pricing.toml").write_text(TAG_PRICES)
    (tmp_path / "teams.toml").write_text(TAG_TEAMS)
    money = ["--pricing", str(tmp_path / "pricing.toml"), "--teams", str(tmp_path / "teams.toml")]
    args = ["--source", "tags", "--group-by", grouping, "--with-cost", *money]
    assert written(served_org, tmp_path / "tags.csv", *args) == csv_file(expected)


def test_language_pairs_carry_no_cost(served_org, tmp_path):
    (tmp_path / "pricing.toml").write_text(TAG_PRICES)
    args = [
        "--source",
        "language-pairs",
        "--with-cost",
        "--pricing",
        str(tmp_path / "pricing.toml"),
    ]
    result = export(served_org, *args, "-o", str(tmp_path / "pairs.csv"))
    assert result.exit_code == 2
    assert "--with-cost goes with --source usage or tags" in result.stderr
