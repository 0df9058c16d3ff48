"""A behaviour recording: the recorded set of commands run as a person runs them, each one's
standard output, standard error, exit code and the files it wrote kept in a folder, so that a
reorganization can prove it changed nothing by recording before and after and comparing the
two folders (`diff -r`).

    python -m tests.support.recording OUT_DIR        (or: make record DIR=OUT_DIR)

Every command runs on the demo organization (`--demo`) in a child process of its own, with the
clock pinned (`CLOCK`), a fresh history folder and an empty working folder, in an environment
made here rather than inherited (no `SERVICE_*` setting of the shell, a fixed terminal width
for the help's layout, a fixed hash seed), two at a time. What legitimately varies from run to
run is normalised, each in one way:

- the run's temporary folder, wherever output names it (the state store's path), reads `<run>`,
  and the checkout's folder (where the example alert routes given to a command are) `<checkout>`;
- an Excel file is kept as its zip members (`NAME.xlsx.unzipped/…`), the workbook's created and
  modified times (`docProps/core.xml`, the moment it was written) replaced by `normalised`.

The meeting report is recorded as HTML only: its PDF is that HTML printed by chromium, which
stamps the moment it printed it.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Noon of a UTC day: every "today" of every command is this day's.
CLOCK = "2026-03-15T12:00:00Z"
PERIOD = ("--period", "last-90-days")
TEAM = "Marketing"  # a team of the demo's teams settings (teams.example.toml)
# Each source's groupings, as `export --help` lists them.
GROUPINGS = {
    "usage": ("key_and_day", "key", "team", "team_and_day", "none"),
    "tags": ("tag_and_day", "tag"),
    "language-pairs": ("pair", "pair_and_day", "pair_and_key", "pair_key_and_day"),
}
FORMATS = ("csv", "parquet", "xlsx")
COSTED = ("usage", "tags")  # the sources --with-cost goes with
# Every command and command group, whose --help is recorded.
COMMAND_PATHS = (
    (),
    ("export",),
    ("export-dataset",),
    ("report",),
    ("check-budgets",),
    ("check-anomalies",),
    ("mark-anomaly",),
    ("check-rotations",),
    ("languages",),
    ("plan",),
    ("detect",),
    ("serve",),
    ("serve-api",),
    ("reset-demo",),
    ("capacity",),
    ("capacity", "backtest"),
    ("capacity", "recommend"),
    ("keys",),
    ("keys", "list"),
    ("keys", "create"),
    ("keys", "rename"),
    ("keys", "limit"),
    ("keys", "deactivate"),
    ("keys", "audit"),
    ("keys", "rotate"),
    ("keys", "rotation"),
    ("keys", "rotation", "list"),
    ("keys", "rotation", "finish"),
    ("guardrails",),
    ("guardrails", "plan"),
    ("guardrails", "apply"),
    ("guardrails", "restore"),
    ("api",),
    ("api", "tokens"),
    ("api", "tokens", "create"),
    ("api", "tokens", "list"),
    ("api", "tokens", "revoke"),
    ("state",),
    ("state", "check"),
    ("state", "import"),
    ("settings",),
    ("settings", "export"),
    ("settings", "import"),
    ("settings", "history"),
    ("settings", "restore"),
)
_WORKBOOK_TIMES = re.compile(rb"(<dcterms:(created|modified)\b[^>]*>)[^<]*(</dcterms:\2>)")


@dataclass(frozen=True)
class Recorded:
    """One command of the recording: its folder's name and its arguments after the program."""

    name: str
    args: tuple[str, ...]


def helps() -> list[Recorded]:
    """Each command's and command group's --help."""
    return [Recorded("-".join(("help", *path)), (*path, "--help")) for path in COMMAND_PATHS]


def export(name: str, *args: str) -> Recorded:
    """`export` of the demo's last 90 days with `args`, into a file named for the record."""
    return Recorded(f"export-{name}", ("export", "--demo", *PERIOD, *args, "-o", name))


def exports() -> list[Recorded]:
    """Every grouping of every source in every format, with and without cost where the source
    has a cost (language pairs have none: one refusal is recorded); FOCUS in both of its
    formats; and a team's usage with cost and its FOCUS rows."""
    recorded = []
    for source, groupings in GROUPINGS.items():
        costs = [(), ("--with-cost",)] if source in COSTED else [()]
        for grouping, fmt, cost in itertools.product(groupings, FORMATS, costs):
            name = "-".join((source, grouping, *(["cost"] if cost else []))) + f".{fmt}"
            recorded.append(export(name, "--source", source, "--group-by", grouping, *cost))
    team = ("--team", TEAM)
    return [
        *recorded,
        export("language-pairs-cost.csv", "--source", "language-pairs", "--with-cost"),
        *(export(f"focus.{fmt}", "--focus") for fmt in ("csv", "parquet")),
        export("team-cost.csv", *team, "--with-cost"),
        export("team-focus.csv", *team, "--focus"),
    ]


def answers() -> list[Recorded]:
    """The report, the checks, capacity, keys, guardrails, settings and the state store, in each
    of their formats, for the organization and for a team where a command has --team."""
    team = ("--team", TEAM)
    what_ifs = ("--growth", "10%", "--term", "24")
    last_month = ("--period", "last-month")
    commands: dict[str, tuple[str, ...]] = {
        "report": ("report", "--demo", *last_month, "-o", "report.html"),
        "report-team": ("report", "--demo", *last_month, *team, "-o", "team.html"),
        "report-what-ifs": ("report", "--demo", *last_month, *what_ifs, "-o", "what-ifs.html"),
        "check-budgets": ("check-budgets", "--demo"),
        "check-budgets-team": ("check-budgets", "--demo", *team),
        "check-budgets-notify-dry-run": (
            "check-budgets",
            "--demo",
            "--notify",
            "--dry-run",
            "--alerts",
            str(ROOT / "alerts.example.toml"),
        ),
        "check-anomalies": ("check-anomalies", "--demo"),
        "check-anomalies-all-json": ("check-anomalies", "--demo", "--all", "--format", "json"),
        "capacity-backtest": ("capacity", "backtest", "--demo"),
        "capacity-backtest-json": ("capacity", "backtest", "--demo", "--format", "json"),
        "capacity-recommend": ("capacity", "recommend", "--demo"),
        "capacity-recommend-json": ("capacity", "recommend", "--demo", "--format", "json"),
        "capacity-recommend-what-ifs": ("capacity", "recommend", "--demo", *what_ifs),
        "keys-list-all": ("keys", "list", "--demo", "--all"),
        "guardrails-plan": ("guardrails", "plan", "--demo"),
        "guardrails-plan-json": ("guardrails", "plan", "--demo", "--format", "json"),
        "settings-export": ("settings", "export", "--demo", "--to", "settings"),
        "state-check": ("state", "check"),
    }
    for command in ("list", "audit"):
        for fmt in ("table", "json", "csv"):
            commands[f"keys-{command}-{fmt}"] = ("keys", command, "--demo", "--format", fmt)
    return [Recorded(name, args) for name, args in commands.items()]


def environment(history: Path) -> dict[str, str]:
    """The whole environment of a recorded command: none of the shell's settings."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", str(history.parent)),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "COLUMNS": "100",
        "PYTHONHASHSEED": "0",
        "PYTHONPATH": str(ROOT),
        "USAGE_DASHBOARD_CLOCK": CLOCK,
        "SERVICE_HISTORY_PATH": str(history),
    }


def record(command: Recorded, out: Path) -> None:
    """Run `command` in a fresh folder and keep what it did in `out/<its name>`."""
    with tempfile.TemporaryDirectory(prefix="recording-") as folder:
        run = Path(folder).resolve()
        work = run / "work"
        work.mkdir()
        done = subprocess.run(
            [sys.executable, "-m", "analytics", *command.args],
            cwd=work,
            env=environment(run / "history"),
            capture_output=True,
            timeout=600,
        )
        kept = out / command.name
        kept.mkdir()
        (kept / "command").write_bytes(placeholders(f"{shlex.join(command.args)}\n".encode(), run))
        (kept / "exit_code").write_text(f"{done.returncode}\n")
        (kept / "stdout").write_bytes(placeholders(done.stdout, run))
        (kept / "stderr").write_bytes(placeholders(done.stderr, run))
        keep_files(work, kept / "files")


def placeholders(output: bytes, run: Path) -> bytes:
    """`output` with the run's folder and the checkout's named by placeholders."""
    return output.replace(bytes(run), b"<run>").replace(bytes(ROOT), b"<checkout>")


def keep_files(work: Path, kept: Path) -> None:
    """Every file the command wrote, byte for byte; an Excel file as its zip members."""
    for path in sorted(p for p in work.rglob("*") if p.is_file()):
        target = kept / path.relative_to(work)
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".xlsx":
            unzip_workbook(path, target.with_name(f"{target.name}.unzipped"))
        else:
            shutil.copyfile(path, target)


def unzip_workbook(path: Path, folder: Path) -> None:
    """An Excel file's members, in a folder, with the moment it was written normalised."""
    with zipfile.ZipFile(path) as workbook:
        for member in workbook.infolist():
            content = workbook.read(member)
            if member.filename == "docProps/core.xml":
                content = _WORKBOOK_TIMES.sub(rb"\1normalised\3", content)
            target = folder / member.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)


def main(argv: list[str]) -> int:
    """Record every command into the folder named, which must be new or empty."""
    if len(argv) != 1:
        print("usage: python -m tests.support.recording OUT_DIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    if out.exists() and any(out.iterdir()):
        print(f"{out} is not empty: record into a new folder", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    commands = [*helps(), *exports(), *answers()]
    started = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda command: record(command, out), commands))
    print(f"{len(commands)} commands recorded in {out} in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
