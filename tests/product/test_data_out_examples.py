"""The shell examples of docs/data-out.md run as a reader runs them, read from the page's
```bash blocks so an edit of the page is what runs: each command line through bash, in a
temporary folder, against the demo organization, with `usage-dashboard` on PATH as pip installs
it, the S3 line into a bucket of moto's S3 server, and `curl` against a real `serve-api`
process. The validator's block is not run here: tests/exports/test_focus.py runs the validator.

Where a line cannot run here as written, what it runs as instead is said once, beside the
constants the test substitutes (`WAREHOUSE`, `PORT`, `PAGE_TOKEN_ID`, `STATUS`). The oracles
are independent of the commands: the page's own claims (the organization's `BilledCost` and
`EffectiveCost` have the same sum; a team's file is its own rows), the emulator's ledger and
teams.example.toml's Marketing labels, by hand.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from support.builders import invoke, ledger_totals
from support.headless import ROOT, TODAY
from support.manual import page
from support.s3 import s3_server
from support.signin import MARKETING_LABELS

from bench.processes import free_port, stop_process, wait_until_healthy

# The page's commands, and how each is made to run on the demo organization: `--demo` added to
# every command line (inside `$(...)` and before a comment too).
COMMAND = re.compile(r"(?:usage-dashboard|python -m analytics)[^)#\n]*")
# The substitutions, each a reason a line cannot run as written here:
# - the page's warehouse folder (/srv/...) lies under the test's temporary folder;
# - the page's port, serve-api's default, is taken on a shared machine: the test's free port;
# - `tokens revoke` names a token id of the page's: the id of the token just created;
# - curl reports the status it received after the body (`--write-out`), for the test to read.
WAREHOUSE = "/srv/"
PORT = "8600"
PAGE_TOKEN_ID = "3f2a9c1b7d04"
STATUS = " --silent --show-error --write-out '\\n%{http_code}'"


def bash_blocks() -> list[list[str]]:
    """Each ```bash block of the page as its lines, a continued line (`\\`) joined."""
    blocks = re.findall(r"```bash\n(.*?)```", page("data-out"), re.DOTALL)
    return [re.sub(r"\\\n\s*", "", block).splitlines() for block in blocks]


def on_demo(line: str) -> str:
    """The line as it runs on the demo organization, which needs no service or key."""
    return COMMAND.sub(lambda command: f"{command.group(0).rstrip()} --demo ", line)


@pytest.fixture
def shell(tmp_path: Path, demo_env: None) -> Path:
    """A reader's folder, with `usage-dashboard` in its `bin` as pip writes the console
    script; the demo organization's settings and the run's pinned clock are in the test's
    environment, which the shell inherits."""
    scripts = tmp_path / "bin"
    scripts.mkdir()
    installed = scripts / "usage-dashboard"
    installed.write_text(
        f"#!{sys.executable}\nimport sys\nfrom analytics.cli import main\nsys.exit(main())\n"
    )
    installed.chmod(0o755)
    return tmp_path


def environment(folder: Path, **variables: str) -> dict[str, str]:
    """The test's environment now, with the folder's `bin` and the checkout's `python` first on
    PATH."""
    path = os.pathsep.join([str(folder / "bin"), str(Path(sys.executable).parent)])
    return {
        **os.environ,
        "PATH": f"{path}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        **variables,
    }


def run(line: str, folder: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    """One line through bash in `folder`; it must exit 0."""
    done = subprocess.run(
        ["bash", "-c", line],
        cwd=folder,
        env=environment(folder, **variables),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"{line}\n{done.stderr}"
    return done


def test_the_pages_export_lines_write_the_focus_files_and_the_dataset(shell, monkeypatch):
    focus, validator, dataset, _tokens, _curls = bash_blocks()
    assert "focus-validator" in validator[0]  # tests/exports/test_focus.py runs the validator
    for line in focus:
        run(on_demo(line), shell)
    organization = pd.read_parquet(shell / "focus.parquet")
    marketing = pd.read_csv(shell / "focus.csv")
    assert len(organization) > 100 and set(marketing["SubAccountName"]) == {"Marketing"}
    billed, effective = (
        organization[c].astype(float).sum() for c in ("BilledCost", "EffectiveCost")
    )
    assert billed > 0 and round(billed, 2) == round(effective, 2)
    usage = organization[organization["ChargeCategory"] == "Usage"]
    ours = usage[usage["SubAccountName"] == "Marketing"]
    theirs = marketing[marketing["ChargeCategory"] == "Usage"]
    assert len(ours) == len(theirs) > 0
    assert round(ours["ListCost"].astype(float).sum(), 2) == round(theirs["ListCost"].sum(), 2)

    folder_line, s3_line = dataset
    assert WAREHOUSE in folder_line and "s3://finops-lake/" in s3_line
    run(on_demo(folder_line.replace(WAREHOUSE, f"{shell}{WAREHOUSE}")), shell)
    written = shell / "srv" / "warehouse" / "language-service"
    manifest = json.loads((written / "manifest.json").read_text())
    days = {p["date"] for p in manifest["partitions"] if p["table"] == "usage"}
    assert 60 <= len(days) <= 90 and str(TODAY - timedelta(days=90)) <= min(days) <= max(
        days
    ) < str(TODAY)
    with s3_server(monkeypatch) as s3:
        s3.mkdir("finops-lake")  # the reader's bucket exists
        run(on_demo(s3_line), shell)
        stored = json.loads(s3.cat_file("finops-lake/language-service/manifest.json"))
        files = s3.find("finops-lake/language-service")
    # The same partitions, byte for byte, in the bucket as in the folder.
    assert {(p["path"], p["sha256"]) for p in stored["partitions"]} == {
        (p["path"], p["sha256"]) for p in manifest["partitions"]
    }
    assert len(files) == len(manifest["partitions"]) + 1


def test_the_pages_api_lines_give_marketings_token_marketings_rows_alone(shell, demo_ledger):
    *_, tokens, curls = bash_blocks()
    team_line, organization_line, list_line, revoke_line = tokens
    created = run(on_demo(team_line), shell)
    token_id = created.stderr.split()[2]
    assert created.stdout.startswith("uda_") and token_id in created.stderr
    run(on_demo(organization_line), shell)
    assert token_id in run(on_demo(list_line), shell).stdout
    assert PAGE_TOKEN_ID in revoke_line
    run(on_demo(revoke_line.replace(PAGE_TOKEN_ID, token_id)), shell)

    token_line, *calls = curls
    assert len(calls) == 3 and all(f"127.0.0.1:{PORT}/" in call for call in calls)
    assert f"[default: {PORT}]" in invoke("serve-api", "--help").stdout  # the page's port
    port = str(free_port())
    command = ["usage-dashboard", "serve-api", "--demo", "--port", port]
    with tempfile.TemporaryFile(mode="w+") as log:
        server = subprocess.Popen(
            command, env=environment(shell), stdout=subprocess.DEVNULL, stderr=log
        )
        try:
            assert wait_until_healthy(f"http://127.0.0.1:{port}/api/v1/openapi.json", server)
            token = run(f'{on_demo(token_line)}\nprintf %s "$TOKEN"', shell).stdout
            answers = [
                run(call.replace(PORT, port) + STATUS, shell, TOKEN=token).stdout for call in calls
            ]
        finally:
            stop_process(server)
        log.seek(0)
        assert token not in log.read()
    bodies, statuses = zip(*(answer.rpartition("\n")[::2] for answer in answers), strict=True)
    assert statuses == ("200", "200", "200")

    rows = json.loads(bodies[0])
    last = TODAY - timedelta(days=1)
    ledger = [
        row
        for row in demo_ledger.ledger(last - timedelta(days=29), last)
        if row.api_key_label in MARKETING_LABELS
    ]
    assert {row["api_key_label"] for row in rows} == {row.api_key_label for row in ledger}
    assert sum(row["total_characters"] for row in rows) == ledger_totals(ledger)["total_characters"]

    parquet = pq.read_table(shell / "usage.parquet")
    assert parquet.num_rows > 0
    assert set(parquet.column("api_key_label").to_pylist()) <= MARKETING_LABELS

    focus = [json.loads(line) for line in io.StringIO(bodies[2]) if line.strip()]
    assert len(focus) > 1 and {row["SubAccountName"] for row in focus} == {"Marketing"}
