"""Auth, trace ids, health, error shapes and the process fixture."""

from __future__ import annotations

import asyncio
import re
import threading

import httpx
import pytest
from support.servers import auth, small_config

from emulator import create_app

ANALYTICS = "/v2/admin/analytics"
WINDOW = {"start_date": "2025-05-01", "end_date": "2025-05-08"}


async def test_healthz_needs_no_auth(emulator_app):
    transport = httpx.ASGITransport(app=emulator_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://e") as client:
        response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.headers["X-Trace-ID"]


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Service-Auth-Key not-a-real-key"},
        {"Authorization": "Bearer something"},
        {"Authorization": "Service-Auth-Key "},
    ],
)
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", ANALYTICS + "?start_date=2025-05-01&end_date=2025-05-08"),
        ("GET", "/v2/usage"),
        ("GET", "/v2/admin/analytics/custom-tags?start_date=2025-05-01&end_date=2025-05-08"),
        ("GET", "/v2/admin/analytics/language-pairs?start_date=2025-05-01&end_date=2025-05-08"),
        ("POST", "/v3/detect/language"),
        ("POST", "/v2/translate"),
        ("POST", "/v2/document"),
        ("GET", "/v3/languages?resource=translate_text"),
        ("GET", "/v2/languages"),
        ("POST", "/v2/languages"),
    ],
)
async def test_every_operation_rejects_missing_or_unknown_keys(emulator_app, headers, method, path):
    transport = httpx.ASGITransport(app=emulator_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://e") as client:
        response = await client.request(method, path, headers=headers)
    assert response.status_code == 403
    assert response.json() == {
        "message": "Authorization failed: supply a valid key in the Authorization header.",
        "code": "authorization_failed",
    }
    assert response.headers["X-Trace-ID"]


async def test_non_admin_key_gets_403_on_analytics(emulator_app, emulator_client):
    plain = next(k for k in emulator_app.state.emulator.keys if not k.admin)
    response = await emulator_client.get(ANALYTICS, params=WINDOW, headers=auth(plain.key))
    assert response.status_code == 403
    assert response.json() == {
        "message": "Forbidden: usage analytics need an administrator key.",
        "code": "admin_required",
    }


async def test_admin_key_reads_analytics(emulator_client):
    response = await emulator_client.get(ANALYTICS, params=WINDOW)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"


async def test_trace_ids_are_unique_on_success_errors_and_404(emulator_client):
    responses = [
        await emulator_client.get(ANALYTICS, params=WINDOW),
        await emulator_client.get(ANALYTICS, params=WINDOW),
        await emulator_client.get(ANALYTICS, params={"start_date": "x", "end_date": "y"}),
        await emulator_client.get("/no/such/path"),
        await emulator_client.get("/healthz"),
    ]
    ids = [r.headers["X-Trace-ID"] for r in responses]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[0-9a-f]{32}", trace_id) for trace_id in ids)


async def test_unknown_path_is_json_404(emulator_client):
    response = await emulator_client.get("/v9/nothing")
    assert response.status_code == 404
    assert response.json() == {"message": "Not found: no such resource.", "code": "not_found"}


async def test_auth_scheme_is_configurable():
    app = create_app(small_config(auth_scheme="Other-Auth-Key"))
    key = app.state.emulator.admin_key
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://e") as client:
        old = await client.get(ANALYTICS, params=WINDOW, headers=auth(key))
        new = await client.get(
            ANALYTICS, params=WINDOW, headers={"Authorization": f"Other-Auth-Key {key}"}
        )
    assert old.status_code == 403
    assert new.status_code == 200


def test_process_serves_health_and_auth(emulator_process):
    base = emulator_process.base_url
    assert base.startswith("http://127.0.0.1:")
    assert httpx.get(f"{base}/healthz").status_code == 200
    denied = httpx.get(f"{base}{ANALYTICS}", params=WINDOW)
    assert denied.status_code == 403
    assert denied.json()["message"]
    allowed = httpx.get(
        f"{base}{ANALYTICS}", params=WINDOW, headers=auth(emulator_process.admin_key)
    )
    assert allowed.status_code == 200
    assert "usage_report" in allowed.json()


def test_safe_across_threads_and_successive_event_loops(emulator_app):
    """Streamlit reruns drive the in-process app from new threads and new event loops."""
    key = emulator_app.state.emulator.admin_key
    failures: list[str] = []

    async def session() -> None:
        transport = httpx.ASGITransport(app=emulator_app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://e", headers=auth(key)
        ) as client:
            for _ in range(5):
                translated = await client.post(
                    "/v2/translate", json={"text": ["abcd"], "target_lang": "DE"}
                )
                report = await client.get(ANALYTICS, params=WINDOW | {"group_by": "key"})
                if translated.status_code != 200 or report.status_code != 200:
                    failures.append(f"{translated.status_code} {report.status_code}")

    def run() -> None:
        asyncio.run(session())
        asyncio.run(session())

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    today = emulator_app.state.emulator.today()
    [row] = emulator_app.state.emulator.ledger(today, today)
    assert row.text_translation_characters == 4 * 2 * 5 * 4
