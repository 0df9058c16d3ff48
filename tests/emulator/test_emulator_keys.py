"""The administrator API's developer keys in the emulator: the five operations as published,
the 25-active-key rule (and the places a generated organization leaves free under it),
permanent deactivation, limits refused with 456 and reported by `GET /v2/usage`, each
administrator area's own refusal of a plain key, and new keys' usage in analytics under their
current label."""

from __future__ import annotations

import datetime as dt

import pytest
from support.answers import answer_of, ask, assert_refused, book_translation
from support.orgfiles import org_key, org_usage, organization
from support.servers import file_app, small_config

from emulator import create_app

KEYS = "/v2/admin/developer-keys"
ADMIN = "keys-admin-0001-aaaa:adm"
WEB, OLD = "ab12cd34-0000-4000-8000-00000000beef", "key-old-0003-cccc:fx"
TODAY = dt.date(2025, 7, 10)
# The published example of a key, kept as the interface gives it.
PUBLISHED = {
    "key_id": "ca7d5694-96eb-4263-a9a4-7f7e4211529e:20c2abcf-4c3c-4cd6-8ae8-8bd2a7d4da38",
    "label": "developer key prod",
    "creation_time": "2025-07-08T08:15:29.362Z",
    "deactivated_time": "2025-07-09T08:15:29.362Z",
    "is_deactivated": True,
    "usage_limits": {"characters": 5000, "speech_to_text_milliseconds": 3600000},
}
ORG = organization(
    org_key(ADMIN, "Admin", admin=True),
    org_key(WEB, "Web shop", "character_limit = 100"),
    org_key(
        OLD,
        PUBLISHED["label"],
        f'key_id = "{PUBLISHED["key_id"]}"',
        f'created = "{PUBLISHED["creation_time"]}"',
        f'deactivated = "{PUBLISHED["deactivated_time"]}"',
        "character_limit = 5000",
        "speech_to_text_milliseconds_limit = 3600000",
    ),
    org_usage(WEB, "2025-07-01", text=40),  # the billing period starts on the 1st
    org_usage(WEB, "2025-06-30", text=900),  # the period before: not counted
    org_usage(OLD, "2025-07-08", text=5),
)


@pytest.fixture
def app(tmp_path):
    return file_app(tmp_path, ORG, today=TODAY)


async def keys_of(app) -> list[dict]:
    response = await ask(app, ADMIN, KEYS)
    assert response.status_code == 200 and response.headers["X-Trace-ID"]
    return response.json()


async def test_every_developer_key_is_listed_as_published_and_admin_keys_are_not(app):
    listed = await keys_of(app)
    web = listed[0] | {"key_id": "(below)"}
    assert web == {
        "key_id": "(below)",
        "label": "Web shop",
        "creation_time": "2025-06-30T00:00:00.000Z",  # no time given: its first usage day
        "deactivated_time": None,
        "is_deactivated": False,
        "usage_limits": {"characters": 100, "speech_to_text_milliseconds": None},
    }
    assert listed[1] == PUBLISHED
    assert len(listed) == 2


async def test_a_paid_key_s_id_masks_as_its_secret_does_and_reveals_no_more(app):
    """The key id of a paid-plan key starts and ends as its secret: the mask joins them."""
    key_id = (await keys_of(app))[0]["key_id"]
    first, second = key_id.split(":")
    assert (first[:4], second[-4:]) == ("ab12", "beef")
    assert WEB[4:-4] not in key_id


async def test_a_created_key_s_secret_is_given_once_and_works_at_once(app):
    created = await ask(app, ADMIN, KEYS, "POST", json={"label": "Mobile app"})
    assert created.status_code == 200 and created.headers["X-Trace-ID"]
    body = created.json()
    secret = body.pop("key")
    assert body["label"] == "Mobile app" and body["is_deactivated"] is False
    assert body["creation_time"].startswith("2025-07-10T") and body["creation_time"][-1] == "Z"
    assert body["usage_limits"] == {"characters": None, "speech_to_text_milliseconds": None}
    listed = await ask(app, ADMIN, KEYS)
    assert body in listed.json() and secret not in listed.text
    await book_translation(app, secret, "Hello from the new key")
    usage = await answer_of(app, secret, "/v2/usage")
    assert usage["api_key_character_count"] == len("Hello from the new key")


async def test_a_key_created_without_a_label_gets_the_published_default_label(app):
    for body in ({}, {"label": ""}):
        created = await ask(app, ADMIN, KEYS, "POST", json=body)
        assert created.json()["label"] == "DeepL API Key"


async def test_a_new_key_s_usage_reaches_analytics_under_its_current_label(app):
    secret = (await ask(app, ADMIN, KEYS, "POST", json={"label": "First name"})).json()
    await book_translation(app, secret["key"], "abcdefghij")
    renamed = await ask(
        app, ADMIN, f"{KEYS}/label", "PUT", json={"key_id": secret["key_id"], "label": "Renamed"}
    )
    assert renamed.json()["label"] == "Renamed"
    await book_translation(app, secret["key"], "klmno")
    report = await answer_of(
        app, ADMIN, "/v2/admin/analytics", start_date="2025-07-10", end_date="2025-07-11",
        group_by="key",
    )  # fmt: skip
    masked = f"{secret['key'][:4]}****{secret['key'][-4:]}"
    [row] = [r for r in report["usage_report"]["key_usages"] if r["api_key"] == masked]
    assert row["api_key_label"] == "Renamed"
    assert row["usage"]["text_translation_characters"] == 15


async def test_at_most_25_developer_keys_are_active_at_once(app):
    """One is active (the deactivated one does not count): 24 more can be created."""
    for n in range(24):
        assert (await ask(app, ADMIN, KEYS, "POST", json={"label": f"k{n}"})).status_code == 200
    refused = await ask(app, ADMIN, KEYS, "POST", json={"label": "one too many"})
    assert_refused(refused, 403, "too_many_keys")
    assert "at most 25" in refused.json()["message"]
    first = (await keys_of(app))[0]["key_id"]
    await ask(app, ADMIN, f"{KEYS}/deactivate", "PUT", json={"key_id": first})
    assert (await ask(app, ADMIN, KEYS, "POST", json={"label": "in its place"})).status_code == 200


async def test_a_free_plan_has_two_active_developer_keys(tmp_path):
    app = file_app(tmp_path, ORG + "\n[plan]\npro = false\n", today=TODAY)
    created = await ask(app, ADMIN, KEYS, "POST", json={"label": "second"})
    assert created.json()["key"].endswith(":fx")  # a free plan's key
    assert_refused(await ask(app, ADMIN, KEYS, "POST", json={}), 403, "too_many_keys")


async def test_deactivation_is_immediate_permanent_and_keeps_the_key_listed(app):
    key_id = (await keys_of(app))[0]["key_id"]
    await book_translation(app, WEB, "still allowed")
    first = await ask(app, ADMIN, f"{KEYS}/deactivate", "PUT", json={"key_id": key_id})
    assert first.json()["is_deactivated"] is True
    for method, path, body in (
        ("GET", "/v2/usage", None),
        ("POST", "/v2/translate", {"text": ["x"], "target_lang": "DE"}),
    ):
        assert_refused(await ask(app, WEB, path, method, json=body), 403, "authorization_failed")
    again = await ask(app, ADMIN, f"{KEYS}/deactivate", "PUT", json={"key_id": key_id})
    assert again.json() == first.json()  # not undone, not stamped again
    renamed = await ask(
        app, ADMIN, f"{KEYS}/label", "PUT", json={"key_id": key_id, "label": "Web shop (leaked)"}
    )
    assert renamed.json()["label"] == "Web shop (leaked)" and renamed.json()["is_deactivated"]


async def test_two_keys_may_share_a_label(app):
    for _ in range(2):
        await ask(app, ADMIN, KEYS, "POST", json={"label": "Shared"})
    assert [k["label"] for k in await keys_of(app)].count("Shared") == 2


async def test_only_an_active_admin_key_reaches_the_key_operations(app):
    for key in (WEB, "no-such-key-0000-0000:adm", None):
        assert_refused(await ask(app, key, KEYS), 403, "admin_required" if key == WEB else
                       "authorization_failed")  # fmt: skip


# What a plain key is told on each administrator area, as the service words a refusal.
AREA_REFUSALS = {
    "/v2/admin/developer-keys": "Forbidden: managing developer keys needs an administrator key.",
    "/v2/admin/analytics": "Forbidden: usage analytics need an administrator key.",
}


async def test_a_plain_key_is_told_which_administrator_area_refused_it(app):
    """Every administrator operation the app describes, whatever its parameters, refuses a
    plain key with its own area's message, before reading anything."""
    operations = [
        (method.upper(), path)
        for path, described in app.openapi()["paths"].items()
        if path.startswith("/v2/admin/")
        for method in described
    ]
    assert len(operations) == 8  # three analytics reports and five key operations
    for method, path in operations:
        [area] = [area for area in AREA_REFUSALS if path.startswith(area)]
        refused = await ask(app, WEB, path, method, json={"key_id": "x", "label": "y"})
        assert_refused(refused, 403, "admin_required", AREA_REFUSALS[area])


@pytest.mark.parametrize("size", [25, 40])
async def test_a_generated_organization_has_places_free_for_new_keys(size):
    """Whatever its size, a synthetic organization keeps at most 22 developer keys active, so
    at least three can be created before the 25-active-key rule refuses one; the keys beyond
    are deactivated at the start of today, after the last day of their history."""
    app = create_app(small_config(keys=size))
    emulator = app.state.emulator
    developer_keys = emulator.store.developer_keys()
    active = sum(row.deactivated is None for row in developer_keys)
    assert active <= 22
    midnight = f"{emulator.today()}T00:00:00.000Z"
    retired = {row.masked for row in developer_keys if row.deactivated == midnight}
    assert retired and active == 22  # the cap bites at these sizes, and no further than it
    ledger = emulator.ledger(emulator.today() - dt.timedelta(days=60), emulator.today())
    kept = {row.api_key for row in ledger if row.api_key in retired}
    assert kept == retired  # every deactivated key keeps its history
    assert all(row.usage_date < emulator.today() for row in ledger if row.api_key in retired)
    admin = emulator.admin_key
    for n in range(25 - active):
        created = await ask(app, admin, KEYS, "POST", json={"label": f"new {n}"})
        assert created.status_code == 200
    assert_refused(await ask(app, admin, KEYS, "POST", json={}), 403, "too_many_keys")
    emulator.store.close()


@pytest.mark.parametrize(
    ("path", "body", "status", "named"),
    [
        ("/deactivate", {"key_id": "ca7d5694-0000-0000-0000-000000000000:x"}, 404, None),
        ("/label", {"key_id": PUBLISHED["key_id"]}, 400, "label"),
        ("/label", {"label": "x"}, 400, "key_id"),
        ("/label", {"key_id": PUBLISHED["key_id"], "label": 5}, 400, "label"),
        ("/limits", {"key_id": PUBLISHED["key_id"], "characters": "many"}, 400, "characters"),
        ("/limits", {"key_id": PUBLISHED["key_id"], "characters": -1}, 400, "characters"),
        ("/limits", {"key_id": PUBLISHED["key_id"], "speech_to_text_milliseconds": 1.5}, 400,
         "speech_to_text_milliseconds"),
    ],
)  # fmt: skip
async def test_a_malformed_or_unknown_request_is_refused_naming_the_field(
    app, path, body, status, named
):
    response = await ask(app, ADMIN, f"{KEYS}{path}", "PUT", json=body)
    assert response.status_code == status and response.headers["X-Trace-ID"]
    if named:
        assert named in response.json()["message"]
    form = await ask(app, ADMIN, f"{KEYS}{path}", "PUT", data={"key_id": "x"})
    assert form.status_code == 415  # the key operations take JSON bodies


async def test_a_key_at_its_character_limit_is_refused_with_456(app):
    """Web shop has 40 of its 100 characters this period: a request crossing the limit is
    still served, the next is refused; the limit removed, it is served again."""
    await book_translation(app, WEB, "x" * 59)  # 99 used
    await book_translation(app, WEB, "y" * 30)  # 129: reached
    refused = await ask(
        app, WEB, "/v2/translate", "POST", json={"text": ["z"], "target_lang": "DE"}
    )
    assert_refused(
        refused, 456, "quota_exceeded", "Quota exceeded. The character limit has been reached."
    )
    upload = await ask(
        app, WEB, "/v2/document", "POST", data={"target_lang": "DE"},
        files={"file": ("a.txt", b"hello")},
    )  # fmt: skip
    assert upload.status_code == 456
    usage = await answer_of(app, WEB, "/v2/usage")
    assert (usage["api_key_character_count"], usage["api_key_character_limit"]) == (129, 100)
    key_id = (await keys_of(app))[0]["key_id"]
    cleared = await ask(app, ADMIN, f"{KEYS}/limits", "PUT", json={"key_id": key_id,
                                                                  "characters": None})  # fmt: skip
    assert cleared.json()["usage_limits"]["characters"] is None
    await book_translation(app, WEB, "served again")
    assert (await answer_of(app, WEB, "/v2/usage"))["api_key_character_limit"] == 1_000_000_000_000


async def test_a_limit_of_zero_allows_nothing_and_a_limit_not_given_stays(app):
    key_id = (await keys_of(app))[0]["key_id"]
    body = {"key_id": key_id, "speech_to_text_milliseconds": 60000}
    limited = await ask(app, ADMIN, f"{KEYS}/limits", "PUT", json=body)
    assert limited.json()["usage_limits"] == {
        "characters": 100,
        "speech_to_text_milliseconds": 60000,
    }
    await ask(app, ADMIN, f"{KEYS}/limits", "PUT", json={"key_id": key_id, "characters": 0})
    refused = await ask(
        app, WEB, "/v2/translate", "POST", json={"text": ["a"], "target_lang": "DE"}
    )
    assert refused.status_code == 456
