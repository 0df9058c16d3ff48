"""A team lead's dashboard: every page, signed in as the lead of one team of the example
teams settings, shows nothing of another team — no label, masked key, key id or tag in any
element, table cell, chart text or code — and an address naming another team's key is
refused in one line.

The oracle is independent of the scope's code: the organization as the administrator's
`keys list --format json` lists it (every key's id, mask and label: pages name a key by its
label and masked key id, the ids are for programs), every tag as an organization viewer's Tags
page lists it, and the Marketing team's keys and tags written out by hand from
teams.example.toml.
"""

from __future__ import annotations

import html
import json
import tomllib
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from support.builders import invoke, shown_arguments
from support.headless import DEMO_DAYS, DEMO_KEYS, DEMO_SEED, TODAY, app_test
from support.shown import shown_texts
from test_access import AUTH

from analytics import pages
from analytics.usage import calendar

LEAD = "lead@example.org"
VIEWER = "admin@example.org"
SECRETS = AUTH | {
    "ADMIN_EMAILS": [VIEWER],
    "roles": {"emails": {LEAD: ["team lead of Marketing"]}},
}
# teams.example.toml's Marketing team, as written there.
MARKETING_LABELS = {"Marketing launch", "Sales enablement", "Email assistant", "CRM connector"}
MARKETING_TAGS = {"launch-campaign", "newsletter", "email-drafts"}


def signed_in(email: str, page: str, **params: str) -> object:
    """A run of ``page`` (by its address) for ``email``, over all of the demo's history."""
    at = app_test()
    at.secrets.update(SECRETS)
    at.user = {"is_logged_in": True, "email": email}
    at.query_params["period"] = "All history"
    for name, value in params.items():
        at.query_params[name] = value
    shown = pages.page_at(page)
    if not shown.default:
        at.switch_page(str(shown.file))
    at.run()
    assert not at.exception
    return at


def every_text(at) -> str:
    """Every text of a run: what a person reads, every cell of every table (hidden columns
    too: a download holds them), the code shown, and the page's address."""
    texts = shown_texts(at)
    for table in at.dataframe:
        frame = table.value
        texts += [str(cell) for cell in frame.astype(str).to_numpy().ravel()]
        texts += [str(column) for column in frame.columns]
    texts += [code.value for code in at.code]
    texts += [f"{name}={value}" for name, value in at.query_params.items()]
    return "\n".join(texts)


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> str:
    """One history folder for the module: the demo's keys live in its store."""
    return str(tmp_path_factory.mktemp("history"))


@pytest.fixture
def demo(demo_env, monkeypatch, history) -> None:
    """The headless demo organization of the module's history folder."""
    monkeypatch.setenv("SERVICE_HISTORY_PATH", history)


@pytest.fixture
def organization(demo) -> dict[str, set[str]]:
    """The demo organization as its viewer sees it: each key's id, mask and label outside
    Marketing (whose keys are known by the hand-written labels), and every tag."""
    listed = invoke("keys", "list", "--demo", "--all", "--format", "json")
    keys = pd.DataFrame(json.loads(listed.stdout))
    tags = signed_in(VIEWER, "tags").dataframe[0].value
    theirs = keys.loc[~keys["label"].isin(MARKETING_LABELS)]
    ours = keys.loc[keys["label"].isin(MARKETING_LABELS)]
    return {
        "ours": set(ours["label"]),
        "our_tags": {str(tag) for tag in tags["custom_tag"] if str(tag) in MARKETING_TAGS},
        "theirs": {
            text
            for column in ("label", "api_key", "key_id")
            for text in theirs[column].dropna().astype(str)
            if len(text) > 4  # not a placeholder ("-", "****")
        }
        | {str(tag) for tag in tags["custom_tag"] if str(tag) not in MARKETING_TAGS},
        "their_ids": set(theirs["key_id"]) - {"-"},  # usage the key list does not name
        "their_masks": {str(mask) for mask in theirs["api_key"].dropna() if len(str(mask)) > 4},
        "our_masks": sorted(ours["api_key"].dropna().astype(str)),
        "our_ids": dict(zip(ours["api_key"].astype(str), ours["key_id"], strict=True)),
        "their_tags": {str(tag) for tag in tags["custom_tag"] if str(tag) not in MARKETING_TAGS},
    }


@pytest.mark.parametrize("page", [row.url_path for row in pages.listed(whole=False)])
def test_a_team_lead_sees_nothing_of_another_team(organization, page):
    at = signed_in(LEAD, page)
    text = every_text(at)
    assert organization["ours"] and organization["theirs"]
    leaked = sorted(thing for thing in organization["theirs"] if thing in text)
    assert leaked == [], f"{page} shows {leaked}"
    ours, tags = len(organization["ours"]), len(organization["our_tags"])
    # One of a thing is written singular, several plural (the range's tags vary by day).
    keys_text = "1 key" if ours == 1 else f"{ours} keys"
    tags_text = "1 tag" if tags == 1 else f"{tags} tags"
    assert [info.value for info in at.sidebar.info] == [f"Team Marketing: {keys_text}, {tags_text}"]
    # The demo's line names no count of the organization's (its keys, its tags).
    assert f"Demo organization generated over {DEMO_DAYS} days, seed {DEMO_SEED}" in [
        caption.value for caption in at.sidebar.caption
    ]


def test_settings_are_in_the_navigation_of_the_whole_organization_only(demo):
    """The Settings page, every team's documents in one, is no page of a team lead's: not
    listed, and no address opens it; the organization viewer's navigation has it."""
    settings = str(pages.page_at("settings").file)
    lead = signed_in(LEAD, "overview")
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        lead.switch_page(settings)
    viewer = signed_in(VIEWER, "overview")
    viewer.switch_page(settings).run()
    assert not viewer.exception
    assert [title.value for title in viewer.title] == ["Settings"]
    assert f"generated from {DEMO_KEYS} keys" in viewer.sidebar.caption[-1].value


def test_the_viewer_sees_every_team(organization):
    """The check above can fail: the organization viewer's Keys page names other teams."""
    text = every_text(signed_in(VIEWER, "keys"))
    assert organization["their_masks"] & set(text.split("\n"))


@pytest.mark.parametrize(
    ("page", "param", "named"),
    [
        ("limits", "key", "their_ids"),
        ("limits", "key", "their_masks"),
        ("keys", "key", "their_masks"),
        ("trends", "keys", "their_masks"),
        ("tags", "tag", "their_tags"),
    ],
)
def test_an_address_naming_another_teams_key_is_refused(organization, page, param, named):
    asked = sorted(organization[named])[0]
    at = signed_in(LEAD, page, **{param: asked})
    refusals = [error.value for error in at.error]
    assert refusals == [
        f"{param} {asked!r} is outside your scope (team Marketing): nothing of it is shown"
    ]
    text = every_text(at).replace(refusals[0], "")
    assert not [thing for thing in organization["theirs"] if thing in text]


@pytest.mark.parametrize("whose", ["another team's key", "the organization", "by its name"])
def test_an_address_naming_an_anomaly_outside_the_scope_is_refused(organization, whose):
    """An anomaly of another team's key (by its id, as an alert links it, or by its name in
    words, as an older link does) or of the organization's own series: the one refusal line,
    and nothing of it, rather than one of the team's own anomalies in its place."""
    viewer = signed_in(VIEWER, "anomalies", listed="all")
    table = viewer.dataframe[0].value
    theirs = table.loc[table["api_key"].isin(organization["their_masks"])]
    assert not theirs.empty
    row = theirs.sort_values("id").iloc[0]
    if whose == "the organization":
        asked = f"spike:organization:total_characters:{row['first']:%Y-%m-%d}"
    elif whose == "by its name":
        asked = viewer.selectbox(key="anomaly").format_func(row["id"])
    else:
        asked = row["id"]
    at = signed_in(LEAD, "anomalies", anomaly=asked, listed="all")
    refusal = f"anomaly {asked!r} is outside your scope (team Marketing): nothing of it is shown"
    assert [error.value for error in at.error] == [refusal]
    text = every_text(at).replace(refusal, "")
    assert not [thing for thing in organization["theirs"] if thing in text]
    assert "organization's usual day" not in text


def test_a_team_leads_guardrails_show_only_the_teams_own(organization):
    """The Guardrails section for Marketing's lead: the example budgets enforce none of
    Marketing's, so neither the organization's enforced budget (its use, what is left, the
    plan's limit) nor Data team notebook's is shown, said once in the Overview's words;
    the keys under a guardrail are Marketing's own."""
    at = signed_in(LEAD, "limits", guardrails="true")
    text = every_text(at)
    assert not [thing for thing in organization["theirs"] if thing in text]
    captions = [caption.value for caption in at.caption]
    said = "The plan's figures are the organization's: not shown to team Marketing."
    assert captions.count(said) == 1
    assert [c for c in captions if c.startswith("None of the enforced budgets (")] == [
        "None of the enforced budgets (the budgets, version 1, imported from "
        f"budgets.example.toml on {TODAY}) is team Marketing's."
    ]
    for organizations in ("All characters, usage period", "Data team notebook", "the plan"):
        assert organizations not in text
    assert not at.warning
    [guarded] = [t.value for t in at.dataframe if "planned character limit" in t.value.columns]
    assert {name.split(" (")[0] for name in guarded["key"]} <= organization["ours"]
    assert set(guarded["set by"]) <= {"a budget not shown", "hand-set"}
    viewer = every_text(signed_in(VIEWER, "limits", guardrails="true"))
    assert "All characters, usage period, enforced" in viewer and "the plan" in viewer


@pytest.mark.parametrize("group", ["Key", "Team", "Key and day"])
def test_a_team_leads_export_is_what_the_command_it_shows_writes(demo, tmp_path, group):
    """The Export page under a team's scope: its file's rows (the preview holds them all, a
    team's file being short) are the rows of the command the page shows, run as shown."""
    at = signed_in(LEAD, "export", group=group, period="Last 30 days")
    at.toggle(key="with_cost").set_value(True).run()
    command = at.code[0].value
    assert "--team Marketing" in command and "--with-cost" in command
    words = shown_arguments(command)
    out = tmp_path / "team.csv"
    words[words.index("--output") + 1] = str(out)
    assert invoke(*words).exit_code == 0
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    [preview] = [table.value for table in at.dataframe]
    assert len(preview) == len(written) > 0
    assert preview.astype(str).to_numpy().tolist() == written.to_numpy().tolist()


def test_a_team_leads_capacity_page_leaves_the_organizations_figures_out(demo):
    at = signed_in(LEAD, "capacity")
    captions = [caption.value for caption in at.caption]
    assert "One team's review (team Marketing): the organization-wide budgets" in "\n".join(
        captions
    )
    assert "The plan's figures are the organization's: not shown to team Marketing." in captions
    assert not [c for c in captions if c.startswith(("Recommended", "No options to weigh"))]


@pytest.mark.parametrize(("page", "param"), [("tags", "tag"), ("keys", "key"), ("limits", "key")])
def test_an_address_naming_the_teams_own_key_or_tag_opens_it(organization, page, param):
    asked = "newsletter" if param == "tag" else organization["our_masks"][0]
    at = signed_in(LEAD, page, **{param: asked})
    assert not at.error
    chosen = at.selectbox(key=param).value
    assert chosen == (organization["our_ids"][asked] if page == "limits" else asked)


def test_a_team_leads_total_cost_is_its_row_of_the_organizations_chargeback(demo):
    """The lead's Overview in money (usage cost and the team's share of the base fee) reads
    as the team's row of the Chargeback the organization viewer sees, for the same month."""
    bill = signed_in(VIEWER, "chargeback", period="Last month").dataframe[0].value
    [row] = bill.loc[bill["team"] == "Marketing", "amount"].tolist()
    overview = signed_in(LEAD, "overview", show="cost", period="Last month")
    tiles = {metric.label: metric.value for metric in overview.metric}
    assert tiles["Total cost"] == f"{row} EUR"


def viewers_row(period: str) -> dict[str, str]:
    """Marketing's row of the organization's Chargeback, as its viewer's page shows it: the
    oracle of a lead's money, computed over every team and never through the team's scope."""
    bill = signed_in(VIEWER, "chargeback", period=period).dataframe[0].value
    [row] = bill.loc[bill["team"] == "Marketing"].astype(str).to_dict("records")
    return row


def test_a_team_leads_meeting_report_bills_the_teams_row_of_chargeback(demo, monkeypatch):
    """The meeting report the lead's Capacity page gives for last month: its spend is
    Marketing's row of the organization's Chargeback (never the organization's base fee),
    its contract year the budgets document's though none of its budgets is the team's, and
    the cost forecasts are said to be the organization's, once, on the page and in the
    report."""
    made: dict[str, Callable[[], str]] = {}
    add_deferred = MediaFileManager.add_deferred

    def kept(manager, data, mimetype, coordinates, file_name=None, **named):
        made[str(file_name)] = data
        return add_deferred(manager, data, mimetype, coordinates, file_name, **named)

    monkeypatch.setattr(MediaFileManager, "add_deferred", kept)
    row = viewers_row("Last month")
    at = signed_in(LEAD, "capacity", period="Last month")
    [report] = [page for name, page in made.items() if name.endswith(".html")]
    text = html.unescape(report())
    spend = text[text.index("<h2>Spend (EUR)") :]
    assert f'<td class="text">Total cost</td><td>{row["amount"]} EUR</td>' in spend
    assert f'<td class="text">Base fee share</td><td>{row["base_fee"]} EUR</td>' in spend
    said = "The cost forecasts are the organization's: not shown to team Marketing."
    assert said in spend
    assert [c.value for c in at.caption].count(said) == 1
    year = tomllib.loads(Path("budgets.example.toml").read_text())["contract_year_start"]
    assert f"contract year starts {year}" in text


def test_a_team_leads_chargeback_is_the_teams_rows_and_their_total(demo):
    row = viewers_row("Last month")
    at = signed_in(LEAD, "chargeback", period="Last month")
    teams, total = (table.value.astype(str) for table in at.dataframe)
    assert teams["team"].tolist() == ["Marketing"]
    assert teams.to_dict("records") == [row]
    assert total["amount"].tolist() == [row["amount"]]
    assert not at.get("file_uploader")
    assert not [c.value for c in at.caption if "is the organization's" in c.value]


def test_a_team_leads_overview_in_cost_compares_the_teams_months(demo):
    """Marketing's usage cost is within the organization's included volume, yet its months
    cost it its base fee share, which follows its usage: its changes compare its month with
    the month before, each its row of the organization's Chargeback (the viewer's, over all
    history: a row per month and team), rather than saying N/A."""
    start, end = calendar.resolve("last-month", TODAY)
    before = calendar.previous_range(start, end)[0]
    bill = signed_in(VIEWER, "chargeback").dataframe[0].value
    months = bill.loc[bill["team"] == "Marketing"].set_index("month")["amount"]
    now, then = months[f"{start:%Y-%m}"], months[f"{before:%Y-%m}"]
    overview = signed_in(LEAD, "overview", show="cost", period="Last month")
    total = {metric.label: metric for metric in overview.metric}["Total cost"]
    assert total.value == f"{now} EUR"
    if float(then) == 0:  # no usage then, so no share of the fee: nothing to compare with
        assert total.help.endswith("previous period: N/A") and total.delta == "N/A"
        return
    assert total.help.endswith(f"previous period: {then} EUR")
    assert total.delta.startswith("+" if now > then else "-" if now < then else "0")
