"""Speech-to-text in milliseconds, as other revisions of the interface give it, read as minutes
on every analytics path of the client: over HTTP from an emulator that sends that form."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pandas as pd
import pytest
from support.builders import asgi_client
from support.orgfiles import SPLIT_PAIRS, org_key, org_usage, organization
from support.servers import FIXED_TODAY, file_app

from analytics.service.client import ServiceClient
from analytics.usage.pipeline import fetch_pairs, fetch_usage
from emulator import mask_key

pytestmark = pytest.mark.usefixtures("instant_retries")

ADMIN, WEB = "speech-admin-0001-aaaa:adm", "speech-plain-0002-bbbb"
A, W = mask_key(ADMIN), mask_key(WEB)
# The admin key's speech-to-text goes to its pair en→en; the website has no pairs: "-" → "-".
ORG = organization(
    org_key(ADMIN, "Admin", f"pairs = {SPLIT_PAIRS}", admin=True),
    org_key(WEB, "Website"),
    org_usage(ADMIN, "2025-03-01", text=10, stt=1.5),
    org_usage(WEB, "2025-03-01", stt=0.75),
    org_usage(WEB, "2025-03-02", text=5, stt=2.25),
)
FIRST, LAST = dt.date(2025, 3, 1), dt.date(2025, 3, 2)


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> Iterator[ServiceClient]:
    """The client of an emulator of ORG whose analytics give speech-to-text in milliseconds."""
    folder = tmp_path_factory.mktemp("org")
    app = file_app(folder, ORG, today=FIXED_TODAY, speech_to_text_unit="milliseconds")
    service, _ = asgi_client(app, ADMIN)
    with service:
        yield service
    app.state.emulator.store.close()


def speech(frame: pd.DataFrame, *texts: str) -> list[tuple[object, ...]]:
    """Each row of `frame` as its day, its `texts` columns and its speech-to-text minutes."""
    days = frame["usage_date"].dt.strftime("%Y-%m-%d")
    named = (frame[column].astype(str) for column in texts)
    return list(zip(days, *named, frame["speech_to_text_minutes"], strict=True))


def test_the_key_day_frame_reads_minutes(client):
    usage = fetch_usage(client, FIRST, LAST, today=FIXED_TODAY)
    assert speech(usage.frame, "api_key") == [
        ("2025-03-01", A, 1.5),
        ("2025-03-01", W, 0.75),
        ("2025-03-02", W, 2.25),
    ]
    assert usage.mismatches == []  # the total, in milliseconds too, reconciles


def test_the_usage_by_key_and_its_total_read_minutes(client):
    report = client.usage_report(FIRST, LAST + dt.timedelta(days=1), "key")
    assert {row.api_key: row.usage.speech_to_text_minutes for row in report.key_usages} == {
        A: 1.5,
        W: 3.0,
    }
    assert report.total_usage.speech_to_text_minutes == 4.5


def test_the_language_pairs_read_minutes(client):
    frame = fetch_pairs(client, FIRST, LAST, today=FIXED_TODAY).frame
    assert speech(frame, "source_language", "target_language") == [
        ("2025-03-01", "-", "-", 0.75),
        ("2025-03-01", "en", "de", 0.0),
        ("2025-03-01", "en", "en", 1.5),
        ("2025-03-01", "en", "ja", 0.0),
        ("2025-03-02", "-", "-", 2.25),
    ]
