"""Alert delivery through `check-budgets --notify`: budgets crossing on an emulated organization
reach a real SMTP server (aiosmtpd) and a real HTTP receiver on loopback, once per level; a
failed delivery is sent by the next run; secrets never show. What the receivers got is the
oracle."""

from __future__ import annotations

import email
import email.policy
import io
import json
import ssl
from datetime import UTC, datetime
from email.generator import BytesGenerator
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.builders import PLAN_ADMIN, PLAN_TODAY, plan_org, price_from, pricing, serve_to_cli
from support.manual import blocks
from support.receivers import self_signed, smtp_server, webhook_receiver
from support.servers import file_app
from typer.testing import CliRunner

from analytics.alerts.alert_settings import Email, load_alerts, parse_alerts
from analytics.alerts.budget_events import budget_amount, in_units
from analytics.alerts.delivery_state import DeliveryState, read_file, take
from analytics.alerts.events import Event
from analytics.alerts.message_forms import mail
from analytics.cli import app
from analytics.storage.state_store import embedded_store
from analytics.usage.calendar import utc_today
from bench.processes import free_port

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

DASHBOARD = "https://dash.example.org/usage"
LINK = f"{DASHBOARD}/capacity"
SLACK = "/services/T000/B000/slack-token-1f2e3d"
TEAMS = "/workflows/teams-token-4c5b6a"
JSON = "/hooks/json-token-7a8b9c"
TOKENS = ("slack-token-1f2e3d", "teams-token-4c5b6a", "json-token-7a8b9c")
PASSWORD = "smtp-secret-9d8c7b"
RECIPIENTS = ["capacity@example.org", "finance@example.org"]

MONTH = "2025-03-01 – 2025-03-31"
BILLING = "2025-03-13 – 2025-04-12"  # the plan's billing period on PLAN_TODAY
# The organization used 100 characters a day up to 19 March: 1,900 this month, 3,100 projected.
SUBJECTS = [
    f"Budget warning: Monthly characters ({MONTH})",
    f"Budget exceeded: Admin key, monthly ({MONTH})",
    f"Budget warning: Plan ({BILLING})",
    f"Budget warning: Monthly cost ({MONTH})",
]
IDS = [
    "budget:Monthly characters:2025-03-01",
    "budget:Admin key, monthly:2025-03-01",
    "budget:Plan:2025-03-13",
    "budget:Monthly cost:2025-03-01",
]
LEVELS = ["warning", "exceeded", "warning", "warning"]


def write_budgets(folder: Path, month_limit: int = 3000) -> Path:
    path = folder / "budgets.toml"
    path.write_text(
        f"""
[[budget]]
name = "Monthly characters"
metric = "total_characters"
period = "month"
limit = {month_limit}

[[budget]]
name = "Admin key, monthly"
key = "Admin"
metric = "total_characters"
period = "month"
limit = 1500

[[budget]]
name = "Plan"
metric = "plan"

[[budget]]
name = "Monthly cost"
metric = "cost"
period = "month"
limit = 0.6

[[budget]]
name = "Yearly minutes"
metric = "speech_to_text_minutes"
period = "year"
limit = 1e6
""",
        encoding="utf-8",
    )
    return path


def write_alerts(folder: Path, smtp_port: int, extra: str = "") -> Path:
    path = folder / "alerts.toml"
    path.write_text(
        f"""
base_url = "{DASHBOARD}"

[email]
host = "127.0.0.1"
port = {smtp_port}
security = "none"
from = "Usage alerts <alerts@example.org>"
to = {json.dumps(RECIPIENTS)}

[[webhook]]
name = "capacity channel"
kind = "slack"
url_env = "TEST_SLACK_URL"

[[webhook]]
kind = "teams"
url_env = "TEST_TEAMS_URL"

[[webhook]]
name = "ticketing"
kind = "json"
url_env = "TEST_JSON_URL"
{extra}""",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def org(monkeypatch, tmp_path):
    """The CLI pointed at an emulated organization with a plan of 2,000 characters, on
    PLAN_TODAY, with its history (and so the delivery state) in tmp_path/history."""
    app = file_app(tmp_path, plan_org("billing_day = 13\ncharacter_limit = 2000"), today=PLAN_TODAY)
    serve_to_cli(monkeypatch, app, PLAN_ADMIN, PLAN_TODAY, tmp_path / "history")
    monkeypatch.chdir(tmp_path)
    for name in ("ANALYTICS_SMTP_USERNAME", "ANALYTICS_SMTP_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "pricing.toml").write_text(pricing(price_from("2024-01-01")), encoding="utf-8")
    write_budgets(tmp_path)
    return tmp_path


@pytest.fixture
def hooks(monkeypatch):
    with webhook_receiver() as receiver:
        for name, path in (("SLACK", SLACK), ("TEAMS", TEAMS), ("JSON", JSON)):
            monkeypatch.setenv(f"TEST_{name}_URL", receiver.url(path))
        yield receiver


@pytest.fixture
def mailbox():
    with smtp_server() as box:
        yield box


def run(folder: Path, *extra: str, secrets: tuple[str, ...] = ()):
    """`check-budgets --notify`; the key, the webhook tokens and `secrets` never in its output."""
    args = ["check-budgets", "--budgets", str(folder / "budgets.toml"), "--notify", *extra]
    result = runner.invoke(app, args)
    for secret in (PLAN_ADMIN, *TOKENS, *secrets):
        assert secret not in result.stdout and secret not in result.stderr
    return result


def received_texts(mailbox, hooks) -> list[bytes]:
    return mailbox.raw + [post.body for post in hooks.posts]


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (1234567.4, "characters", "1,234,567"),
        (332.678, "minutes", "332.68"),
        (2500.456, "EUR", "2,500.46"),
        (2500.6, "JPY", "2,501"),
        (1.2346, "KWD", "1.235"),
        (float("nan"), "EUR", "-"),
    ],
)
def test_a_budget_amount_is_written_to_its_units_precision(value, unit, text):
    """Alerts and check-budgets alike: money to its currency's minor unit, never two decimals
    of yen."""
    assert budget_amount(value, unit) == text


def test_a_table_of_budgets_in_several_units_rounds_each_row_as_it_is_written():
    """The dashboard's budget tables hold characters, minutes and money in one column: each
    row rounded as budget_amount writes it, so a page reads what check-budgets prints."""
    frame = pd.DataFrame(
        {
            "unit": ["characters", "minutes", "EUR", "JPY"],
            "used": [1234567.4, 332.678, 2500.456, 2500.6],
            "projected": [2881340.76, 1.005, 0.125, 99.5],
            "limit": [3_000_000.0, 500.0, 3000.0, float("nan")],
        }
    )
    shown = in_units(frame)
    assert shown["used"].tolist() == [1234567, 332.68, 2500.46, 2501]
    assert shown["projected"].tolist()[:1] == [2881341]
    assert shown["limit"].tolist()[:3] == [3_000_000, 500, 3000]
    for column in ("used", "projected"):
        for value, unit, rounded in zip(frame[column], frame["unit"], shown[column], strict=True):
            assert budget_amount(rounded, unit) == budget_amount(value, unit)


def test_every_destination_gets_each_alert_once(org, mailbox, hooks):
    write_alerts(org, mailbox.port)
    first = run(org)
    assert first.exit_code == 11, first.output  # the exit codes of check-budgets stay
    assert first.stderr == ""

    # E-mail: one message per alert to both recipients, plain text with the absolute link.
    assert mailbox.subjects == SUBJECTS
    assert mailbox.recipients == [RECIPIENTS] * 4
    month = mailbox.messages[0]
    assert month["From"] == "Usage alerts <alerts@example.org>"
    assert month["To"] == ", ".join(RECIPIENTS)
    body = month.get_content()
    assert "Monthly characters: 1,900 of 3,000 total characters used (63.3\u202f%)" in body
    assert "3,100 (103.3\u202f%) projected by its end" in body
    assert "Scope: the whole organization." in body
    assert body.endswith(f"Open the dashboard: {LINK}\n")
    key_budget = mailbox.messages[1].get_content()
    assert "1,900 of 1,500 total characters used (126.7\u202f%)" in key_budget
    assert "Keys: Admin (plan****:adm)." in key_budget  # label and masked key
    assert "750 of 2,000 characters of the plan's limit used (37.5\u202f%)" in (
        mailbox.messages[2].get_content()
    )
    assert "EUR of 0.60 EUR cost used" in mailbox.messages[3].get_content()

    # Slack: {"text": ...}, the subject in bold, the link at the end.
    slack = hooks.at(SLACK)
    assert [list(body) for body in slack] == [["text"]] * 4
    assert [body["text"].splitlines()[0] for body in slack] == [f"*{s}*" for s in SUBJECTS]
    assert all(body["text"].endswith(f"<{LINK}|Open the dashboard>") for body in slack)

    # Teams: an Adaptive Card in a message.
    teams = hooks.at(TEAMS)
    assert len(teams) == 4
    for body, subject in zip(teams, SUBJECTS, strict=True):
        assert body["type"] == "message"
        [attachment] = body["attachments"]
        assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
        card = attachment["content"]
        assert card["type"] == "AdaptiveCard" and card["body"][0]["text"] == subject
        assert card["actions"] == [
            {"type": "Action.OpenUrl", "title": "Open the dashboard", "url": LINK}
        ]

    # Generic JSON: the event's fields and the absolute link.
    generic = hooks.at(JSON)
    assert [body["id"] for body in generic] == IDS
    assert [body["level"] for body in generic] == LEVELS
    assert [body["subject"] for body in generic] == SUBJECTS
    assert {body["link"] for body in generic} == {LINK}
    assert generic[0]["text"] in month.get_content()
    assert {post.content_type for post in hooks.posts} == {"application/json"}

    # The administrator key is in no message; keys appear masked.
    for text in received_texts(mailbox, hooks):
        assert PLAN_ADMIN.encode() not in text
    assert first.stdout.count("notified ") == 16

    # A second run sends nothing, and a dry run has nothing to show.
    again = run(org)
    assert again.exit_code == 11, again.output
    assert "notified" not in again.stdout
    assert len(mailbox.messages) == 4 and len(hooks.posts) == 12
    dry = run(org, "--dry-run")
    assert "--- dry run: nothing to send" in dry.stdout
    assert len(mailbox.messages) == 4 and len(hooks.posts) == 12


def test_a_warning_that_becomes_exceeded_is_sent_again_once(org, mailbox, hooks):
    write_alerts(org, mailbox.port)
    assert run(org).exit_code == 11
    write_budgets(org, month_limit=1800)  # 1,900 used: the warning is now exceeded
    escalated = run(org)
    assert escalated.exit_code == 11, escalated.output
    assert mailbox.subjects[4:] == [f"Budget exceeded: Monthly characters ({MONTH})"]
    assert [(b["id"], b["level"]) for b in hooks.at(JSON)[4:]] == [(IDS[0], "exceeded")]
    assert len(hooks.at(SLACK)) == len(hooks.at(TEAMS)) == 5
    assert "The limit was reached on 2025-03-18." in mailbox.messages[4].get_content()
    assert run(org).exit_code == 11
    assert len(mailbox.messages) == 5 and len(hooks.posts) == 15


def test_a_failed_webhook_is_sent_by_the_next_run_and_mail_still_goes(org, mailbox, hooks):
    write_alerts(org, mailbox.port)
    hooks.status = 500
    failed = run(org, "--debug")  # httpx logs each request's address: never the token
    assert failed.exit_code == 13, failed.output
    assert 'INFO: HTTP Request: POST *** "HTTP/1.0 500 Internal Server Error"' in failed.stderr
    assert mailbox.subjects == SUBJECTS  # the other destination got its messages
    assert len(hooks.posts) == 12 and hooks.at(SLACK) == []
    assert (
        f"error: not delivered to capacity channel: {SUBJECTS[0]}: webhook capacity channel: "
        "HTTP 500 Internal Server Error: receiver failed (sent again at the next run)"
    ) in failed.stderr.splitlines()
    assert failed.stderr.count("error: not delivered") == 12

    hooks.status = 200
    retried = run(org)
    assert retried.exit_code == 11, retried.output
    for path in (SLACK, TEAMS, JSON):
        assert len(hooks.at(path)) == 4
    assert [body["id"] for body in hooks.at(JSON)] == IDS
    assert len(mailbox.messages) == 4  # mail was delivered already: not sent twice
    assert run(org).exit_code == 11
    assert len(hooks.posts) == 24 and len(mailbox.messages) == 4


@pytest.mark.parametrize("trouble", ["server down", "temporary failure"])
def test_failed_mail_is_sent_by_the_next_run(org, hooks, trouble):
    port = free_port()
    write_alerts(org, port)
    if trouble == "server down":  # nothing listens on the port yet
        failed = run(org)
        reason = f"SMTP server 127.0.0.1:{port}: ConnectionRefusedError"
    else:
        with smtp_server(port) as busy:
            busy.answer = "451 4.3.0 Try again later"
            failed = run(org)
        reason = f"SMTP server 127.0.0.1:{port}: SMTPDataError: (451, b'4.3.0 Try again later')"
    assert failed.exit_code == 13, failed.output
    assert f"error: not delivered to email: {SUBJECTS[0]}: {reason}" in failed.stderr
    assert [len(hooks.at(path)) for path in (SLACK, TEAMS, JSON)] == [4, 4, 4]

    with smtp_server(port) as mailbox:
        retried = run(org)
    assert retried.exit_code == 11, retried.output
    assert mailbox.subjects == SUBJECTS
    assert len(hooks.posts) == 12


def test_dry_run_prints_the_messages_and_sends_and_records_nothing(org, mailbox, hooks):
    write_alerts(org, mailbox.port)
    dry = run(org, "--dry-run")
    assert dry.exit_code == 11, dry.output
    out = dry.stdout
    assert "--- dry run: email ---" in out
    assert (
        f"Subject: {SUBJECTS[1]}" in out and "To: capacity@example.org, finance@example.org" in out
    )
    assert out.count("--- dry run: capacity channel ---") == 4
    assert "POST to the slack webhook capacity channel" in out
    assert "POST to the teams webhook TEST_TEAMS_URL" in out  # named by its variable
    assert f'"id": "{IDS[2]}"' in out and f'"link": "{LINK}"' in out
    assert mailbox.messages == [] and hooks.posts == []
    assert DeliveryState(embedded_store(org / "history")).store.counts()["alert deliveries"] == 0

    sent = run(org)
    assert mailbox.subjects == SUBJECTS and len(hooks.posts) == 12, sent.output


@pytest.mark.parametrize("password", [PASSWORD, "wrong-password-5e6f"])
def test_starttls_and_credentials_from_the_environment(org, monkeypatch, password):
    """TLS upgraded before signing in (the server refuses plain AUTH); the password comes
    from the environment and shows nowhere, not even when the server refuses it."""
    cert, key = self_signed(org)
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # the client trusts this server only
    monkeypatch.setenv("ANALYTICS_SMTP_USERNAME", "alerts-user")
    monkeypatch.setenv("ANALYTICS_SMTP_PASSWORD", password)
    with smtp_server(
        credentials=("alerts-user", PASSWORD), tls_context=server_tls, require_starttls=True
    ) as box:
        (org / "alerts.toml").write_text(
            f'base_url = "{DASHBOARD}"\n[email]\nhost = "127.0.0.1"\nport = {box.port}\n'
            'security = "starttls"\nfrom = "alerts@example.org"\nto = ["ops@example.org"]\n',
            encoding="utf-8",
        )
        result = run(org, secrets=(password,))
    assert set(box.logins) == {("alerts-user", password)}
    if password == PASSWORD:
        assert result.exit_code == 11, result.output
        assert box.subjects == SUBJECTS
    else:
        assert result.exit_code == 13, result.output
        assert "SMTPAuthenticationError" in result.stderr and box.messages == []


@pytest.mark.parametrize(
    ("extra", "environment", "message"),
    [
        (
            '[[webhook]]\nkind = "discord"\nurl_env = "TEST_SLACK_URL"',
            {},
            "[[webhook]] #4 (kind): Invalid enum value 'discord'",
        ),
        (
            '[[webhook]]\nkind = "json"\nurl_env = "TEST_UNSET_URL"',
            {},
            "[[webhook]] #4 (url_env): the environment variable TEST_UNSET_URL is not set",
        ),
        (
            '[[webhook]]\nkind = "json"\nurl_env = "https://hooks.example.org/pasted-token-3a"',
            {},
            "[[webhook]] #4: url_env must name an environment variable",
        ),
        (
            '[[webhook]]\nname = "ticketing"\nkind = "json"\nurl_env = "TEST_JSON_URL"',
            {},
            "'ticketing' names another destination already",
        ),
        (
            '[[webhook]]\nkind = "slack"\nurl_env = "TEST_BAD_URL"',
            {"TEST_BAD_URL": "hooks.example.org/no-scheme-token-2b"},
            "the environment variable TEST_BAD_URL must be an http:// or https:// address",
        ),
        (
            "",
            {"ANALYTICS_SMTP_USERNAME": "u", "ANALYTICS_SMTP_PASSWORD": "p4ss-in-env-1c"},
            "email.security: credentials are only sent over TLS",
        ),
        (
            "",
            {"ANALYTICS_SMTP_USERNAME": "u"},
            "email.password_env: ANALYTICS_SMTP_USERNAME is set but ANALYTICS_SMTP_PASSWORD",
        ),
    ],
)
def test_a_bad_alerts_file_exits_2_naming_file_entry_and_field(
    org, mailbox, hooks, monkeypatch, extra, environment, message
):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    path = write_alerts(org, mailbox.port, extra)
    result = run(org, secrets=("pasted-token-3a", "no-scheme-token-2b", "p4ss-in-env-1c"))
    assert result.exit_code == 2, result.output
    # A file's own rule names the file, refused before its first import into the store; a
    # secret missing from the environment names the alerts imported from it.
    imported = f"the alert routes, version 1, imported from alerts.toml on {utc_today()}"
    assert result.stderr.startswith((f"error: {path}: ", f"error: {imported}: "))
    assert message in result.stderr
    assert result.stdout == ""  # refused before anything was fetched or evaluated
    assert mailbox.messages == [] and hooks.posts == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            f'base_url = "{DASHBOARD}"\n[email]\nhost = "h"\nsecurity = "none"\n'
            'from = "a@example.org"\nto = ["b@example.org"]\npassword = "hunter2-in-file"\n',
            "email: Object contains unknown field `password`",
        ),
        (f'base_url = "{DASHBOARD}"\n', "no destination: add an [email] table or a [[webhook]]"),
        ('base_url = "dash.example.org"\n[[webhook]]\nkind = "json"\nurl_env = "X"\n', "base_url"),
        ("base_url = \n", "not valid TOML"),
    ],
)
def test_more_bad_files(org, text, message):
    (org / "alerts.toml").write_text(text, encoding="utf-8")
    result = run(org, secrets=("hunter2-in-file",))
    assert result.exit_code == 2, result.output
    assert f"{org / 'alerts.toml'}" in result.stderr and message in result.stderr


def test_notify_needs_an_alerts_file_and_dry_run_needs_notify(org):
    result = run(org)  # no alerts.toml in the working folder
    assert result.exit_code == 2
    assert "--notify needs an alerts file: alerts.toml in the working folder" in result.stderr
    budgets = str(org / "budgets.toml")
    result = runner.invoke(app, ["check-budgets", "--budgets", budgets, "--dry-run"])
    assert result.exit_code == 2
    assert "--alerts and --dry-run go with --notify" in result.stderr


def test_the_manuals_example_is_valid():
    [block] = [b for b in blocks("toml") if "url_env" in b]
    environment = {"ANALYTICS_SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T/B/x"}
    config = parse_alerts(block, "docs/alerts.md", environment)
    assert config.email is not None and config.email.port == 587
    assert config.link("/capacity") == "https://dash.example.org/usage/capacity"


def test_the_example_file_is_valid():
    environment = {
        "ANALYTICS_SMTP_USERNAME": "example-user-8e",
        "ANALYTICS_SMTP_PASSWORD": "example-password-7f",
        "ANALYTICS_SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T/B/example-token-6a",
        "ANALYTICS_TEAMS_WEBHOOK_URL": "https://example.logic.azure.com/workflows/token-5b",
    }
    config = load_alerts(ROOT / "alerts.example.toml", environment)
    assert config.email is not None
    assert (config.email.security, config.email.port) == ("starttls", 587)
    assert [(hook.name, hook.kind) for hook in config.webhooks] == [
        ("capacity channel", "slack"),
        ("operations team", "teams"),
    ]
    for value in environment.values():  # secrets are held, never shown
        assert value not in repr(config) and value not in str(config)


def test_events_refuse_unknown_levels_and_multi_line_subjects():
    with pytest.raises(ValueError, match="unknown level 'critical'"):
        Event("a", "critical", "subject", "text", "/capacity")
    with pytest.raises(ValueError, match="one non-empty line"):
        Event("a", "info", "two\nlines", "text", "/capacity")
    with pytest.raises(ValueError, match="dashboard path"):
        Event("a", "info", "subject", "text", "https://elsewhere.example.org/")


def test_two_writers_of_the_state_keep_each_others_records(state_store):
    """A budgets run and an anomaly run delivering at the same time both keep their records."""
    budgets, anomalies = DeliveryState(state_store), DeliveryState(state_store)
    warning = Event("budget:b:2025-03-01", "warning", "s", "t", "/capacity")
    spike = Event("anomaly:spike:k:m:2025-03-02", "info", "s", "t", "/keys")
    budgets.begin("email", warning, now=datetime(2025, 3, 2, 5, 59, tzinfo=UTC))
    assert budgets.may_have_been_sent("email", warning) and budgets.is_due("email", warning)
    budgets.record("email", warning, now=datetime(2025, 3, 2, 6, 0, tzinfo=UTC))
    anomalies.record("email", spike, now=datetime(2025, 3, 3, 6, 0, tzinfo=UTC))
    fresh = DeliveryState(state_store)
    assert not fresh.is_due("email", warning) and not fresh.is_due("email", spike)
    assert not fresh.may_have_been_sent("email", warning)  # its intent is done
    assert fresh.is_due("email", Event(warning.id, "exceeded", "s", "t", "/capacity"))
    assert fresh.is_due("chat", warning)
    assert state_store.counts()["alert deliveries"] == 2


def test_a_delivery_file_from_before_the_store_is_taken_once(state_store):
    """Bare levels (files written before records had a time), records and an intent; run
    twice, nothing is doubled, and a delivery the store holds is not turned back into an
    intent."""
    state = DeliveryState(state_store)
    sent = Event("budget:b:2025-03-01", "warning", "s", "t", "/")
    began = Event("anomaly:spike:k:m:2025-03-02", "info", "s", "t", "/")
    state.record("chat", began)
    content = json.dumps(
        {
            "delivered": {"email": {sent.id: "warning"}},
            "sending": {"chat": {began.id: {"level": "info", "at": "2025-03-02T06:00:00+00:00"}}},
        }
    ).encode()
    assert take(state, read_file(content)) == 1
    assert take(state, read_file(content)) == 0
    assert not state.is_due("email", sent) and not state.may_have_been_sent("chat", began)
    with pytest.raises(ValueError, match="delivered"):
        read_file(b"{}")


def test_records_older_than_the_horizon_are_pruned(state_store):
    state = DeliveryState(state_store)
    old = Event("budget:b:2024-01-01", "info", "s", "t", "/capacity")
    new = Event("budget:b:2024-07-01", "info", "s", "t", "/capacity")
    state.record("email", old, now=datetime(2024, 1, 1, tzinfo=UTC))
    state.record("email", new, now=datetime(2024, 6, 28, 0, 1, tzinfo=UTC))  # 179 days later
    assert not state.is_due("email", old)
    state.record("chat", new, now=datetime(2024, 6, 30, 0, 1, tzinfo=UTC))  # 181 days later
    assert state.is_due("email", old) and not state.is_due("email", new)


SMTP_SERVER = Email("localhost", 25, "none", "alerts@example.org", ("ops@example.org",), None, None)


@given(
    lead=st.text(alphabet="abc (:*", max_size=90),
    rest=st.lists(
        st.sampled_from(["key used", "·", "é", "Finance", "(2416****2:fx)"]), max_size=12
    ),
)
def test_a_subject_arrives_as_it_was_written(lead, rest):
    """Whatever its length and wherever its non-ASCII characters fall, a subject reads the same
    to the recipient, as smtplib sends it: a fold before an encoded word once doubled a space
    ("key used  · Finance")."""
    subject = " ".join(["Usage anomaly (high):", lead, *rest]).strip()
    sent = io.BytesIO()  # as smtplib's send_message writes it: the message's own policy
    BytesGenerator(sent).flatten(mail(SMTP_SERVER, SMTP_SERVER.to, subject, "text"), linesep="\r\n")
    received = email.message_from_bytes(sent.getvalue(), policy=email.policy.default)
    assert str(received["Subject"]) == subject
