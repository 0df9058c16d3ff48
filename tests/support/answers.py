"""What an in-process emulator app answers to one request, and the checks of an answer that
several operations share (their refusals, their window limit)."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from support.servers import client_for

ANALYTICS = "/v2/admin/analytics"


async def ask(
    app: FastAPI, key: str | None, path: str, method: str = "GET", **request: object
) -> httpx.Response:
    """`app`'s answer to one request with `key` (None: no Authorization header); `request`
    is httpx's (params, json, data, content, headers)."""
    async with client_for(app, key) as client:
        return await client.request(method, path, **request)  # type: ignore[arg-type]


async def answer_of(app: FastAPI, key: str | None, path: str, **params: str) -> dict:
    """The body of `app`'s answer to GET `path` with `key`: it must be a 200 with a trace id."""
    response = await ask(app, key, path, params=params)
    assert response.status_code == 200, response.text
    assert response.headers["X-Trace-ID"]
    return response.json()


async def book_translation(app: FastAPI, key: str, text: str) -> None:
    """A text translation of `text` into English by `key`, booked today: the ledger grows by
    its characters, which the tests then look for in the reports."""
    body = {"text": [text], "target_lang": "EN-GB"}
    booked = await ask(app, key, "/v2/translate", "POST", json=body)
    assert booked.status_code == 200, booked.text


def assert_refused(
    response: httpx.Response, status: int, code: str, message: str | None = None
) -> None:
    """An error answer as the service gives it: the status, the machine-readable code (and,
    when given, exactly that message and nothing else in the body), and a trace id for the
    caller to quote."""
    assert response.status_code == status
    if message is None:
        assert response.json()["code"] == code
    else:
        assert response.json() == {"message": message, "code": code}
    assert response.headers["X-Trace-ID"]


async def assert_window_limit(
    app: FastAPI, key: str, path: str, start: str, last: str, beyond: str, **params: str
) -> None:
    """`path` answers the window from `start` to `last` (366 days) and refuses the one to
    `beyond` with the very answer the analytics operation gives: every report keeps the one
    limit. `params` go with both requests of `path`."""
    accepted = await ask(app, key, path, params={"start_date": start, "end_date": last, **params})
    refused = await ask(app, key, path, params={"start_date": start, "end_date": beyond, **params})
    analytics = await ask(app, key, ANALYTICS, params={"start_date": start, "end_date": beyond})
    assert accepted.status_code == 200
    assert refused.status_code == 400
    assert refused.json() == analytics.json()
    assert refused.json()["message"] == "Bad request. Reason: Date range cannot exceed 366 days"
    assert refused.headers["X-Trace-ID"]
