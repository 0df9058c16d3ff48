"""Every shape of the analytics answer that the service's published interface allows, through
the export CLI and the Overview page: no speech field, no label, rows under `grouped_usage`
(its first revision), and unknown extra fields. What stays strict is an invalid answer.

The expected numbers are the organization file's own formula (`faultserver.write_org_file`),
written out here, not anything the client computed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import date, timedelta

import pytest
from support.faultserver import FaultServer, Reply, write_org_file
from support.headless import open_clean_page
from typer.testing import CliRunner

from analytics.cli import app as cli_app
from emulator import EmulatorConfig, create_app

KEYS = {"ab12-web-shop-0001:adm": "Web shop", "cd34-support-0002": "Support"}
MASKED = ["ab12****:adm", "cd34****0002"]
ADMIN = next(iter(KEYS))
DAYS = [date(2025, 3, 30) + timedelta(days=i) for i in range(4)]
HEADER = (
    "usage_date,api_key,api_key_label,total_characters,text_translation_characters,"
    "document_translation_characters,text_improvement_characters,speech_to_text_minutes,"
    "speech_to_speech_minutes"
)


def expected_csv(speech: bool = True, labels: bool = True) -> bytes:
    """The key-and-day export of DAYS, from the organization file's formula."""
    lines = [HEADER]
    for d, day in enumerate(DAYS):
        for k, (masked, label) in enumerate(zip(MASKED, KEYS.values(), strict=True)):
            text, document, improvement = 1000 * (k + 1) + d, 100 * k + 7 * d, k + d
            minutes = 0.25 * (k + d) if speech else 0.0
            spoken = 0.5 * k if speech else 0.0
            total = text + document + improvement
            shown = label if labels else ""
            lines.append(
                f"{day},{masked},{shown},{total},{text},{document},{improvement},{minutes!r},"
                f"{spoken!r}"
            )
    return ("\r\n".join(lines) + "\r\n").encode()


def rewrite(change: Callable[[dict], None]) -> Callable[[bytes], bytes]:
    """A transform of the emulator's analytics answers: `change` edits their `usage_report` in
    place; other answers pass unchanged."""

    def transform(body: bytes) -> bytes:
        answer = json.loads(body)
        if "usage_report" not in answer:  # another operation (the Overview's plan panel)
            return body
        change(answer["usage_report"])
        return json.dumps(answer).encode()

    return transform


def rows(report: dict) -> list[dict]:
    return report.get("key_and_day_usages") or report.get("grouped_usage") or []


def without_speech(report: dict) -> None:
    for usage in [report["total_usage"], *(row["usage"] for row in rows(report))]:
        del usage["speech_to_text_minutes"]
        del usage["speech_to_speech_minutes"]


def without_labels(report: dict) -> None:
    for row in rows(report):
        del row["api_key_label"]


def as_grouped_usage(report: dict) -> None:
    report["grouped_usage"] = report.pop("key_and_day_usages")


def with_extra_fields(report: dict) -> None:
    report["currency_hint"] = {"unknown": True}
    report["total_usage"]["future_minutes"] = 12.5
    for row in rows(report):
        row["region"] = "eu"
        row["usage"]["future_minutes"] = 1.5


def without_total(report: dict) -> None:
    del report["total_usage"]


def first_revision(report: dict) -> None:
    """Revision 3.5.0 as published: grouped_usage, and no speech field anywhere."""
    without_speech(report)
    as_grouped_usage(report)


SHAPES = {
    "no speech field": (without_speech, expected_csv(speech=False)),
    "no label": (without_labels, expected_csv(labels=False)),
    "grouped_usage": (as_grouped_usage, expected_csv()),
    "extra fields": (with_extra_fields, expected_csv()),
    "no total_usage": (without_total, expected_csv()),
    "first revision": (first_revision, expected_csv(speech=False)),
}


@pytest.fixture(scope="module")
def organization(tmp_path_factory):
    path = write_org_file(tmp_path_factory.mktemp("org") / "org.toml", KEYS, DAYS, admin=ADMIN)
    app = create_app(EmulatorConfig(org_file=path, today=date(2025, 6, 1)))
    yield app
    app.state.emulator.store.close()


@pytest.fixture
def service_env(monkeypatch, tmp_path):
    """Only this test's settings: the key, a private history folder."""
    for name in list(os.environ):
        if name.startswith("SERVICE_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("SERVICE_AUTH_KEY", ADMIN)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path / "history"))
    return monkeypatch


def export(base_url: str, out) -> object:
    args = ["export", "--start", str(DAYS[0]), "--end", str(DAYS[-1]), "-o", str(out)]
    env = {"SERVICE_BASE_URL": base_url, "SERVICE_AUTH_KEY": ADMIN}
    return CliRunner().invoke(cli_app, args, env=env, catch_exceptions=False)


def test_the_plain_answer_matches_the_formula(organization, service_env, tmp_path):
    with FaultServer(organization) as server:
        result = export(server.base_url, tmp_path / "usage.csv")
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "usage.csv").read_bytes() == expected_csv()


@pytest.mark.parametrize("shape", SHAPES)
def test_every_published_shape_exports_exactly(shape, organization, service_env, tmp_path):
    change, expected = SHAPES[shape]
    with FaultServer(organization, [Reply(transform=rewrite(change))]) as server:
        result = export(server.base_url, tmp_path / "usage.csv")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""  # no reconciliation warning: absent counts are 0 on both sides
    assert (tmp_path / "usage.csv").read_bytes() == expected


@pytest.mark.parametrize("shape", SHAPES)
def test_every_published_shape_shows_on_the_overview(shape, organization, service_env):
    change, _ = SHAPES[shape]
    with FaultServer(organization, [Reply(transform=rewrite(change))]) as server:
        service_env.setenv("SERVICE_BASE_URL", server.base_url)
        at = open_clean_page(
            "overview", period="Custom range", range=[DAYS[0].isoformat(), DAYS[-1].isoformat()]
        )
    tiles = {metric.label: metric.value for metric in at.metric}
    # Text translation over four days and two keys: sum of 1000·(k+1) + d.
    assert (
        tiles["Text translation characters"]
        == f"{sum(1000 * (k + 1) + d for k in (0, 1) for d in range(4)):,}"
    )
    minutes = sum(0.25 * (k + d) for k in (0, 1) for d in range(4))
    speech = change in (without_speech, first_revision)
    assert tiles["Speech-to-text minutes"] == f"{0.0 if speech else minutes:,.2f}"
    # Speech-to-speech: 0.5·k minutes a day for key k, never added to speech-to-text.
    assert tiles["Speech-to-speech minutes"] == f"{0.0 if speech else 0.5 * 4:,.2f}"


STRICT = {
    "a string where a number belongs": lambda r: rows(r)[0]["usage"].update(
        text_translation_characters="many"
    ),
    "a row without api_key": lambda r: rows(r)[0].pop("api_key"),
    "a key-and-day row without usage_date": lambda r: rows(r)[0].pop("usage_date"),
    "rows that are not a list": lambda r: r.update(key_and_day_usages={"rows": 1}),
}


@pytest.mark.parametrize("problem", STRICT)
def test_what_is_not_the_documented_structure_stays_an_invalid_answer(
    problem, organization, service_env, tmp_path
):
    out = tmp_path / "usage.csv"
    out.write_bytes(b"earlier export\r\n")
    with FaultServer(organization, [Reply(transform=rewrite(STRICT[problem]))]) as server:
        result = export(server.base_url, out)
        trace_id = server.seen[-1].trace_id
    assert result.exit_code == 4
    assert "200" in result.stderr and f"trace id {trace_id}" in result.stderr
    assert out.read_bytes() == b"earlier export\r\n"
