"""The manual stays true: the command reference is the commands' own help, the exit codes are
the code's table, the dashboard's addresses it writes are the page table's, and every link of
the README (which GitHub shows, outside the site `mkdocs
build --strict` checks) resolves."""

from __future__ import annotations

import ast
import datetime as dt
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from support.builders import invoke
from support.headless import TODAY

from analytics.exit_codes import EXIT_CODES
from analytics.pages import GUARDRAILS_SECTION, PAGES

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)")
# A dashboard address the manual writes with its query: `/limits?guardrails=true`.
ADDRESS = re.compile(r"`/([a-z]+)\?([a-z]+)=[^`]*`")
CELL = re.compile(r"(?<!\\)\|")  # a table's cell border, not an escaped pipe inside a cell
# What `make cli-reference` runs: typer's own Markdown of every command's help.
REFERENCE = ["-m", "typer", "analytics.cli", "utils", "docs", "--name", "usage-dashboard"]


def test_the_command_reference_is_the_commands_own_help(tmp_path):
    written = tmp_path / "cli-reference.md"
    subprocess.run(
        [sys.executable, *REFERENCE, "--title", "Command reference", "--output", str(written)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
        capture_output=True,
    )
    assert (ROOT / "docs" / "cli-reference.md").read_text() == written.read_text(), (
        "docs/cli-reference.md is stale: run make cli-reference"
    )


def test_the_exit_codes_of_the_manual_are_the_commands_table():
    """The Command line page's table says what `EXIT_CODES` says, row by row (code spans and
    escaped pipes aside)."""
    section = (ROOT / "docs" / "cli.md").read_text().split("## Exit codes\n")[1].split("\n#")[0]
    rows = [
        [cell.strip().replace("`", "").replace("\\|", "|") for cell in CELL.split(line)[1:-1]]
        for line in section.splitlines()
        if re.match(r"\| \d", line)
    ]
    assert rows == [[str(c.code), c.meaning, c.commands] for c in EXIT_CODES]


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as the site's table of contents names them."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}


def test_the_dashboard_addresses_of_the_manual_are_pages_of_the_table():
    written = {
        found.groups()
        for path in (ROOT / "docs").glob("*.md")
        for found in ADDRESS.finditer(path.read_text())
    }
    assert ("limits", GUARDRAILS_SECTION) in written  # the guardrails' and the alerts' pages
    assert {page for page, _ in written} <= {page.url_path for page in PAGES}


def test_every_link_of_the_readme_resolves():
    links = [link for link in LINK.findall((ROOT / "README.md").read_text()) if "://" not in link]
    assert len(links) > 10
    for link in links:
        path, _, anchor = link.partition("#")
        target = ROOT / path
        assert target.is_file(), link
        assert not anchor or anchor in anchors(target), link


def test_the_readme_and_the_performance_page_show_the_last_full_benchmark_run():
    """Each line of bench/results.json, with its ratio, target and verdict, in the Performance
    page's table; the README gives the run's day and how many lines it met."""
    run = json.loads((ROOT / "bench" / "results.json").read_text())
    assert run["scale"] == 1.0 and len(run["results"]) == 51
    performance = (ROOT / "docs" / "performance.md").read_text()
    for line in run["results"]:
        met = "yes" if line["ok"] else "**no**"
        cells = f"| {line['ratio']} | ≤ {line['target']} | {met} |"
        assert re.search(rf"\| `{line['name']}` \| [^|]+ {re.escape(cells)}", performance)
    met = sum(line["ok"] for line in run["results"])
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"latest full run ({run['date'][:10]}," in readme
    assert f"meets {met} of its {len(run['results'])} lines" in readme


def test_the_data_out_pages_python_examples_read_the_files_the_commands_write(
    tmp_path, demo_env, monkeypatch, capsys
):
    """Every Python example of docs/data-out.md runs as written, beside the FOCUS file and the
    dataset `export --focus` and `export-dataset` write for the demo organization: the tables
    DuckDB shows and the sums pandas makes name the services the demo used."""
    monkeypatch.chdir(tmp_path)
    days = ["--start", str(TODAY - dt.timedelta(days=40)), "--end", str(TODAY - dt.timedelta(1))]
    for command in (
        ["export", "--focus", "-o", "focus.parquet"],
        ["export-dataset", "--to", "dataset"],
    ):
        result = invoke(*command, "--demo", *days)
        assert result.exit_code == 0, result.stderr
    page = (ROOT / "docs" / "data-out.md").read_text()
    examples = re.findall(r"```python\n(.*?)```", page, re.DOTALL)
    assert len(examples) == 4
    sums = []
    for number, example in enumerate(examples, start=1):
        *statements, last = ast.parse(example).body
        assert isinstance(last, ast.Expr)  # what a notebook shows
        namespace: dict[str, object] = {}
        where = f"data-out example {number}"
        exec(compile(ast.Module(statements, []), where, "exec"), namespace)
        shown = eval(compile(ast.Expression(last.value), where, "eval"), namespace)
        if shown is not None:  # DuckDB's show() prints; pandas' sum is the cell's value
            sums.append(shown)
    printed = capsys.readouterr().out
    assert "Documents" in printed and "characters" in printed  # a team, and the summed usage
    assert len(sums) == 2
    for by_service in sums:
        assert "Text translation" in by_service.index and by_service.sum() > 0
