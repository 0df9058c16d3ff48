"""The meeting report as PDF (printed by Debian's headless chromium, read back with pypdf) and
by e-mail through a real SMTP server on loopback. The numbers are the emulated organization's:
100 text characters and half a minute of speech-to-text a day."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pypdf import PdfReader
from support.browsers import CHROMIUM, unavailable
from support.builders import PLAN_ADMIN, PLAN_TODAY, plan_org, serve_to_cli
from support.receivers import smtp_server
from support.servers import file_app
from typer.testing import CliRunner

from analytics.cli import app
from bench.processes import free_port

runner = CliRunner()
DAYS = ["--start", "2025-03-01", "--end", "2025-03-19"]
# 19 days: 1,900 characters and 9.50 minutes, the report's first two usage figures.
KPIS = ("Total characters", "1,900", "Speech-to-text minutes", "9.50")
SUBJECT = "Capacity review 2025-03-01 – 2025-03-19"
RECIPIENTS = ["boss@example.org", "cfo@example.org"]


@pytest.fixture
def org(monkeypatch, tmp_path):
    """The CLI pointed at an emulated organization on PLAN_TODAY; the working folder is
    tmp_path/work, which holds nothing but what a test writes."""
    app = file_app(tmp_path, plan_org(), today=PLAN_TODAY)
    serve_to_cli(monkeypatch, app, PLAN_ADMIN, PLAN_TODAY, tmp_path / "history")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for name in ("ANALYTICS_SMTP_USERNAME", "ANALYTICS_SMTP_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    return work


@pytest.fixture
def no_chromium(monkeypatch, tmp_path):
    """A PATH on which there is no chromium."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


@pytest.fixture
def needs_chromium():
    if CHROMIUM is None:
        unavailable("chromium is not installed (apt-get install chromium)")


def write_alerts(folder: Path, port: int) -> Path:
    path = folder / "alerts.toml"
    path.write_text(
        'base_url = "https://dash.example.org/usage"\n[email]\nhost = "127.0.0.1"\n'
        f'port = {port}\nsecurity = "none"\nfrom = "reports@example.org"\n'
        'to = ["alerts-only@example.org"]\n',
        encoding="utf-8",
    )
    return path


def report(*args: str):
    result = runner.invoke(app, ["report", *DAYS, *args])
    assert PLAN_ADMIN not in result.stdout and PLAN_ADMIN not in result.stderr
    return result


# Text only a drawn chart has: the axis title of the usage charts, a forecast chart's title.
CHART_TEXT = ("Day (UTC)", "Total characters — month to date")


def pdf_text(content: bytes) -> tuple[int, str]:
    """The page count and the text of the first page."""
    assert content.startswith(b"%PDF-")
    pages = PdfReader(io.BytesIO(content)).pages
    return len(pages), pages[0].extract_text()


def all_text(content: bytes) -> str:
    return "".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages)


@pytest.mark.parametrize("how", [["--format", "pdf"], []])
def test_the_report_is_printed_to_pdf_by_chromium(org, needs_chromium, how):
    output = org / ("report.pdf" if how == [] else "capacity.out")
    result = report("--output", str(output), *how)  # a .pdf name alone asks for PDF
    assert result.exit_code == 0, result.output
    count, first_page = pdf_text(output.read_bytes())
    assert count >= 5  # a page a section at least: the summary, usage twice, drivers, forecasts
    assert first_page.startswith("Capacity review")
    for text in KPIS:
        assert text in first_page
    printed = all_text(output.read_bytes())
    for text in CHART_TEXT:  # the charts drawn before printing, not blank boxes
        assert text in printed
    assert [path.name for path in org.iterdir()] == [output.name]  # no temporary left


# Paper in PostScript points: A4 is 210 × 297 mm, Letter 8.5 × 11 inches.
PAPER = {"A4": (595, 842), "Letter": (612, 792)}


@pytest.mark.parametrize(
    ("setting", "option", "paper"),
    [(None, [], "A4"), ("Letter", [], "Letter"), ("letter", ["--page-size", "A4"], "A4")],
)
def test_the_pdf_is_a4_unless_the_setting_asks_for_letter(
    org, needs_chromium, monkeypatch, setting, option, paper
):
    if setting is None:
        monkeypatch.delenv("REPORT_PAGE_SIZE", raising=False)
    else:
        monkeypatch.setenv("REPORT_PAGE_SIZE", setting)
    output = org / "report.pdf"
    assert report("--output", str(output), *option).exit_code == 0
    box = PdfReader(io.BytesIO(output.read_bytes())).pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == PAPER[paper]


def test_a_page_size_that_is_no_paper_exits_2(org):
    result = report("--output", str(org / "report.html"), "--page-size", "A5")
    assert result.exit_code == 2
    assert result.stderr == ("error: page size 'A5' is not one of A4, Letter (REPORT_PAGE_SIZE)\n")


def test_pdf_without_chromium_exits_2_naming_it(org, no_chromium):
    output = org / "report.pdf"
    result = report("--output", str(output), "--format", "pdf")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: chromium was not found on PATH: the PDF report is printed by Debian's headless "
        "chromium (apt-get install chromium)\n"
    )
    assert list(org.iterdir()) == []


def test_mail_to_sends_the_pdf_attached(org, needs_chromium):
    with smtp_server() as mailbox:
        write_alerts(org, mailbox.port)
        result = report("--mail-to", RECIPIENTS[0], "--mail-to", RECIPIENTS[1])
    assert result.exit_code == 0, result.output
    [message] = mailbox.messages
    assert mailbox.recipients == [RECIPIENTS]  # the addresses given, not the alert recipients
    assert message["Subject"] == SUBJECT and message["From"] == "reports@example.org"
    body = message.get_body(("plain",)).get_content()
    assert body == (
        "The capacity review of 2025-03-01 – 2025-03-19 (UTC days) is attached as PDF.\n\n"
        "Dashboard: https://dash.example.org/usage/capacity\n"
    )
    [attachment] = message.iter_attachments()
    assert attachment.get_content_type() == "application/pdf"
    assert attachment.get_filename() == "capacity-review_2025-03-01_2025-03-19.pdf"
    count, first_page = pdf_text(attachment.get_content())
    assert count >= 1 and all(text in first_page for text in KPIS)
    assert PLAN_ADMIN.encode() not in mailbox.raw[0]
    assert list(org.iterdir()) == [org / "alerts.toml"]  # no --output: no file


def test_mail_to_without_chromium_attaches_the_html_and_says_so(org, no_chromium):
    with smtp_server() as mailbox:
        write_alerts(org, mailbox.port)
        output = org / "report.html"
        result = report("--output", str(output), "--mail-to", "boss@example.org")
    assert result.exit_code == 0, result.output
    [message] = mailbox.messages
    body = message.get_body(("plain",)).get_content()
    assert "is attached as HTML: chromium was not found on PATH" in body
    [attachment] = message.iter_attachments()
    assert attachment.get_content_type() == "text/html"
    assert attachment.get_filename() == "capacity-review_2025-03-01_2025-03-19.html"
    page = attachment.get_content()
    assert "<h2>Summary</h2>" in page and "1,900" in page
    assert page == output.read_text(encoding="utf-8")  # the report written, byte for byte


def test_mail_that_cannot_be_delivered_exits_13_after_writing_the_file(org, no_chromium):
    write_alerts(org, free_port())  # nothing listens there
    output = org / "report.html"
    result = report("--output", str(output), "--mail-to", "boss@example.org")
    assert result.exit_code == 13, result.output
    assert result.stderr.startswith("error: the report was not mailed: SMTP server 127.0.0.1:")
    assert "ConnectionRefusedError" in result.stderr
    assert "<h2>Summary</h2>" in output.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "alerts", "message"),
    [
        ([], None, "give --output FILE, --mail-to ADDRESS or both"),
        (["--mail-to", "boss"], None, "--mail-to 'boss' is not an e-mail address"),
        (["--mail-to", "boss@example.org"], None, "--mail-to needs an alerts file"),
        (
            ["--mail-to", "boss@example.org"],
            '[[webhook]]\nkind = "json"\nurl_env = "TEST_HOOK_URL"\n',
            "imported from alerts.toml on ",  # then the day of the import
        ),
    ],
)
def test_bad_mail_arguments_exit_2(org, monkeypatch, args, alerts, message):
    monkeypatch.setenv("TEST_HOOK_URL", "http://127.0.0.1:9/hook")
    if alerts is not None:
        text = 'base_url = "https://dash.example.org/usage"\n' + alerts
        (org / "alerts.toml").write_text(text, encoding="utf-8")
    result = report(*args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    if alerts is not None:
        assert result.stderr.endswith(": --mail-to needs an [email] table (the SMTP server)\n")
