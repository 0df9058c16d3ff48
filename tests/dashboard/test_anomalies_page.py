"""The Anomalies page headless (Streamlit's AppTest) on the small demo organization: the
anomalies the emulator injected into it are listed, charted and marked, and the Overview
counts the new ones."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qsl

from support import kept
from support.builders import asgi_client
from support.headless import TODAY, chart_specs, demo_config, open_clean_page, open_page

from analytics.alerts.anomaly_events import anomaly_events
from analytics.anomalies.detect import NEW_KEY, find_anomalies
from analytics.anomalies.measured import MEASURED
from analytics.usage.pipeline import fetch_usage
from emulator import create_app

DAY = timedelta(days=1)


def events(demo_ledger) -> dict:
    """The injected drop, new key and dormant key of the demo organization."""
    return {i.kind: i for i in demo_ledger.injected if i.kind != "spike"}


def test_the_injected_anomalies_are_listed(demo_env, demo_ledger):
    at = open_clean_page("anomalies", period="Last 30 days")
    table = at.dataframe[0].value
    truth = events(demo_ledger)
    new, dormant, drop = truth["new"], truth["dormant"], truth["drop"]
    assert f"new:{new.api_key}:total_characters:{new.first}" in set(table["id"])
    assert f"dormant:{dormant.api_key}:total_characters:{dormant.first}" in set(table["id"])
    assert any(table["id"].str.startswith(f"drop:{drop.api_key}:"))
    assert set(table["status"]) == {"new"}
    assert (table["last"] >= TODAY - 30 * DAY).all() and (table["last"] < TODAY).all()
    tiles = {metric.label: metric.value for metric in at.metric}
    assert tiles["New"] == str(len(table)) and tiles["Expected"] == "0"
    # The page says how well spikes are found, as the benchmark measured it.
    assert any(MEASURED.sentence() in caption.value for caption in at.caption)


def first_week(demo_ledger, new) -> dict[str, int]:
    """The injected new key's characters on each day of its first week, from the ledger: the
    week whose biggest day the anomaly reports."""
    week = [new.first + n * DAY for n in range(NEW_KEY.days)]
    used = dict.fromkeys(week, 0)
    for row in demo_ledger.ledger(week[0], week[-1]):
        if row.api_key == new.api_key:
            used[row.usage_date] += (
                row.text_translation_characters
                + row.document_translation_characters
                + row.text_improvement_characters
            )
    return {f"{day:%Y-%m-%d}": characters for day, characters in used.items()}


def test_one_anomaly_is_charted_against_its_usual_days(demo_env, demo_ledger):
    new = events(demo_ledger)["new"]
    anomaly = f"new:{new.api_key}:total_characters:{new.first}"
    at = open_page("anomalies", period="Last 30 days")
    at.selectbox(key="anomaly").set_value(anomaly).run()
    assert not at.exception
    assert at.selectbox(key="anomaly").value == anomaly
    [chart] = chart_specs(at)
    bars = next(trace for trace in chart["data"] if trace["type"] == "bar")
    first = bars["x"].index(f"{new.first:%Y-%m-%d}")
    assert all(value == 0 for value in bars["y"][:first])  # nothing before the new key's day
    week = first_week(demo_ledger, new)
    shown = dict(zip(bars["x"], bars["y"], strict=True))
    assert {day: shown[day] for day in week} == week
    # The anomaly runs from the key's first day to the biggest day of its first week (the
    # earliest of equal ones), the day its observed value is from: those days are marked.
    peak = max(week, key=week.__getitem__)
    red = [
        x
        for x, color in zip(bars["x"], bars["marker"]["color"], strict=True)
        if color != bars["marker"]["color"][0]
    ]
    assert red == [day for day in week if day <= peak]
    assert any(f"first used on {new.first:%a %Y-%m-%d}" in m.value for m in at.markdown)


def test_marks_are_given_with_a_button_and_shown(demo_env, demo_ledger):
    dormant = events(demo_ledger)["dormant"]
    anomaly = f"dormant:{dormant.api_key}:total_characters:{dormant.first}"
    at = open_page("anomalies", period="Last 30 days")
    at.selectbox(key="anomaly").set_value(anomaly).run()
    before = len(at.dataframe[0].value)
    at.button(key="mark_expected").click().run()
    assert not at.exception
    # Marked, it stays selected and in the table with its new status, so a second click
    # cannot mark another anomaly; the other new ones are still listed.
    assert at.selectbox(key="anomaly").value == anomaly
    table = at.dataframe[0].value.set_index("id")
    assert len(table) == before and table.loc[anomaly, "status"] == "expected"
    assert (table.drop(anomaly)["status"] == "new").all()
    # Named in words where a person picks it; its id only in the command that marks it.
    label = next(key.label for key in demo_ledger.keys if key.masked == dormant.api_key)
    assert at.selectbox(key="anomaly").format_func(anomaly) == (
        f"Dormant key used · {label} ({dormant.api_key}) · characters · "
        f"on {dormant.first:%a %Y-%m-%d}"
    )
    assert any(
        f"Status: **expected** · from the command line: `mark-anomaly '{anomaly}' acknowledged`"
        in c.value
        for c in at.caption
    )
    history = Path(os.environ["SERVICE_HISTORY_PATH"])
    assert kept.marks(history) == {anomaly: "expected"}
    # Undo gives back the mark it had (none): new again, still selected.
    at.button(key="mark_undo").click().run()
    assert at.selectbox(key="anomaly").value == anomaly
    assert kept.marks(history) == {}
    assert at.dataframe[0].value.set_index("id").loc[anomaly, "status"] == "new"
    assert not any(button.key == "mark_undo" for button in at.button)
    at.button(key="mark_expected").click().run()
    every = open_page("anomalies", period="Last 30 days", listed="All")
    every.selectbox(key="anomaly").set_value(anomaly).run()
    table = every.dataframe[0].value.set_index("id")
    assert table.loc[anomaly, "status"] == "expected"
    assert {m.label: m.value for m in every.metric}["Expected"] == "1"
    assert every.button(key="mark_expected").disabled
    every.button(key="mark_clear").click().run()
    assert every.dataframe[0].value.set_index("id").loc[anomaly, "status"] == "new"


def test_the_overview_counts_the_new_anomalies(demo_env):
    anomalies = open_page("anomalies", period="Last 30 days")
    count = len(anomalies.dataframe[0].value)
    at = open_page("overview", period="Last 30 days")
    assert not at.exception
    [link] = at.get("page_link")
    assert link.proto.label.startswith(f"{count:,} new anomalies in this range ({count:,} in all)")
    assert link.proto.page.endswith("anomalies")


def test_an_alerts_link_opens_its_anomaly(demo_env, demo_ledger):
    """The link an alert carries (`/anomalies?anomaly=…`) picks that anomaly on the page."""
    new = events(demo_ledger)["new"]
    wanted = f"new:{new.api_key}:total_characters:{new.first}"
    served = create_app(demo_config(today=TODAY))
    client, _ = asgi_client(served)
    with client:
        usage = fetch_usage(client, TODAY - 86 * DAY, TODAY - DAY, today=TODAY)
    served.state.emulator.store.close()
    found = find_anomalies(usage.frame, usage.start, TODAY - 30 * DAY, TODAY - DAY)
    [alert] = [e for e in anomaly_events(found) if e.id == f"anomaly:{wanted}"]
    path, query = alert.link.split("?")
    assert path == "/anomalies"
    [(name, value)] = parse_qsl(query)
    at = open_page("anomalies", period="Last 30 days", **{name: value})
    assert not at.exception
    assert at.selectbox(key="anomaly").value == wanted


def test_the_address_names_the_chosen_anomaly_by_its_id(demo_env, demo_ledger):
    """Chosen on the page, the anomaly's id goes to the address; a link by that id, or by the
    name the box shows (older alerts' links), opens the same anomaly."""
    new = events(demo_ledger)["new"]
    wanted = f"new:{new.api_key}:total_characters:{new.first}"
    at = open_clean_page("anomalies", period="Last 30 days")
    at.selectbox(key="anomaly").set_value(wanted).run()
    assert at.query_params["anomaly"] == wanted
    by_id = open_clean_page("anomalies", period="Last 30 days", anomaly=wanted)
    assert by_id.selectbox(key="anomaly").value == wanted
    name = by_id.selectbox(key="anomaly").format_func(wanted)  # as the box shows it
    assert name in by_id.selectbox(key="anomaly").options
    by_name = open_clean_page("anomalies", period="Last 30 days", anomaly=name)
    assert by_name.selectbox(key="anomaly").value == wanted
    assert by_name.query_params["anomaly"] == wanted


def test_a_failing_state_store_is_a_warning_and_the_anomalies_still_show(demo_env, tmp_path):
    """The marks cannot be read (the store answers, but its marks table is gone): the page
    says so, in one warning, and still lists the range's anomalies as the service gives them."""
    listed = open_clean_page("anomalies", period="Last 30 days").dataframe[0].value
    with closing(sqlite3.connect(tmp_path / "history" / kept.FILE)) as store:
        store.execute("DROP TABLE anomaly_marks")
    at = open_page("anomalies", period="Last 30 days")
    assert not at.exception and not at.error
    [warning] = [w.value for w in at.warning if "state store" in w.value]
    assert "usage comes from the service and is shown as usual" in warning
    assert at.dataframe[0].value["id"].tolist() == listed["id"].tolist()
