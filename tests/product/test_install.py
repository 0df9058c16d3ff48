"""The project as an operator installs it: `pip install .` into a fresh virtual environment,
then the `usage-dashboard` command run from a folder that is not the checkout."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets
from packaging.requirements import Requirement
from support.headless import DEMO, TODAY, one_run
from support.servers import ROOT

from analytics.cli.serve import streamlit_options
from bench.processes import free_port, stop_process, wait_until_healthy

pytestmark = pytest.mark.slow

# The files a checkout carries that the installed command needs, and where the wheel puts them.
SHIPPED = ("analytics/", "emulator/", "app_pages/", "app.py", ".streamlit/config.toml")


def checkout_files() -> list[str]:
    """What a clean clone holds: the tracked files and the new ones git does not ignore."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return [name for name in listed if (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Iterator[Path]:
    """A fresh venv with the project installed from a copy of the checkout, with the pins of
    requirements.txt as constraints, as the deployment recipe does; yields its `bin` folder.

    The venv sees the suite's own dependencies (a `.pth` line naming their folder, which
    holds no copy of the project), so pip checks the pinned ones satisfied and installs the
    project alone: what is under test is what the project ships and how its command runs away
    from the checkout. Installing the dependencies afresh took most of the module's minutes,
    the server's first start compiling each of their modules again."""
    base = tmp_path_factory.mktemp("install")
    source = base / "source"
    for name in checkout_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    venv = base / "venv"
    # Without a pip of its own (bootstrapping one took about four processor-seconds): the
    # suite's pip installs into it (`--python`), the same files from the same index.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    # The folder pip installed the suite's packages in (a distribution's Python may list
    # others beside it for its own packages).
    suite_packages = sysconfig.get_path("purelib")
    (site_packages(venv / "bin") / "suite-dependencies.pth").write_text(f"{suite_packages}\n")
    # Without byte-compiling the project at install: Python compiles what the command imports
    # on first use, and the install puts the same files in place.
    target = ["--python", str(venv / "bin" / "python")]
    pip = [sys.executable, "-m", "pip", *target, "install", "--quiet", "--no-compile"]
    done = subprocess.run(
        [*pip, "-c", str(source / "requirements.txt"), str(source)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    yield venv / "bin"


def site_packages(bin_folder: Path) -> Path:
    [found] = (bin_folder.parent / "lib").glob("python3.*/site-packages")
    return found


def demo_shell(folder: Path) -> dict[str, str]:
    """A shell's environment for the demo: none of the developer's SERVICE_ settings, the demo
    organization's, and a history folder in `folder`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
    return env | {"SERVICE_HISTORY_PATH": str(folder / "history"), **DEMO}


def operator_shell(folder: Path) -> dict[str, str]:
    """`demo_shell` as an operator's: Python keeps the bytecode of what the installed command
    imports, which the install did not write (`--no-compile`). Under a developer's
    PYTHONDONTWRITEBYTECODE every command compiled each module it imports anew: `--help` took
    2.9 processor-seconds instead of 1.0, the server and the export more."""
    env = demo_shell(folder)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run(bin_folder: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`usage-dashboard` in an operator's shell (`operator_shell`), from `cwd`."""
    return subprocess.run(
        [str(bin_folder / "usage-dashboard"), *args],
        cwd=cwd,
        env=operator_shell(cwd),
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_every_shipped_file_of_the_checkout_is_installed(installed):
    packages = site_packages(installed)
    wanted = [n for n in checkout_files() if n.startswith(SHIPPED) and not n.endswith(".md")]
    wanted += [n for n in checkout_files() if n.endswith(".example.toml") and "/" not in n]
    missing = []
    for name in wanted:
        top = name.split("/")[0]
        placed = name if top in ("analytics", "emulator") else f"usage_dashboard/{name}"
        if not (packages / placed).is_file():
            missing.append(name)
    assert len(wanted) > 100
    assert missing == []


def test_the_declared_dependencies_are_the_pinned_ones():
    """pyproject.toml names what the package needs, requirements.txt pins it: one list."""
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    needs = {Requirement(d).name.lower(): Requirement(d).specifier for d in declared}
    pins = [
        line.split("==")
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert sorted(needs) == sorted(name.lower() for name, _ in pins)
    for name, version in pins:
        assert needs[name.lower()].contains(version), name


def test_the_command_lists_every_command(installed, tmp_path):
    shown = run(installed, "--help", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    for command in (
        "export",
        "report",
        "check-budgets",
        "check-anomalies",
        "mark-anomaly",
        "languages",
        "plan",
        "detect",
        "serve",
    ):
        assert f" {command} " in shown.stdout, command


def test_an_installed_demo_export_matches_the_checkouts(installed, tmp_path):
    """Away from the checkout, the demo export writes the same bytes as `python -m analytics`
    in it, with the example prices the demo uses (cost columns present)."""
    start, end = TODAY - dt.timedelta(days=60), TODAY - dt.timedelta(days=31)
    args = ["export", "--demo", "--start", f"{start}", "--end", f"{end}", "--with-cost"]
    away = tmp_path / "away"
    away.mkdir()
    done = run(installed, *args, "--output", str(away / "usage.csv"), cwd=away)
    assert done.returncode == 0, done.stderr
    here = tmp_path / "here.csv"
    subprocess.run(
        [sys.executable, "-m", "analytics", *args, "--output", str(here)],
        cwd=ROOT,
        env=demo_shell(tmp_path),
        check=True,
        capture_output=True,
    )
    written = (away / "usage.csv").read_bytes()
    assert written.splitlines()[0].startswith(b"usage_date,api_key,")
    assert written.splitlines()[0].endswith(b",usage_cost_eur,base_fee_share_eur,total_cost_eur")
    assert len(written.splitlines()) > 10
    assert written == here.read_bytes()


def test_serve_starts_the_dashboard_with_its_pages(installed, tmp_path):
    """`usage-dashboard serve` away from the checkout: the server answers, and a session's run
    shows the demo banner and the Overview's figures with no error."""
    port = free_port()
    command = [str(installed / "usage-dashboard"), "serve", "--server.port", str(port)]
    env = operator_shell(tmp_path)
    with tempfile.TemporaryFile() as output:
        server = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=output, stderr=output)
        try:
            base = f"http://127.0.0.1:{port}"
            assert wait_until_healthy(f"{base}/_stcore/health", server), output
            stream = base.replace("http://", "ws://") + "/_stcore/stream"

            async def first_run() -> list:
                async with websockets.connect(stream, max_size=None) as session:
                    return await one_run(session, "")

            elements = asyncio.run(first_run())
        finally:
            stop_process(server)
    kinds = [element.WhichOneof("type") for element in elements]
    assert "exception" not in kinds
    texts = [element.alert.body for element in elements if element.WhichOneof("type") == "alert"]
    assert any(text.startswith("Demo data — a synthetic organization") for text in texts), texts
    labels = [
        element.metric.label for element in elements if element.WhichOneof("type") == "metric"
    ]
    assert "Total characters" in labels


def test_streamlit_settings_become_options_in_file_order(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(
        '[server]\nheadless = true\naddress = "127.0.0.1"\n\n[theme]\npaddingTop = "1.5rem"\n'
        '\n[theme.dark]\nprimaryColor = "#8DB8E8"\n'
    )
    assert streamlit_options(config) == [
        "--server.headless",
        "true",
        "--server.address",
        "127.0.0.1",
        "--theme.paddingTop",
        "1.5rem",
        "--theme.dark.primaryColor",
        "#8DB8E8",
    ]
