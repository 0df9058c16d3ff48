"""The client's developer-key operations against the emulator: typed answers with their trace
ids, limits kept or removed, typed errors, and a create whose answer was lost never resent."""

from __future__ import annotations

import datetime as dt

import pytest
from pydantic import SecretStr
from support.builders import asgi_client
from support.faultserver import FaultServer, Reply
from support.orgfiles import org_key, org_usage, organization
from support.servers import file_app

from analytics.service.client import Policy, ServiceClient
from analytics.service.errors import (
    AuthorizationError,
    ConnectionFailedError,
    NotFoundError,
    QuotaExceededError,
)
from analytics.service.models import UsageLimits

ADMIN, WEB = "client-admin-0001-aaaa:adm", "client-web-0002-bbbb"
ORG = organization(
    org_key(ADMIN, "Admin", admin=True),
    org_key(WEB, "Web shop", "character_limit = 10"),
    org_usage(WEB, "2025-07-01", text=10),
)
TODAY = dt.date(2025, 7, 10)


@pytest.fixture
def app(tmp_path):
    return file_app(tmp_path, ORG, today=TODAY)


def test_keys_are_listed_changed_and_answered_with_trace_ids(app):
    client, _ = asgi_client(app, ADMIN)
    with client:
        [web] = client.developer_keys()
        assert (web.label, web.is_deactivated) == ("Web shop", False)
        assert web.creation_time == dt.datetime(2025, 7, 1, tzinfo=dt.UTC)
        assert web.usage_limits == UsageLimits(characters=10)
        created = client.create_developer_key("Mobile app")
        assert created.trace_id and created.key.key and created.key.label == "Mobile app"
        assert created.key.key not in repr(created)
        key_id = created.key.key_id
        limited = client.set_developer_key_limits(key_id, 500, speech_to_text_milliseconds=60_000)
        assert limited.key.usage_limits == UsageLimits(500, 60_000)
        kept = client.set_developer_key_limits(key_id, characters=None)  # speech kept
        assert kept.key.usage_limits == UsageLimits(None, 60_000)
        assert client.set_developer_key_limits(key_id).key.usage_limits == UsageLimits(None, 60_000)
        assert client.rename_developer_key(key_id, "Mobile (iOS)").key.label == "Mobile (iOS)"
        gone = client.deactivate_developer_key(key_id)
        assert gone.key.is_deactivated and gone.key.deactivated_time is not None
        assert [k.label for k in client.developer_keys()] == ["Web shop", "Mobile (iOS)"]
        with pytest.raises(NotFoundError) as unknown:
            client.rename_developer_key("no-such-id", "x")
        assert unknown.value.trace_id


def test_refusals_are_typed(app):
    key, _ = asgi_client(app, WEB)
    with key:
        with pytest.raises(QuotaExceededError) as quota:
            key.translate("one more", "DE")  # 10 of 10 characters used
        with pytest.raises(AuthorizationError):
            key.developer_keys()  # a developer key is no admin key
    assert quota.value.status == 456 and "Quota exceeded" in str(quota.value)


def test_a_create_whose_answer_is_lost_is_not_sent_again(app):
    """The service made the key but the answer broke off: the client says so and does not
    make a second key; the list shows the one that was made."""
    with FaultServer(app, [Reply(action="reset"), Reply()]) as server:
        policy = Policy(max_attempts=3, backoff=(0.001, 0.002))
        with ServiceClient(server.base_url, SecretStr(ADMIN), policy=policy) as client:
            with pytest.raises(ConnectionFailedError) as lost:
                client.create_developer_key("Lost answer")
            assert lost.value.request_sent
            assert len(server.seen) == 1
            labels = [k.label for k in client.developer_keys()]
    assert labels == ["Web shop", "Lost answer"]
