"""The dashboard run headless with Streamlit's AppTest on a small demo organization.

Expected figures come from the emulator's ledger of the same organization, rebuilt here, and
from the emulator's language tables.
"""

import json
import math
import os
import shlex
import subprocess
import sys
from datetime import timedelta

import pandas as pd
import pytest
from support.builders import ledger_totals
from support.headless import PAGES, ROOT, TODAY, chart_specs, open_page
from support.shown import change_as_written

from analytics.pages import page_at
from analytics.service.client import ServiceClient
from analytics.service.errors import ServerError
from analytics.usage.calendar import all_history_range, previous_range, utc_today
from bench.processes import free_port
from emulator.languages_data import language_entries, v2_languages

DAY = timedelta(days=1)
YESTERDAY = TODAY - DAY


def last_days(count: int) -> tuple:
    """The preset `last-<count>-days` as seen on TODAY: the days before it, through yesterday."""
    return TODAY - count * DAY, YESTERDAY


@pytest.mark.parametrize("shown", ["Usage", "Cost"])
@pytest.mark.parametrize("period", ["Last 30 days", "All history"])
@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs_in_demo_mode_with_a_banner(demo_env, page, period, shown):
    """Every page in each range and in each of Usage and Cost, as a link opens it (chromium
    draws each page in two of these views)."""
    at = open_page(page, period=period, **({"show": "Cost"} if shown == "Cost" else {}))
    assert at.selectbox(key="period").value == period.lower().replace(" ", "-")
    assert at.session_state["shown"] == shown.lower()
    # The choice stays in the page's address, whatever parameters the page adds of its own.
    assert at.query_params.get("show") == ("Cost" if shown == "Cost" else None)
    assert not at.exception
    assert not at.error
    assert any(info.value.startswith("Demo data — ") for info in at.info)
    assert at.title[0].value == page_at(page).title  # the heading is its navigation title


def test_overview_kpis_match_the_ledger(demo_env, demo_ledger):
    at = open_page("overview", period="Last 30 days")
    start, end = last_days(30)
    current = ledger_totals(demo_ledger.ledger(start, end))
    before = ledger_totals(demo_ledger.ledger(*previous_range(start, end)))
    assert current["total_characters"] > 0 and before["total_characters"] > 0
    tiles = {metric.label: metric for metric in at.metric}
    assert tiles["Total characters"].value == f"{current['total_characters']:,}"
    # Each tile names its unit: its figure is bare.
    for label, metric in [
        ("Text translation characters", "text_translation_characters"),
        ("Document translation characters", "document_translation_characters"),
    ]:
        assert tiles[label].value == f"{current[metric]:,}"
    assert tiles["Speech-to-text minutes"].value == f"{current['speech_to_text_minutes']:,.2f}"
    change = change_as_written(current["total_characters"], before["total_characters"])
    assert tiles["Total characters"].delta == change
    mix = chart_specs(at)[0]["data"]
    assert [trace["name"] for trace in mix] == ["Text translation", "Documents", "Text improvement"]
    assert sum(sum(trace["y"]) for trace in mix) == current["total_characters"]


def test_last_month_is_compared_with_the_calendar_month_before(demo_env, demo_ledger):
    at = open_page("overview", period="Last month")
    end = TODAY.replace(day=1) - DAY
    start = end.replace(day=1)
    before_end = start - DAY
    before_start = before_end.replace(day=1)
    assert (
        f"{start} – {end} (UTC), compared with the previous period {before_start} – {before_end}."
    ) in at.caption[0].value
    current = ledger_totals(demo_ledger.ledger(start, end))
    before = ledger_totals(demo_ledger.ledger(before_start, before_end))
    change = current["total_characters"] / before["total_characters"] - 1
    tile = next(metric for metric in at.metric if metric.label == "Total characters")
    assert tile.delta == f"{100 * change:+.1f}\u202f%"
    assert tile.help.endswith(f"previous period: {before['total_characters']:,}")


def test_overview_plan_panel_shows_the_emulators_plan(demo_env, demo_ledger):
    at = open_page("overview")
    assert not at.exception
    plan = demo_ledger.plan
    start, stop = plan.period(TODAY)
    rows = demo_ledger.ledger(start, TODAY)
    characters = ledger_totals(rows)["total_characters"]
    to_text = math.ceil(round(sum(r.speech_to_text_minutes for r in rows), 6))
    to_speech = math.ceil(round(sum(r.speech_to_speech_minutes for r in rows), 6))
    assert f"**Plan** · billing period {start} – {stop - DAY} (UTC)" in [
        m.value for m in at.markdown
    ]
    # The service counts whole minutes, rounded up, and the card writes them whole.
    expected = [
        ("Characters", f"{characters:,}", characters, plan.character_limit),
        ("Speech-to-text minutes", f"{to_text:,}", to_text, plan.speech_to_text_minutes_limit),
        (
            "Speech-to-speech minutes",
            f"{to_speech:,}",
            to_speech,
            plan.speech_to_speech_minutes_limit,
        ),
    ]
    assert [bar.proto.text for bar in at.get("progress")] == [
        f"**{label}** — {shown} of {limit:,} ({100 * used / limit:.1f}\u202f%)"
        for label, shown, used, limit in expected
    ]
    reach = [c.value for c in at.caption if c.value.startswith("Limit reached: ")]
    assert len(reach) == 3  # characters and both kinds of speech minutes are projected
    for line in reach:
        when = line.removeprefix("Limit reached: ")
        if when != "not within this billing period":
            day = when.split()[0]
            assert str(start) <= day < str(stop), line


def test_a_plan_failure_stays_in_its_panel(demo_env, monkeypatch):
    monkeypatch.setenv("SERVICE_DEMO_SEED", "43")  # a source of its own: nothing cached yet

    def unavailable(self):
        raise ServerError("upstream unavailable", status=503, trace_id="t-plan")

    monkeypatch.setattr(ServiceClient, "usage", unavailable)
    at = open_page("overview")
    assert not at.exception
    [error] = at.error
    assert "503" in error.value and "t-plan" in error.value
    assert len(at.metric) == 6 and len(chart_specs(at)) == 2  # the rest of the page is there
    assert not at.get("progress")


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
    start, end = last_days(90)
    assert f"{start:%Y-%m-%d} – {end:%Y-%m-%d}" in at.caption[0].value


def test_custom_range_from_the_url(demo_env):
    end = TODAY.replace(day=1) - DAY  # last month
    start = end.replace(day=1)
    at = open_page(
        "keys", period="Custom range", range=[start.isoformat(), end.isoformat()], q="team"
    )
    assert not at.exception
    assert f"{start:%Y-%m-%d} – {end:%Y-%m-%d}" in at.caption[0].value
    assert at.text_input(key="q").value == "team"


def test_trends_breakdown_of_a_day_holds_that_days_usage(demo_env, demo_ledger):
    at = open_page("trends", period="Last 7 days", day=f"{YESTERDAY:%Y-%m-%d (%a)}")
    assert at.selectbox(key="day").value == YESTERDAY.isoformat()
    breakdown = at.dataframe[-1].value
    that_day = demo_ledger.ledger(YESTERDAY, YESTERDAY)
    assert breakdown["total_characters"].sum() == ledger_totals(that_day)["total_characters"]
    assert set(breakdown["api_key"]) == {
        row.api_key for row in that_day if ledger_totals([row])["total_characters"]
    }


def test_keys_page_drill_down_to_a_key(demo_env):
    at = open_page("keys", period="Last 90 days")
    table = at.dataframe[0].value
    assert table["share"].sum() == pytest.approx(100.0)  # shown in percent
    quiet = table["api_key"].iloc[-1]
    at.selectbox(key="key").set_value(quiet).run()
    assert not at.exception
    assert at.selectbox(key="key").value == quiet


def test_export_page_offers_three_files_a_focus_file_and_the_cli_command(demo_env):
    at = open_page("export", period="Last 7 days", group="Key")
    start, end = last_days(7)
    commands = [block.value for block in at.code]
    # In a checkout the program is this interpreter with the checkout on PYTHONPATH.
    assert commands[0] == (
        f"PYTHONPATH={ROOT} {sys.executable} -m analytics export --start {start} --end {end} "
        f"--group-by key --output usage_key_{start}_{end}.csv --demo"
    )
    assert "--period last-7-days" in commands[1]
    buttons = at.get("download_button")
    assert len(buttons) == 4
    assert buttons[3].proto.label == "Download FOCUS 1.2"
    assert not buttons[3].proto.disabled  # the demo's example prices are in force
    [schedule] = [caption.value for caption in at.caption if "CRON_TZ=UTC" in caption.value]
    assert schedule.endswith(
        "Exit codes: 0 done; 1 unexpected; 2 bad arguments or configuration; "
        "3 key refused (403); 4 service unreachable."
    )


def test_unreachable_service_gives_a_clear_message(monkeypatch, tmp_path, no_retries):
    port = free_port()
    monkeypatch.setenv("SERVICE_AUTH_KEY", "an-admin-key-0001")
    monkeypatch.setenv("SERVICE_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("SERVICE_HISTORY_PATH", str(tmp_path))
    for page in ("overview", "languages"):
        at = open_page(page)
        assert not at.exception
        assert "cannot be reached" in at.error[0].value
        assert "an-admin-key-0001" not in at.error[0].value


def test_refused_key_gives_a_clear_message_with_trace_id(
    monkeypatch, tmp_path, emulator_process, no_retries
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
    first = all_history_range(utc_today(), None)[0]
    days = [str(first + timedelta(days=10)), str(first + timedelta(days=40))]
    for page, message in [
        ("overview", "No usage in this range"),
        ("keys", "No key has usage in this range"),
        ("trends", "No usage in this range"),
        ("tags", "No text characters in this range"),
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
    first = YESTERDAY - 9 * DAY
    assert f"{first:%Y-%m-%d} – {YESTERDAY:%Y-%m-%d}** (10 days)" in at.sidebar.caption[0].value


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


def test_trends_cumulative_and_rolling_views(demo_env, demo_ledger):
    at = open_page("trends", period="Last 30 days", top="3")
    at.toggle(key="cumulative").set_value(True).run()
    assert not at.exception
    traces = chart_specs(at)[0]["data"]
    assert {t["type"] for t in traces} == {"scatter"}
    start, end = last_days(30)
    total = ledger_totals(demo_ledger.ledger(start, end))["total_characters"]
    assert sum(t["y"][-1] for t in traces) == total
    at.toggle(key="cumulative").set_value(False).run()
    at.toggle(key="rolling").set_value(True).run()
    traces = chart_specs(at)[0]["data"]
    assert {t["type"] for t in traces} == {"scatter"}
    last_week = ledger_totals(demo_ledger.ledger(end - 6 * DAY, end))["total_characters"]
    assert sum(t["y"][-1] for t in traces) == pytest.approx(last_week / 7, abs=0.01 * len(traces))


def run_shown_command(at, folder) -> pd.DataFrame:
    """Run the command the Export page shows, as a person copying it would, and read the file
    it wrote (text kept as written)."""
    shown = at.code[0].value
    subprocess.run(shown, shell=True, cwd=folder, env=os.environ, check=True)
    output = shlex.split(shown)[shlex.split(shown).index("--output") + 1]
    return pd.read_csv(folder / output, keep_default_na=False, dtype=str)


def test_the_shown_cli_command_writes_the_rows_the_page_previews(demo_env, demo_ledger, tmp_path):
    at = open_page("export", period="Last 7 days", group="Key")
    preview = at.dataframe[0].value
    written = run_shown_command(at, tmp_path)
    start, end = last_days(7)
    assert (tmp_path / f"usage_key_{start}_{end}.csv").exists()
    assert written["api_key"].tolist() == preview["api_key"].astype(str).tolist()
    assert written["total_characters"].tolist() == preview["total_characters"].astype(str).tolist()
    by_key: dict[str, str] = {}
    for row in demo_ledger.ledger(start, end):
        total = int(by_key.get(row.api_key, 0)) + ledger_totals([row])["total_characters"]
        by_key[row.api_key] = str(total)
    assert dict(zip(written["api_key"], written["total_characters"], strict=True)) == by_key


@pytest.mark.parametrize(
    ("source", "groupings"),
    [
        ("Usage", ["Key and day", "Key", "Team", "Team and day", "Range total"]),
        ("Custom tags", ["Tag and day", "Tag"]),
        ("Language pairs", ["Pair", "Pair and day", "Pair and key", "Pair, key and day"]),
    ],
)
def test_the_export_page_offers_every_source_and_grouping_of_the_cli(demo_env, source, groupings):
    at = open_page("export", period="Last 7 days", source=source)
    assert not at.exception and not at.error
    [grouping] = [c for c in at.segmented_control if c.label == "One row per"]
    assert grouping.options == groupings
    # Pairs carry no cost; the others can (the demo prices with the example pricing).
    assert at.toggle(key="with_cost").proto.disabled == (source == "Language pairs")


def test_tags_with_cost_from_the_page_are_the_cli_file(demo_env, tmp_path):
    at = open_page("export", period="Last 30 days", source="Custom tags", tag_group="Tag")
    at.toggle(key="with_cost").set_value(True).run()
    assert not at.exception and not at.error
    preview = at.dataframe[0].value
    assert "usage_cost_eur" in preview.columns and "team" in preview.columns
    command, crontab = (block.value for block in at.code[:2])
    assert "--source tags --group-by tag --with-cost" in command
    written = run_shown_command(at, tmp_path)
    assert list(written.columns) == list(preview.columns)
    assert written["usage_cost_eur"].tolist() == preview["usage_cost_eur"].astype(str).tolist()
    # The scheduled line exports the organization of the environment file, never the demo.
    assert "--demo" not in crontab and ". /etc/usage-dashboard.env" in crontab
    assert "--period last-30-days --source tags --group-by tag --with-cost" in crontab


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
    # 250 keys over five years of history, all of it at once: twelve times the top 20 the
    # charts draw (the benchmark's pages_scale line weighs 1,000 keys' figures).
    monkeypatch.setenv("SERVICE_DEMO_KEYS", "250")
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
    at = open_page("languages", resource="Text translation", source="de", target="en-US")
    assert not at.exception
    text = language_entries("translate_text")  # every status: the page asks for beta too
    by_resource, matrix, pair, availability, glossary, document_pairs, versions = (
        frame.value for frame in at.dataframe
    )
    assert list(by_resource["lang"]) == [entry["lang"] for entry in text]
    assert list(matrix["lang"]) == [entry["lang"] for entry in text]
    assert list(availability.columns[2:]) == [
        "translate_text",
        "translate_document",
        "glossary",
        "voice",
        "write",
        "style_rules",
        "translation_memory",
    ]
    # Beta and early access are marked: statuses, the beta style-rules feature, names in the
    # matrix, and roles where a language is not stable in one resource (Japanese in write).
    assert any("may still change" in caption.value for caption in at.caption)
    shown = by_resource.set_index("lang")
    assert list(shown.loc[["de", "ca", "ms"], "status"]) == ["stable", "beta", "early access"]
    # Every feature by its name, never the service's key.
    assert shown.loc["de", "features"] == (
        "Auto-detection, Formality, Glossary, Style rules (beta), Tag handling, Translation memory"
    )
    assert "The Glossary feature is present on both languages of document translation." in [
        caption.value for caption in at.caption
    ]
    assert not by_resource["features"].str.contains("_").any()
    assert list(matrix.columns) == [
        "lang",
        "name",
        "Auto-detection",
        "Formality",
        "Glossary",
        "Style rules (beta)",
        "Tag handling",
        "Translation memory",
    ]
    assert list(matrix.set_index("lang").loc[["ca", "ms"], "name"]) == [
        "Catalan (beta)",
        "Malay (early access)",
    ]
    roles = availability.set_index("lang")
    assert roles.loc["ja", "write"] == "Source + target (beta)"
    assert roles.loc["ms", "translate_text"] == "Source + target (early access)"
    # Pair check: English (American) has no formality; style rules are beta.
    assert pair.values.tolist() == [
        ["Auto-detection", "source", True, "", "stable"],
        ["Formality", "target", False, "target lacks it", "stable"],
        ["Glossary", "source and target", True, "", "stable"],
        ["Style rules", "target", True, "", "beta"],
        ["Tag handling", "source and target", True, "", "stable"],
        ["Translation memory", "source and target", True, "", "stable"],
    ]
    assert (
        "5 of 6 features of text translation available for German → English (American). A "
        "feature is available when each language it is needed on supports it."
        in [caption.value for caption in at.caption]
    )
    # Hebrew has no glossaries.
    at.selectbox(key="source").set_value("he").run()
    assert at.dataframe[2].value.set_index("feature").loc["Glossary"].tolist() == [
        "source and target",
        False,
        "source lacks it",
        "stable",
    ]
    # 30 of the 36 languages have glossaries (not Hebrew, Thai, Vietnamese, Catalan, Croatian,
    # Malay), each a source and a target: every ordered pair of two of them.
    assert len(glossary) == 30 * 29
    pairs = set(zip(glossary["source_lang"], glossary["target_lang"], strict=True))
    assert {("de", "en"), ("en", "de"), ("ja", "zh")} <= pairs
    assert not {pair for pair in pairs if "he" in pair or pair[0] == pair[1]}
    # Documents: the 30 glossary languages as sources; as targets the same 30 by their base
    # code and the 7 regional codes of English, Spanish, Portuguese and Chinese (37); less the
    # 37 pairs of one language with itself.
    assert len(document_pairs) == 30 * 37 - 37
    document_pairs_set = set(
        zip(document_pairs["source_lang"], document_pairs["target_lang"], strict=True)
    )
    assert ("de", "en-GB") in document_pairs_set and ("en", "en-GB") not in document_pairs_set
    assert set(versions["v2_code"].dropna()) >= {row["language"] for row in v2_languages("target")}


def test_an_invalid_setting_is_named_on_the_page(demo_env, monkeypatch):
    monkeypatch.setenv("SERVICE_DEMO_KEYS", "many")
    at = open_page("overview")
    assert not at.exception
    assert "SERVICE_DEMO_KEYS" in at.error[0].value
