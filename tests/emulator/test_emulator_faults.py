"""Fault injection, the OpenAPI description and malformed-input robustness."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest
from support.servers import auth, small_config

from emulator import create_app

ANALYTICS = "/v2/admin/analytics"
WINDOW = {"start_date": "2025-05-01", "end_date": "2025-05-08"}


async def test_forced_429_carries_retry_after(emulator_app, emulator_client):
    faults = emulator_app.state.emulator.faults
    faults.fault_429_rate, faults.retry_after_s = 1.0, 7
    response = await emulator_client.get(ANALYTICS, params=WINDOW)
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "7"
    assert response.json() == {
        "message": "Too many requests: rate limit exceeded, retry after the given delay.",
        "code": "rate_limited",
    }
    assert response.headers["X-Trace-ID"]
    assert (await emulator_client.get("/healthz")).status_code == 200
    faults.fault_429_rate = 0.0
    assert (await emulator_client.get(ANALYTICS, params=WINDOW)).status_code == 200


async def test_forced_503(emulator_app, emulator_client):
    emulator_app.state.emulator.faults.fault_503_rate = 1.0
    for path in ("/v3/languages?resource=glossary", "/v2/languages"):
        response = await emulator_client.get(path)
        assert response.status_code == 503
        assert response.json() == {
            "message": "Service temporarily unavailable, please retry.",
            "code": "service_unavailable",
        }
    for exempt in ("/healthz", "/openapi.json", "/docs"):
        assert (await emulator_client.get(exempt)).status_code == 200


async def test_partial_rates_mix_outcomes(emulator_app, emulator_client):
    faults = emulator_app.state.emulator.faults
    faults.fault_429_rate, faults.fault_503_rate = 0.3, 0.3
    statuses = [(await emulator_client.get("/v2/languages")).status_code for _ in range(60)]
    assert {200, 429, 503} <= set(statuses)


def test_config_sets_the_initial_faults():
    app = create_app(small_config(latency_ms=5, fault_429_rate=0.25, retry_after_s=3))
    faults = app.state.emulator.faults
    assert (faults.latency_ms, faults.fault_429_rate, faults.retry_after_s) == (5, 0.25, 3)


async def test_latency_still_answers(emulator_app, emulator_client):
    emulator_app.state.emulator.faults.latency_ms = 20
    assert (await emulator_client.get(ANALYTICS, params=WINDOW)).status_code == 200


async def test_openapi_describes_every_operation(emulator_client):
    response = await emulator_client.get("/openapi.json")
    assert response.status_code == 200
    spec = response.json()
    assert spec["info"]["version"] == "3.12.0"
    paths = spec["paths"]
    assert set(paths["/v2/admin/analytics"]) == {"get"}
    assert set(paths["/v3/languages"]) == {"get"}
    assert set(paths["/v2/languages"]) == {"get", "post"}
    detect = paths["/v3/detect/language"]["post"]
    assert set(detect["requestBody"]["content"]) == {
        "application/json",
        "application/x-www-form-urlencoded",
    }
    assert {"200", "400", "403", "415", "429", "503"} <= set(detect["responses"])
    upload = paths["/v2/document"]["post"]
    assert "multipart/form-data" in upload["requestBody"]["content"]
    assert "413" in upload["responses"]
    params = {p["name"] for p in paths["/v2/admin/analytics"]["get"]["parameters"]}
    assert {"start_date", "end_date", "group_by"} <= params


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        (
            "POST",
            "/v3/detect/language",
            {"content": b"\xff\xfe", "headers": {"Content-Type": "application/json"}},
        ),
        (
            "POST",
            "/v3/detect/language",
            {
                "content": b"other=%ZZ",
                "headers": {"Content-Type": "application/x-www-form-urlencoded"},
            },
        ),
        (
            "POST",
            "/v2/translate",
            {"content": b"null", "headers": {"Content-Type": "application/json"}},
        ),
        (
            "POST",
            "/v2/document",
            {"content": b"junk", "headers": {"Content-Type": "multipart/form-data"}},
        ),
        (
            "POST",
            "/v2/document",
            {"content": b"junk", "headers": {"Content-Type": "multipart/form-data; boundary=zz"}},
        ),
        (
            "GET",
            ANALYTICS + "?start_date=2025-05-01&end_date=2025-05-08&group_by=key&group_by=x",
            {},
        ),
        ("GET", ANALYTICS + "?start_date=%00&end_date=%FF", {}),
        ("DELETE", ANALYTICS, {}),
    ],
)
async def test_malformed_input_is_a_4xx_with_message(emulator_client, method, path, kwargs):
    response = await emulator_client.request(method, path, **kwargs)
    assert 400 <= response.status_code < 500
    assert response.json()["message"]


def test_process_faults_are_off_and_trace_ids_unique(emulator_process):
    headers = auth(emulator_process.admin_key)
    url = f"{emulator_process.base_url}/v2/languages"
    responses = [httpx.get(url, headers=headers) for _ in range(5)]
    assert [r.status_code for r in responses] == [200] * 5
    assert len({r.headers["X-Trace-ID"] for r in responses}) == 5


def test_process_analytics_windows(emulator_process):
    headers = auth(emulator_process.admin_key)
    base = emulator_process.base_url
    # A week well inside the process's three years of history, whatever the date.
    first = emulator_process.today - dt.timedelta(days=400)
    week = httpx.get(
        f"{base}{ANALYTICS}",
        params={
            "start_date": first.isoformat(),
            "end_date": (first + dt.timedelta(days=7)).isoformat(),
            "group_by": "key_and_day",
        },
        headers=headers,
    ).json()["usage_report"]
    days = {row["usage_date"] for row in week["key_and_day_usages"]}
    assert days == {f"{first + dt.timedelta(days=d)}T00:00:00Z" for d in range(7)}
    too_long = httpx.get(
        f"{base}{ANALYTICS}",
        params={"start_date": "2024-01-01", "end_date": "2025-01-02"},
        headers=headers,
    )
    assert too_long.status_code == 400
    assert "366 days" in too_long.json()["message"]
