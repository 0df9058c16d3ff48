"""The analytics operation against hand-written and synthetic ledgers."""

from __future__ import annotations

import datetime as dt
import re
from contextlib import asynccontextmanager

import httpx
import pytest
from support.servers import FIXED_TODAY, auth, emulator_server, small_config

from emulator import EmulatorConfig, create_app, mask_key
from emulator.synthetic import SIGNATURE_KEYS, generate

ANALYTICS = "/v2/admin/analytics"
MASKED = re.compile(r"^.{4}\*{4}.{4}$")
ORG = """
[[keys]]
key = "admin-secret-0001-aaaa:adm"
label = "Admin"
admin = true
detect_beta = true

[[keys]]
key = "plain-secret-0002-bbbb"
label = "Website"

[[usage]]
key = "admin-secret-0001-aaaa:adm"
date = "2025-03-01"
text_translation_characters = 100
document_translation_characters = 10
text_improvement_characters = 1
speech_to_text_minutes = 0.5
speech_to_speech_minutes = 2.25

[[usage]]
key = "plain-secret-0002-bbbb"
date = "2025-03-01"
text_translation_characters = 200

[[usage]]
key = "plain-secret-0002-bbbb"
date = "2025-03-02"
text_translation_characters = 2000
speech_to_text_minutes = 1.25

[[usage]]
key = "admin-secret-0001-aaaa:adm"
date = "2025-03-03"
text_improvement_characters = 30000
"""


@asynccontextmanager
async def client_for(path, **settings):
    app = create_app(EmulatorConfig(org_file=path, today=dt.date(2025, 3, 10), **settings))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://e", headers=auth("admin-secret-0001-aaaa:adm")
    ) as client:
        yield client
    app.state.emulator.store.close()


@pytest.fixture
def org_path(tmp_path):
    path = tmp_path / "org.toml"
    path.write_text(ORG)
    return path


@pytest.fixture
async def org_client(org_path):
    async with client_for(org_path) as client:
        yield client


@pytest.fixture
async def inclusive_client(org_path):
    async with client_for(org_path, end_date_reading="inclusive") as client:
        yield client


@pytest.fixture
async def milliseconds_client(org_path):
    async with client_for(org_path, speech_to_text_unit="milliseconds") as client:
        yield client


async def report(client, start, end, group_by=None):
    params = {"start_date": start, "end_date": end}
    if group_by is not None:
        params["group_by"] = group_by
    response = await client.get(ANALYTICS, params=params)
    assert response.status_code == 200, response.text
    return response.json()["usage_report"]


async def test_range_is_half_open_over_day_midnights(org_client):
    two_days = await report(org_client, "2025-03-01", "2025-03-03", "key_and_day")
    days = {row["usage_date"] for row in two_days["key_and_day_usages"]}
    assert days == {"2025-03-01T00:00:00Z", "2025-03-02T00:00:00Z"}
    assert two_days["total_usage"]["text_translation_characters"] == 2300


async def test_datetime_bounds_include_days_whose_midnight_is_inside(org_client):
    late_start = await report(
        org_client, "2025-03-01T12:00:00", "2025-03-03T00:00:01", "key_and_day"
    )
    days = [row["usage_date"] for row in late_start["key_and_day_usages"]]
    assert days == ["2025-03-02T00:00:00Z", "2025-03-03T00:00:00Z"]
    assert late_start["start_date"] == "2025-03-01T12:00:00"
    assert late_start["end_date"] == "2025-03-03T00:00:01"


async def test_both_date_formats_render_as_datetime(org_client):
    body = await report(org_client, "2025-03-01", "2025-03-05T06:30:00")
    assert body["start_date"] == "2025-03-01T00:00:00"
    assert body["end_date"] == "2025-03-05T06:30:00"


async def test_breakdown_figures_and_total_characters(org_client):
    total = (await report(org_client, "2025-03-01", "2025-03-04"))["total_usage"]
    assert total == {
        "total_characters": 100 + 10 + 1 + 200 + 2000 + 30000,
        "text_translation_characters": 2300,
        "document_translation_characters": 10,
        "text_improvement_characters": 30001,
        "speech_to_text_minutes": 1.75,
        "speech_to_speech_minutes": 2.25,  # counted neither as characters nor as speech-to-text
    }


@pytest.mark.parametrize("group_by", [None, ""])
async def test_no_grouping_has_no_group_by_and_no_arrays(org_client, group_by):
    body = await report(org_client, "2025-03-01", "2025-03-04", group_by)
    assert set(body) == {"total_usage", "start_date", "end_date"}


async def test_group_by_key_fields(org_client):
    body = await report(org_client, "2025-03-01", "2025-03-04", "key")
    assert body["group_by"] == "key"
    assert "key_and_day_usages" not in body
    rows = {row["api_key"]: row for row in body["key_usages"]}
    assert set(rows) == {mask_key("admin-secret-0001-aaaa:adm"), mask_key("plain-secret-0002-bbbb")}
    website = rows[mask_key("plain-secret-0002-bbbb")]
    assert website["api_key_label"] == "Website"
    assert website["usage"]["text_translation_characters"] == 2200
    assert website["usage"]["speech_to_text_minutes"] == 1.25
    assert website["usage"]["speech_to_speech_minutes"] == 0
    assert rows[mask_key("admin-secret-0001-aaaa:adm")]["usage"]["speech_to_speech_minutes"] == 2.25
    assert all(set(row) == {"api_key", "api_key_label", "usage"} for row in body["key_usages"])


async def test_group_by_key_and_day_fields_and_order(org_client):
    body = await report(org_client, "2025-03-01", "2025-03-04", "key_and_day")
    assert body["group_by"] == "key_and_day"
    assert "key_usages" not in body
    rows = body["key_and_day_usages"]
    assert len(rows) == 4
    assert all(set(row) == {"api_key", "api_key_label", "usage", "usage_date"} for row in rows)
    assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2}T00:00:00Z", row["usage_date"]) for row in rows)
    order = [(row["usage_date"], row["api_key"]) for row in rows]
    assert order == sorted(order)


async def test_full_keys_never_appear(org_client):
    response = await org_client.get(
        ANALYTICS, params={"start_date": "2025-03-01", "end_date": "2025-03-04", "group_by": "key"}
    )
    assert "admin-secret-0001-aaaa:adm" not in response.text
    assert "plain-secret-0002-bbbb" not in response.text
    assert all(
        MASKED.match(row["api_key"]) for row in response.json()["usage_report"]["key_usages"]
    )


async def test_366_days_accepted_367_rejected(org_client):
    ok = await org_client.get(
        ANALYTICS, params={"start_date": "2024-01-01", "end_date": "2025-01-01"}
    )
    assert ok.status_code == 200
    too_long = await org_client.get(
        ANALYTICS, params={"start_date": "2024-01-01", "end_date": "2025-01-02"}
    )
    assert too_long.status_code == 400
    assert too_long.json() == {
        "message": "Bad request. Reason: Date range cannot exceed 366 days",
        "code": "bad_request",
    }
    one_second_over = await org_client.get(
        ANALYTICS, params={"start_date": "2024-01-01", "end_date": "2025-01-01T00:00:01"}
    )
    assert one_second_over.status_code == 400


async def test_unsupported_group_by_lists_allowed_values(org_client):
    response = await org_client.get(
        ANALYTICS, params={"start_date": "2025-03-01", "end_date": "2025-03-04", "group_by": "day"}
    )
    assert response.status_code == 400
    assert response.json()["message"] == (
        "Value for 'group_by' not supported. Allowed: '', 'key', 'key_and_day'."
    )


@pytest.mark.parametrize(
    "params",
    [
        {"start_date": "2025-03-01"},
        {"end_date": "2025-03-01"},
        {},
        {"start_date": "2025-13-01", "end_date": "2025-03-04"},
        {"start_date": "01/03/2025", "end_date": "2025-03-04"},
        {"start_date": "2025-03-01T25:00:00", "end_date": "2025-03-04"},
        {"start_date": "2025-03-01 10:00:00", "end_date": "2025-03-04"},
        {"start_date": "", "end_date": "2025-03-04"},
        {"start_date": "2025-03-04", "end_date": "2025-03-04"},
        {"start_date": "2025-03-05", "end_date": "2025-03-04"},
    ],
)
async def test_bad_dates_are_400_with_message(org_client, params):
    response = await org_client.get(ANALYTICS, params=params)
    assert response.status_code == 400
    assert response.json()["message"].startswith("Bad request")


async def test_missing_parameter_is_named(org_client):
    response = await org_client.get(ANALYTICS, params={"start_date": "2025-03-01"})
    assert "end_date is missing" in response.json()["message"]


# --- the inclusive end-date reading -------------------------------------------------------


async def test_inclusive_reading_includes_the_end_day(inclusive_client):
    body = await report(inclusive_client, "2025-03-01", "2025-03-02", "key_and_day")
    days = sorted({row["usage_date"] for row in body["key_and_day_usages"]})
    assert days == ["2025-03-01T00:00:00Z", "2025-03-02T00:00:00Z"]
    assert (body["start_date"], body["end_date"]) == ("2025-03-01T00:00:00", "2025-03-02T00:00:00")
    one_day = await report(inclusive_client, "2025-03-03", "2025-03-03", "key_and_day")
    assert [row["usage_date"] for row in one_day["key_and_day_usages"]] == ["2025-03-03T00:00:00Z"]


async def test_inclusive_reading_counts_covered_days_against_the_limit(inclusive_client):
    accepted = await inclusive_client.get(
        ANALYTICS, params={"start_date": "2024-03-01", "end_date": "2025-03-01"}
    )  # 2024-03-01 + 365 days: 366 covered days
    assert accepted.status_code == 200
    assert accepted.json()["usage_report"]["total_usage"]["total_characters"] == 311
    refused = await inclusive_client.get(
        ANALYTICS, params={"start_date": "2024-03-01", "end_date": "2025-03-02"}
    )  # 367 covered days
    assert refused.status_code == 400
    assert refused.json()["message"] == "Bad request. Reason: Date range cannot exceed 366 days"


async def test_inclusive_reading_leaves_instants_and_the_default_alone(
    inclusive_client, org_client
):
    instant = await report(inclusive_client, "2025-03-01", "2025-03-02T00:00:00", "key_and_day")
    assert {row["usage_date"] for row in instant["key_and_day_usages"]} == {"2025-03-01T00:00:00Z"}
    exclusive = await report(org_client, "2025-03-01", "2025-03-02", "key_and_day")
    assert exclusive == instant
    same_day = await org_client.get(
        ANALYTICS, params={"start_date": "2025-03-01", "end_date": "2025-03-01"}
    )
    assert same_day.status_code == 400


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        (
            "end_date_reading",
            "end_date_reading must be one of exclusive, inclusive, not 'sideways'",
        ),
        (
            "speech_to_text_unit",
            "speech_to_text_unit must be one of minutes, milliseconds, not 'sideways'",
        ),
    ],
)
def test_unknown_setting_values_are_refused(setting, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        EmulatorConfig(**{setting: "sideways"})


def test_command_line_reads_end_dates_inclusively_and_speech_in_milliseconds(org_path):
    with emulator_server(
        "--org",
        str(org_path),
        "--end-date-reading",
        "inclusive",
        "--speech-to-text-unit",
        "milliseconds",
        today=dt.date(2025, 3, 10),
    ) as server:
        response = httpx.get(
            f"{server.base_url}{ANALYTICS}",
            params={"start_date": "2025-03-02", "end_date": "2025-03-03"},
            headers=auth("admin-secret-0001-aaaa:adm"),
        )
    assert response.status_code == 200
    total = response.json()["usage_report"]["total_usage"]
    assert total["text_improvement_characters"] == 30000  # the 3rd, the range's last day
    assert total["speech_to_text_milliseconds"] == 75_000  # the 2nd's 1.25 minutes
    assert "speech_to_text_minutes" not in total


async def test_speech_to_text_in_milliseconds_when_asked_for(milliseconds_client):
    body = await report(milliseconds_client, "2025-03-01", "2025-03-04", "key_and_day")
    speech = [
        (row["usage_date"][:10], row["api_key_label"], row["usage"]["speech_to_text_milliseconds"])
        for row in body["key_and_day_usages"]
    ]
    assert speech == [
        ("2025-03-01", "Admin", 30_000),
        ("2025-03-01", "Website", 0),
        ("2025-03-02", "Website", 75_000),
        ("2025-03-03", "Admin", 0),
    ]
    assert body["total_usage"]["speech_to_text_milliseconds"] == 105_000
    breakdowns = [body["total_usage"], *(row["usage"] for row in body["key_and_day_usages"])]
    assert not any("speech_to_text_minutes" in usage for usage in breakdowns)
    assert body["total_usage"]["speech_to_speech_minutes"] == 2.25  # interpreting stays minutes


# --- synthetic organization ------------------------------------------------------------


async def test_totals_reconcile_over_keys_and_key_days(emulator_client):
    window = {"start_date": "2025-04-02", "end_date": "2025-06-01"}
    total = (await emulator_client.get(ANALYTICS, params=window)).json()["usage_report"]
    by_key = (await emulator_client.get(ANALYTICS, params={**window, "group_by": "key"})).json()
    by_day = (
        await emulator_client.get(ANALYTICS, params={**window, "group_by": "key_and_day"})
    ).json()
    metrics = total["total_usage"].keys()
    for metric in metrics:
        over_keys = sum(r["usage"][metric] for r in by_key["usage_report"]["key_usages"])
        over_days = sum(r["usage"][metric] for r in by_day["usage_report"]["key_and_day_usages"])
        assert over_keys == pytest.approx(total["total_usage"][metric])
        assert over_days == pytest.approx(total["total_usage"][metric])
    assert total["total_usage"]["total_characters"] > 0


async def test_figures_match_the_generated_organization(emulator_client):
    org = generate(7, 8, 60, FIXED_TODAY)
    in_window = [row for row in org.usage if "2025-05-01" <= row[0] < "2025-05-15"]
    body = (
        await emulator_client.get(
            ANALYTICS, params={"start_date": "2025-05-01", "end_date": "2025-05-15"}
        )
    ).json()["usage_report"]["total_usage"]
    assert body["text_translation_characters"] == sum(row[3] for row in in_window)
    assert body["document_translation_characters"] == sum(row[4] for row in in_window)
    assert body["text_improvement_characters"] == sum(row[5] for row in in_window)
    assert body["speech_to_text_minutes"] == pytest.approx(sum(row[6] for row in in_window))
    assert body["speech_to_speech_minutes"] == pytest.approx(sum(row[7] for row in in_window))


async def test_labels_follow_history(emulator_app, emulator_client):
    relabelled = emulator_app.state.emulator.keys[2]
    old_label = SIGNATURE_KEYS[2][0]
    assert relabelled.label != old_label
    body = (
        await emulator_client.get(
            ANALYTICS,
            params={
                "start_date": "2025-04-02",
                "end_date": "2025-06-01",
                "group_by": "key_and_day",
            },
        )
    ).json()["usage_report"]["key_and_day_usages"]
    labels = [r["api_key_label"] for r in body if r["api_key"] == relabelled.masked]
    assert old_label in labels and relabelled.label in labels
    first_new = labels.index(relabelled.label)
    assert all(label == relabelled.label for label in labels[first_new:])

    async def key_label(start, end):
        rows = (
            await emulator_client.get(
                ANALYTICS, params={"start_date": start, "end_date": end, "group_by": "key"}
            )
        ).json()["usage_report"]["key_usages"]
        return next(r["api_key_label"] for r in rows if r["api_key"] == relabelled.masked)

    assert await key_label("2025-04-02", "2025-06-01") == relabelled.label
    assert await key_label("2025-04-02", "2025-04-20") == old_label


def test_ledger_interface(emulator_app):
    emu = emulator_app.state.emulator
    rows = emu.ledger(dt.date(2025, 5, 1), dt.date(2025, 5, 31))
    assert rows
    assert rows == sorted(rows, key=lambda r: (r.usage_date, r.api_key))
    assert {r.usage_date for r in rows} <= {dt.date(2025, 5, d) for d in range(1, 32)}
    assert dt.date(2025, 5, 31) in {r.usage_date for r in rows}
    assert all(MASKED.match(r.api_key) for r in rows)
    assert isinstance(rows[0].speech_to_text_minutes, float)


def test_emulator_interface_shape(emulator_app):
    emu = emulator_app.state.emulator
    admin = next(k for k in emu.keys if k.key == emu.admin_key)
    assert admin.admin and admin.detect_beta
    assert any(not k.admin for k in emu.keys)
    assert any(not k.detect_beta for k in emu.keys)
    assert emu.admin_key not in repr(emu.keys)


def test_mask_key_shape():
    assert mask_key("abcdefghijklmnopwxyz") == "abcd****wxyz"
    assert "secret" not in mask_key("secret")


async def synthetic_key_days(keys: int, days: int, start: str, end: str) -> httpx.Response:
    """The key_and_day answer of a fresh synthetic organization of `keys` keys over `days`."""
    app = create_app(small_config(keys=keys, days=days))
    key = app.state.emulator.admin_key
    transport = httpx.ASGITransport(app=app)
    params = {"start_date": start, "end_date": end, "group_by": "key_and_day"}
    async with httpx.AsyncClient(transport=transport, base_url="http://e", headers=auth(key)) as c:
        response = await c.get(ANALYTICS, params=params)
    app.state.emulator.store.close()
    return response


async def test_key_and_day_rows_are_the_generated_ones_across_chunks(monkeypatch):
    """The body is serialized a chunk of rows at a time: with chunks of 7 rows, every row is
    still the generated organization's, in order, with commas between chunks."""
    monkeypatch.setattr("emulator.store.usage_ledger.CHUNK_ROWS", 7)
    response = await synthetic_key_days(12, 40, "2025-05-01", "2025-06-01")
    org = generate(7, 12, 40, FIXED_TODAY)  # the same organization, not the store
    masked = [spec.masked for spec in org.keys]
    expected = [
        {
            "api_key": masked[k],
            "api_key_label": label,
            "usage": {
                "total_characters": text + document + improvement,
                "text_translation_characters": text,
                "document_translation_characters": document,
                "text_improvement_characters": improvement,
                "speech_to_text_minutes": round(minutes, 6),
                "speech_to_speech_minutes": round(interpreted, 6),
            },
            "usage_date": f"{day}T00:00:00Z",
        }
        for day, k, label, text, document, improvement, minutes, interpreted in sorted(
            org.usage, key=lambda row: (row[0], masked[row[1]])
        )
        if day >= "2025-05-01"
    ]
    rows = response.json()["usage_report"]["key_and_day_usages"]
    assert len(expected) > 3 * 7
    assert rows == expected


async def test_large_window_answers():
    response = await synthetic_key_days(40, 400, "2024-05-31", "2025-06-01")
    assert response.status_code == 200
    rows = response.json()["usage_report"]["key_and_day_usages"]
    generated = generate(7, 40, 400, FIXED_TODAY).usage  # the same organization, not the store
    assert len(rows) == sum("2024-05-31" <= row[0] <= "2025-05-31" for row in generated)
    assert rows[0]["usage_date"] == "2024-05-31T00:00:00Z"
    assert rows[-1]["usage_date"] == "2025-05-31T00:00:00Z"
