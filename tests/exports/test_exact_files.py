"""Exact numbers in files: sums of minutes carry binary-float noise (0.1 + 0.1 + 0.1 is
0.30000000000000004), and finance imports the files. Every format writes the decimal the page
shows, at the service's six decimals. The expected figures are worked out by hand from the
organization file."""

from __future__ import annotations

import pandas as pd
import pytest
from support.builders import csv_file, export_file
from support.orgfiles import org_key, org_usage, organization

pytestmark = pytest.mark.usefixtures("instant_retries")

ADMIN, SPEECH = "exact-admin-0001-aaaa:adm", "exact-speech-0002-bbbb"
ORG = organization(
    org_key(ADMIN, "Admin", admin=True),
    org_key(SPEECH, "Speech"),
    org_usage(SPEECH, "2025-03-01", text=1, stt=0.1, sts=0.7),
    org_usage(SPEECH, "2025-03-02", text=1, stt=0.1, sts=0.1),
    org_usage(SPEECH, "2025-03-03", text=1, stt=0.1, sts=0.2),
    org_usage(ADMIN, "2025-03-03", text=2, stt=0.2),
)
RANGE = ["--start", "2025-03-01", "--end", "2025-03-03"]
HEADER = (
    "total_characters,text_translation_characters,document_translation_characters,"
    "text_improvement_characters,speech_to_text_minutes,speech_to_speech_minutes"
)


def test_summed_minutes_are_written_as_the_decimals_they_are(served_org, tmp_path):
    by_key = export_file(served_org, ADMIN, tmp_path / "k.csv", *RANGE, "--group-by", "key")
    assert by_key == csv_file(
        [
            f"api_key,api_key_label,{HEADER}",
            "exac****bbbb,Speech,3,3,0,0,0.3,1.0",
            "exac****:adm,Admin,2,2,0,0,0.2,0.0",
        ]
    )
    total = export_file(served_org, ADMIN, tmp_path / "t.csv", *RANGE, "--group-by", "none")
    assert total == csv_file(
        [f"start_date,end_date,{HEADER}", "2025-03-01,2025-03-03,5,5,0,0,0.5,1.0"]
    )


@pytest.mark.parametrize("suffix", ["parquet", "xlsx"])
def test_every_format_holds_the_same_exact_values(served_org, tmp_path, suffix):
    out = tmp_path / f"k.{suffix}"
    export_file(served_org, ADMIN, out, *RANGE, "--group-by", "key")
    table = pd.read_parquet(out) if suffix == "parquet" else pd.read_excel(out)
    assert table["speech_to_text_minutes"].tolist() == [0.3, 0.2]
    assert table["speech_to_speech_minutes"].tolist() == [1.0, 0.0]
