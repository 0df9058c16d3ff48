"""`serve-api` over the demo organization with the teams of teams.example.toml: each team
token's answers hold its own keys alone, in every endpoint and format; the organization's token
sees every key; refusals are 401, 403 and 429; and the token is in no log line, store row or
response.

The oracle is the emulator's ledger (`demo_ledger`) and the teams of teams.example.toml matched
by hand from the keys' labels and tags here, never the code's own output.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import logging
import sqlite3
from collections.abc import Iterator

import pandas as pd
import pytest
from fastapi.testclient import TestClient
from support.builders import invoke, ledger_totals
from support.headless import TODAY

from analytics.api.http_app import ApiSettings, create_app
from analytics.storage.state_store import EMBEDDED_FILE

# teams.example.toml's teams, by hand: their labels (a pattern as a prefix) and tags.
TEAMS = {
    "Marketing": (
        {"Marketing launch", "Sales enablement", "Email assistant", "CRM connector"},
        (),
        {"launch-campaign", "newsletter", "email-drafts"},
    ),
    "Documents": (
        {"Finance reporting", "Product docs", "Localization CI"},
        ("Document pipeline",),
        {"quarterly-report", "release-notes", "legal-review"},
    ),
}
LAST = TODAY - dt.timedelta(days=1)
FIRST = LAST - dt.timedelta(days=29)
RANGE = {"start": FIRST.isoformat(), "end": LAST.isoformat()}


def of_team(team: str, label: str) -> bool:
    labels, prefixes, _ = TEAMS[team]
    return label in labels or label.startswith(prefixes) if prefixes else label in labels


def others(demo_ledger, team: str) -> list[str]:
    """Every label, masked key, key id and custom tag of the organization not the team's."""
    keys = demo_ledger.store.developer_keys()
    theirs = [r for r in demo_ledger.ledger(FIRST, LAST) if not of_team(team, r.api_key_label)]
    tags = {r.custom_tag for r in demo_ledger.tag_ledger(FIRST, LAST)} - TEAMS[team][2]
    return sorted(
        {r.api_key_label for r in theirs}
        | {r.api_key for r in theirs}
        | {k.published_id for k in keys if not of_team(team, k.label)}
        | {k.masked for k in keys if not of_team(team, k.label)}
        | tags
    )


def assert_none_of(text: str, names: list[str]) -> None:
    assert names, "the organization has other teams"
    assert [name for name in names if name in text] == []


def made(*scope: str) -> str:
    result = invoke("api", "tokens", "create", *scope, "--demo")
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip()


@pytest.fixture
def api(demo_env) -> Iterator[TestClient]:
    with TestClient(create_app(ApiSettings(demo=True, rate=1000, burst=1000))) as client:
        yield client


def get(client: TestClient, token: str, path: str, **params: str) -> bytes:
    response = client.get(f"/api/v1{path}", params=params, headers=bearer(token))
    assert response.status_code == 200, response.text
    return response.content


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("team", sorted(TEAMS))
def test_a_team_token_reads_its_own_keys_alone_in_every_endpoint_and_format(api, demo_ledger, team):
    token = made("--team", team)
    hidden = others(demo_ledger, team)
    rows = [r for r in demo_ledger.ledger(FIRST, LAST) if of_team(team, r.api_key_label)]
    assert rows, "the team used the service in the range"
    by_key_day = pd.DataFrame(json.loads(get(api, token, "/usage", **RANGE)))
    assert by_key_day["total_characters"].sum() == ledger_totals(rows)["total_characters"]
    assert set(by_key_day["api_key_label"]) == {r.api_key_label for r in rows}
    csv = get(api, token, "/usage", **RANGE, group_by="key", with_cost="true", format="csv")
    assert_none_of(csv.decode(), hidden)
    table = pd.read_csv(io.BytesIO(csv))
    assert table["total_characters"].sum() == ledger_totals(rows)["total_characters"]
    parquet = pd.read_parquet(io.BytesIO(get(api, token, "/usage", **RANGE, format="parquet")))
    assert_none_of(parquet.astype(str).to_csv(), hidden)
    for column in parquet.columns:
        if isinstance(parquet[column].dtype, pd.CategoricalDtype):
            assert_none_of(" ".join(map(str, parquet[column].cat.categories)), hidden)
    tags = get(api, token, "/usage", **RANGE, source="tags", group_by="tag", format="csv")
    assert set(pd.read_csv(io.BytesIO(tags))["custom_tag"]) <= TEAMS[team][2]
    pairs = get(api, token, "/usage", **RANGE, source="language-pairs", group_by="pair_and_key")
    for body in (tags, pairs, get(api, token, "/usage", **RANGE, group_by="team")):
        assert_none_of(body.decode(), hidden)
    focus = get(api, token, "/focus", **RANGE)
    assert focus.count(b"\n") > 0
    assert_none_of(focus.decode(), hidden)
    for path in ("/keys", "/anomalies", "/budgets"):
        assert_none_of(get(api, token, path).decode(), hidden)
    assert {"Unassigned", *(set(TEAMS) - {team})}.isdisjoint(
        pd.read_csv(io.BytesIO(get(api, token, "/usage", **RANGE, group_by="team", format="csv")))[
            "team"
        ]
    )


def test_the_organizations_token_sees_every_key(api, demo_ledger):
    token = made("--organization")
    rows = demo_ledger.ledger(FIRST, LAST)
    table = pd.read_csv(io.BytesIO(get(api, token, "/usage", **RANGE, format="csv")))
    assert table["total_characters"].sum() == ledger_totals(rows)["total_characters"]
    keys = pd.read_json(io.BytesIO(get(api, token, "/keys")))
    listed = {k.published_id for k in demo_ledger.store.developer_keys()}
    assert listed <= set(keys["key_id"])
    marketing = pd.read_csv(
        io.BytesIO(get(api, token, "/usage", **RANGE, team="Marketing", format="csv"))
    )
    expected = [r for r in rows if of_team("Marketing", r.api_key_label)]
    assert marketing["total_characters"].sum() == ledger_totals(expected)["total_characters"]


# Choices of an export, as the API's query and as the command's options.
CHOICES = [
    ({"group_by": "key_and_day"}, ["--group-by", "key_and_day"]),
    ({"group_by": "key", "with_cost": "true"}, ["--group-by", "key", "--with-cost"]),
    (
        {"group_by": "team_and_day", "with_cost": "true"},
        ["--group-by", "team_and_day", "--with-cost"],
    ),
    (
        {"source": "language-pairs", "group_by": "pair_and_key"},
        ["--source", "language-pairs", "--group-by", "pair_and_key"],
    ),
]


@pytest.mark.parametrize("team", [None, "Marketing"])
@pytest.mark.parametrize(("query", "options"), CHOICES)
def test_the_apis_usage_csv_is_the_export_commands_file_byte_for_byte(
    api, demo_ledger, tmp_path, team, query, options
):
    """The same range and choices from `/usage?format=csv` (the organization's token, or a
    team's) and from `export` (with `--team`): the same bytes, header included. Their usage is
    the ledger's, so the two agree on the figures, not merely with each other."""
    token = made("--team", team) if team else made("--organization")
    served = get(api, token, "/usage", **RANGE, **query, format="csv")
    written = tmp_path / "export.csv"
    scope = ["--team", team] if team else []
    days = ["--start", RANGE["start"], "--end", RANGE["end"]]
    result = invoke("export", "--demo", "-o", str(written), *scope, *options, *days)
    assert result.exit_code == 0, result.stderr
    assert served == written.read_bytes()
    rows = [
        r for r in demo_ledger.ledger(FIRST, LAST) if not team or of_team(team, r.api_key_label)
    ]
    table = pd.read_csv(io.BytesIO(served))
    if "source" not in query:  # the language pairs count their own characters
        assert table["total_characters"].sum() == ledger_totals(rows)["total_characters"] > 0


def test_refusals_are_401_403_and_429(demo_env, demo_ledger):
    token = made("--team", "Marketing")
    with TestClient(create_app(ApiSettings(demo=True, rate=0.01, burst=2))) as client:
        assert client.get("/api/v1/keys").status_code == 401
        assert client.get("/api/v1/keys", headers=bearer(token + "x")).status_code == 401
        outside = client.get(
            "/api/v1/usage", params={**RANGE, "team": "Documents"}, headers=bearer(token)
        )
        assert outside.status_code == 403
        assert "Documents" in outside.json()["detail"]
        other_key = next(
            k for k in demo_ledger.store.developer_keys() if not of_team("Marketing", k.label)
        )
        refused = client.get(f"/api/v1/keys/{other_key.published_id}", headers=bearer(token))
        assert refused.status_code == 403
        assert other_key.label not in refused.text
        limited = client.get("/api/v1/keys", headers=bearer(token))
        assert limited.status_code == 429
        assert int(limited.headers["Retry-After"]) >= 1
    assert client.get("/api/v1/openapi.json").status_code == 200


def test_a_revoked_token_is_refused(api):
    token = made("--organization")
    assert api.get("/api/v1/budgets", headers=bearer(token)).status_code == 200
    listed = invoke("api", "tokens", "list", "--demo")
    [token_id] = [line.split()[0] for line in listed.stdout.splitlines()[1:]]
    assert invoke("api", "tokens", "revoke", token_id, "--demo").exit_code == 0
    assert api.get("/api/v1/budgets", headers=bearer(token)).status_code == 401
    [row] = invoke("api", "tokens", "list", "--demo").stdout.splitlines()[1:]
    assert row.startswith(token_id) and not row.endswith("-")


def test_the_token_is_in_no_log_store_row_or_response(api, caplog, tmp_path):
    caplog.set_level(logging.DEBUG)
    token = made("--team", "Marketing")
    bodies = [
        api.get(f"/api/v1{path}", params=RANGE, headers=bearer(token))
        for path in ("/usage", "/focus", "/keys", "/anomalies", "/budgets", "/keys/nothing")
    ]
    bodies.append(api.get("/api/v1/usage", params={"team": "Documents"}, headers=bearer(token)))
    for response in bodies:
        assert token not in response.text
        assert token not in str(response.headers)
    assert [r for r in caplog.records if "/api/v1/usage" in r.getMessage()]
    assert token not in caplog.text
    history = tmp_path / "history"
    for written in history.rglob("*"):
        assert not written.is_file() or token.encode() not in written.read_bytes()
    database = history / EMBEDDED_FILE
    with sqlite3.connect(database) as connection:
        tables = [
            t for (t,) in connection.execute("select name from sqlite_master where type='table'")
        ]
        for table in tables:
            assert token not in repr(connection.execute(f"select * from {table}").fetchall())
        digests = connection.execute("select digest, team from api_tokens").fetchall()
    assert digests == [(hashlib.sha256(token.encode()).hexdigest(), "Marketing")]
    listed = invoke("api", "tokens", "list", "--format", "json", "--demo")
    assert token not in listed.stdout + listed.stderr
