"""The dashboard run headless with Streamlit's AppTest on a small demo organization."""

import json
import os
import shlex
import socket
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
import stamina
from streamlit.testing.v1 import AppTest

from analytics import exports, frames, periods, state, views
from analytics.demo import demo_client
from analytics.pipeline import fetch_usage, utc_today
from analytics.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
PAGES = ["overview", "keys", "trends", "languages", "capacity", "export"]
TODAY = utc_today()
DEMO = {"SERVICE_DEMO_KEYS": "8", "SERVICE_DEMO_DAYS": "120", "SERVICE_DEMO_SEED": "42"}


@pytest.fixture
def demo_env(monkeypatch, tmp_path):
    # The dashboard's day is pinned, so a run across UTC midnight compares like with like.
    monkeypatch.setattr(state, "today", lambda: TODAY)
    monkeypatch.delenv("SERVICE_AUTH_KEY", raising=False)
    monkeypatch.delenv("SERVICE_BASE_URL", raising=False)
    for name, value in DEMO.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path / "history"))


@pytest.fixture
def no_retry_waits():
    stamina.set_testing(True, attempts=1)
    yield
    stamina.set_testing(False)


def app_test() -> AppTest:
    """The dashboard run through a one-line launcher outside the checkout.

    AppTest treats an entry script next to a `pages/` folder as an old-style multipage app
    and then runs page files without the entry script; a launcher elsewhere keeps the
    `st.navigation` behaviour of a real server.
    """
    return AppTest.from_string(f"import runpy; runpy.run_path({APP!r})", default_timeout=120)


def open_page(page: str, **params: str | list[str]) -> AppTest:
    at = app_test()
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    if page != "overview":
        at.switch_page(str(ROOT / "pages" / f"{page}.py")).run()
    return at


def expected_usage(start, end):
    settings = Settings(demo_keys=8, demo_days=120, demo_seed=42)
    return fetch_usage(demo_client(settings), start, end).key_day


def chart_specs(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_in_demo_mode_with_a_banner(demo_env, page):
    at = open_page(page)
    assert not at.exception
    assert not at.error
    assert any(info.value.startswith("Demo data — ") for info in at.info)
    assert at.title[0].value == page.capitalize()


def test_overview_kpis_match_the_pipeline(demo_env):
    at = open_page("overview", period="Last 30 days")
    start, end = periods.resolve("last-30-days", TODAY)
    current = frames.totals(expected_usage(start, end))
    before = frames.totals(expected_usage(*periods.previous_period(start, end)))
    tiles = {metric.label: metric for metric in at.metric}
    assert tiles["Total characters"].value == f"{int(current['total_characters']):,}"
    assert tiles["Text translation"].value == f"{int(current['text_translation_characters']):,}"
    assert tiles["Speech-to-text"].value == f"{current['speech_to_text_minutes']:,.2f}"
    change = current["total_characters"] / before["total_characters"] - 1
    assert tiles["Total characters"].delta == f"{change:+.1%}"
    mix = chart_specs(at)[0]["data"]
    assert [trace["name"] for trace in mix] == ["Text translation", "Documents", "Text improvement"]
    assert sum(sum(trace["y"]) for trace in mix) == current["total_characters"]


def test_change_is_na_when_the_previous_period_is_empty(demo_env):
    at = open_page("overview", period="All history")
    assert not at.exception
    assert {metric.delta for metric in at.metric} == {"N/A"}


def test_query_parameters_set_the_view(demo_env):
    # Bound widgets carry their shown labels in the URL: readable links, never a key.
    at = open_page(
        "trends",
        period="Last 90 days",
        metric="Document translation characters",
        top="3",
        granularity="Week",
    )
    assert not at.exception
    assert at.selectbox(key="period").value == "last-90-days"
    assert at.selectbox(key="metric").value == "document_translation_characters"
    assert at.number_input(key="top").value == 3
    assert at.segmented_control(key="granularity").value == "week"
    traces = chart_specs(at)[0]["data"]
    assert [t["name"] for t in traces][-1] == "Other"
    assert len(traces) == 4
    start, end = periods.resolve("last-90-days", TODAY)
    assert f"{start:%Y-%m-%d} – {end:%Y-%m-%d}" in at.caption[0].value


def test_custom_range_from_the_url(demo_env):
    start, end = periods.resolve("last-month", TODAY)
    at = open_page(
        "keys", period="Custom range", range=[start.isoformat(), end.isoformat()], q="team"
    )
    assert not at.exception
    assert f"{start:%Y-%m-%d} – {end:%Y-%m-%d}" in at.caption[0].value
    assert at.text_input(key="q").value == "team"


def test_trends_period_breakdown_sums_to_that_day(demo_env):
    start, end = periods.resolve("last-7-days", TODAY)
    at = open_page("trends", period="Last 7 days", day=f"{end:%Y-%m-%d (%a)}")
    assert at.selectbox(key="day").value == end.isoformat()
    breakdown = at.dataframe[-1].value
    kd = expected_usage(start, end)
    assert (
        breakdown["total_characters"].sum()
        == kd[kd["usage_date"] == str(end)]["total_characters"].sum()
    )


def test_keys_page_drill_down_to_a_key(demo_env):
    at = open_page("keys", period="Last 90 days")
    table = at.dataframe[0].value
    assert table["share"].sum() == pytest.approx(1.0)
    quiet = table["api_key"].iloc[-1]
    at.selectbox(key="key").set_value(quiet).run()
    assert not at.exception
    assert at.selectbox(key="key").value == quiet


def test_export_page_offers_three_files_and_the_cli_command(demo_env):
    at = open_page("export", period="Last 7 days", group="Key")
    start, end = periods.resolve("last-7-days", TODAY)
    commands = [block.value for block in at.code]
    assert commands[0] == (
        f"python -m analytics export --start {start} --end {end} --group-by key "
        f"--output usage_key_{start}_{end}.csv --demo"
    )
    assert "--period last-7-days" in commands[1]
    assert len(at.get("download_button")) == 3


def test_unreachable_service_gives_a_clear_message(monkeypatch, tmp_path, no_retry_waits):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("SERVICE_AUTH_KEY", "an-admin-key-0001")
    monkeypatch.setenv("SERVICE_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path))
    for page in ("overview", "languages"):
        at = open_page(page)
        assert not at.exception
        assert "cannot be reached" in at.error[0].value
        assert "an-admin-key-0001" not in at.error[0].value


def test_refused_key_gives_a_clear_message_with_trace_id(
    monkeypatch, tmp_path, emulator_process, no_retry_waits
):
    monkeypatch.setenv("SERVICE_AUTH_KEY", "not-the-admin-key-42")
    monkeypatch.setenv("SERVICE_BASE_URL", emulator_process.base_url)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path))
    at = open_page("keys")
    assert not at.exception
    message = at.error[0].value
    assert "403" in message
    assert "trace id" in message
    assert "not-the-admin-key-42" not in message


def test_a_range_without_usage_says_so(monkeypatch, tmp_path, emulator_process):
    # The emulator's organization is younger than five years: an early custom range is empty.
    monkeypatch.setenv("SERVICE_AUTH_KEY", emulator_process.admin_key)
    monkeypatch.setenv("SERVICE_BASE_URL", emulator_process.base_url)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path))
    first = views.all_history_range(utc_today(), None)[0]
    days = [str(first + timedelta(days=10)), str(first + timedelta(days=40))]
    for page, message in [
        ("overview", "No usage in this range"),
        ("keys", "No key has usage in this range"),
        ("trends", "No usage in this range"),
        ("export", "No usage in this range"),
    ]:
        at = open_page(page, period="Custom range", range=days)
        assert not at.exception
        assert any(message in info.value for info in at.info), page
        assert not any(info.value.startswith("Demo data") for info in at.info)
    assert {
        metric.value for metric in open_page("overview", period="Custom range", range=days).metric
    } == {
        "0",
        "0.00",
    }


def test_custom_range_on_a_demo_organization_shorter_than_the_default_range(demo_env, monkeypatch):
    monkeypatch.setenv("SERVICE_DEMO_DAYS", "10")
    at = open_page("overview", period="Custom range")
    assert not at.exception
    yesterday = TODAY - timedelta(days=1)
    first = yesterday - timedelta(days=9)
    assert f"{first:%Y-%m-%d} – {yesterday:%Y-%m-%d}** (10 days)" in at.sidebar.caption[0].value


AUTH = {"auth": {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x"}}


@pytest.mark.parametrize(
    ("user", "allowed", "shown"),
    [
        ({"is_logged_in": False}, ["admin@example.org"], "Sign in"),
        (
            {"is_logged_in": True, "email": "guest@example.org"},
            ["admin@example.org"],
            "not allowed",
        ),
        ({"is_logged_in": True, "email": "Admin@Example.org"}, ["admin@example.org"], "Overview"),
    ],
)
def test_sign_in_gate(demo_env, user, allowed, shown):
    at = app_test()
    at.secrets.update(AUTH | {"ADMIN_EMAILS": allowed})
    at.user = user
    at.run()
    assert not at.exception
    text = " ".join([t.value for t in at.title] + [w.value for w in at.warning])
    text += " ".join(b.label for b in at.button)
    assert shown in text
    if shown != "Overview":
        assert not at.metric  # no usage is shown before the gate opens
    else:
        assert [b.label for b in at.sidebar.button] == ["Sign out"]


def test_detection_panel_shows_status_language_and_where_it_is_usable(demo_env):
    at = open_page("languages")
    at.text_area[0].input("Das ist ein ganz normaler deutscher Satz über das Wetter.\n\nx")
    at.button[0].click().run()
    assert not at.exception
    result = at.dataframe[-1].value
    assert list(result["text"]) == [
        "Das ist ein ganz normaler deutscher Satz über das Wetter.",
        "x",
    ]
    assert result.loc[0, "status"] == "success"
    assert result.loc[0, "language"] == "de"
    assert "Text translation" in result.loc[0, "usable_as_source_in"]
    assert result.loc[1, "language"] == ""


def test_trends_cumulative_and_rolling_views(demo_env):
    at = open_page("trends", period="Last 30 days", top="3")
    at.toggle(key="cumulative").set_value(True).run()
    assert not at.exception
    traces = chart_specs(at)[0]["data"]
    assert {t["type"] for t in traces} == {"scatter"}
    start, end = periods.resolve("last-30-days", TODAY)
    total = frames.totals(expected_usage(start, end))["total_characters"]
    assert sum(t["y"][-1] for t in traces) == total
    at.toggle(key="cumulative").set_value(False).run()
    at.toggle(key="rolling").set_value(True).run()
    traces = chart_specs(at)[0]["data"]
    assert {t["type"] for t in traces} == {"scatter"}
    kd = expected_usage(end - timedelta(days=6), end)
    last_week_mean = kd["total_characters"].sum() / 7
    assert sum(t["y"][-1] for t in traces) == pytest.approx(last_week_mean, abs=0.01 * len(traces))


def test_the_shown_cli_command_writes_the_same_file(demo_env, tmp_path):
    at = open_page("export", period="Last 7 days", group="Key")
    command = shlex.split(at.code[0].value)
    assert command[:3] == ["python", "-m", "analytics"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, *command[1:]], cwd=tmp_path, env=env, check=True)
    start, end = periods.resolve("last-7-days", TODAY)
    usage = fetch_usage(demo_client(Settings(demo_keys=8, demo_days=120, demo_seed=42)), start, end)
    written = (tmp_path / f"usage_key_{start}_{end}.csv").read_bytes()
    assert written == exports.export_bytes(exports.shape_export(usage, "key"), "csv")


def test_unknown_url_values_fall_back_to_defaults(demo_env):
    at = open_page("trends", period="Next century", metric="Bogus", top="x", granularity="Hour")
    assert not at.exception
    assert at.selectbox(key="period").value == "last-30-days"
    assert at.selectbox(key="metric").value == "total_characters"
    assert at.number_input(key="top").value == 10


def test_the_key_never_reaches_the_page_or_the_url(monkeypatch, tmp_path, emulator_process):
    monkeypatch.setenv("SERVICE_AUTH_KEY", emulator_process.admin_key)
    monkeypatch.setenv("SERVICE_BASE_URL", emulator_process.base_url)
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path))
    for page in PAGES:
        at = open_page(page)
        assert not at.exception
        shown = [str(v) for v in at.query_params.values()]
        shown += [e.value for kind in ("markdown", "caption", "info", "code") for e in at.get(kind)]
        shown += [df.value.to_csv() for df in at.dataframe]
        assert not any(emulator_process.admin_key in text for text in shown), page


@pytest.mark.slow
def test_a_large_organization_gets_small_figures(monkeypatch, tmp_path):
    # 1,000 keys over five years of history, all of it at once.
    monkeypatch.delenv("SERVICE_AUTH_KEY", raising=False)
    monkeypatch.delenv("SERVICE_BASE_URL", raising=False)
    monkeypatch.setenv("SERVICE_DEMO_KEYS", "1000")
    monkeypatch.setenv("SERVICE_DEMO_DAYS", "1825")
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path))
    for page in ("overview", "keys", "trends"):
        at = open_page(page, period="All history", top="20")
        assert not at.exception
        for chart in at.get("plotly_chart"):
            assert len(chart.proto.spec) < 1_000_000
            assert len(json.loads(chart.proto.spec)["data"]) <= 21
    assert at.segmented_control(key="granularity").value == "month"


def test_languages_page_shows_the_service_lists(demo_env):
    at = open_page("languages", resource="Document translation")
    assert not at.exception
    client = demo_client(Settings(demo_keys=8, demo_days=120, demo_seed=42))
    document = client.languages("translate_document")
    by_resource, matrix, availability, glossary, document_pairs, versions = (
        frame.value for frame in at.dataframe
    )
    assert list(by_resource["lang"]) == [entry.lang for entry in document]
    assert list(matrix["lang"]) == [entry.lang for entry in document]
    assert list(availability.columns[2:]) == [
        "translate_text",
        "translate_document",
        "glossary",
        "voice",
        "write",
    ]
    glossary_list = client.languages("glossary")
    base = {e.lang: e.lang.split("-")[0].lower() for e in glossary_list}
    assert len(glossary) == sum(
        base[s.lang] != base[t.lang]
        for s in glossary_list
        if s.usable_as_source
        for t in glossary_list
        if t.usable_as_target
    )
    assert len(document_pairs) > 0
    for _, pair in document_pairs.iterrows():
        source = next(e for e in document if e.lang == pair["source_lang"])
        target = next(e for e in document if e.lang == pair["target_lang"])
        assert "glossary" in source.features and "glossary" in target.features
    v2_targets = client.languages_v2("target")
    assert set(versions["v2_code"].dropna()) >= {language.language for language in v2_targets}


def test_an_invalid_setting_is_named_on_the_page(demo_env, monkeypatch):
    monkeypatch.setenv("SERVICE_DEMO_KEYS", "many")
    at = open_page("overview")
    assert not at.exception
    assert "SERVICE_DEMO_KEYS" in at.error[0].value
