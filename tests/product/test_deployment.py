"""The manual's deployment (docs/deployment.md), checked where it can be without a server to
install it on: its systemd units pass systemd's own checker, and the dashboard unit, the proxy
and the sign-in example agree on address, port and base path. (`tests/dashboard/test_signin.py` runs
the dashboard with the unit's options and signs in under the base path.)"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from support.browsers import unavailable
from support.manual import dashboard_options, nginx_config, page, systemd_units

from analytics import pages
from analytics.access.roles import TEAM_ROLES, Grant, Role

INSTALLED = "/opt/usage-dashboard"
ROOT = Path(__file__).resolve().parents[2]


def test_the_manual_shows_the_dashboard_export_alert_and_report_units():
    assert set(systemd_units()) == {
        "usage-dashboard.service",
        "usage-api.service",
        "usage-export.service",
        "usage-export.timer",
        "usage-dataset.service",
        "usage-dataset.timer",
        "usage-budget-alerts.service",
        "usage-budget-alerts.timer",
        "usage-anomaly-alerts.service",
        "usage-anomaly-alerts.timer",
        "usage-report.service",
        "usage-report.timer",
        "usage-guardrails.service",
        "usage-guardrails.timer",
    }


def test_a_delivered_budget_warning_is_a_success_and_an_undelivered_alert_is_not():
    unit = systemd_units()["usage-budget-alerts.service"].splitlines()
    assert "SuccessExitStatus=10 11" in unit  # check-budgets' warning and exceeded
    assert any(line.endswith("check-budgets --budgets budgets.toml --notify") for line in unit)


def test_the_units_pass_systemd_analyze_verify(tmp_path):
    checker = shutil.which("systemd-analyze")
    if checker is None:
        unavailable("systemd-analyze is not installed (apt-get install systemd)")
    # The command the units start: this checkout's, in place of the one installed in /opt.
    command = tmp_path / "venv" / "bin" / "usage-dashboard"
    command.parent.mkdir(parents=True)
    command.write_text(f'#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m analytics "$@"\n')
    command.chmod(0o755)
    units = tmp_path / "units"
    units.mkdir()
    for name, text in systemd_units().items():
        (units / name).write_text(text.replace(f"{INSTALLED}/venv", str(command.parent.parent)))
    checked = subprocess.run(
        [checker, "verify", *sorted(str(path) for path in units.iterdir())],
        cwd=units,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stderr
    assert checked.stderr.strip() == ""


def test_the_dashboard_unit_restarts_as_its_own_user_with_the_key_from_a_file():
    unit = systemd_units()["usage-dashboard.service"].splitlines()
    assert "User=usage-dashboard" in unit
    assert "EnvironmentFile=/etc/usage-dashboard.env" in unit
    assert "Restart=on-failure" in unit
    assert not any("SERVICE_AUTH_KEY" in line for line in unit)  # the key stays in the file


def test_proxy_unit_and_sign_in_agree_on_address_port_and_path():
    options = dashboard_options()
    value = {name: options[options.index(name) + 1] for name in options if name.startswith("--")}
    assert value == {
        "--server.address": "127.0.0.1",
        "--server.port": "8501",
        "--server.baseUrlPath": "usage",
    }
    proxy = nginx_config()
    assert "location /usage/ {" in proxy
    assert "proxy_pass http://127.0.0.1:8501;" in proxy
    assert "proxy_set_header Upgrade $http_upgrade;" in proxy
    assert "proxy_set_header Host $host;" in proxy
    assert 'redirect_uri = "https://dash.example.org/usage/oauth2callback"' in page("deployment")


def who_sees_what() -> tuple[list[str], dict[str, list[str]]]:
    """The deployment guide's table of every surface, role by role: its role columns, and
    each row's cells by its first."""
    lines = page("deployment").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| surface |"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    head, _, *body = rows
    return head[1:], {row[0]: row[1:] for row in body}


def test_who_sees_what_has_every_role_page_and_download():
    """A column per role of `analytics.access.roles` (a team's roles over team T), a row per
    page of the page table and per download a page declares, each row a cell per role."""
    columns, rows = who_sees_what()
    teams = {role: (None, "T") if role in TEAM_ROLES else (None,) for role in Role}
    teams[Role.TEAM_LEAD] = ("T",)  # a team lead always names a team
    expected = [str(Grant(role, team)) for role in Role for team in teams[role]]
    assert sorted(columns) == sorted(expected)
    assert {row.title for row in pages.PAGES} <= set(rows)
    downloads = {
        f"{row.title}: {download.text(paper='A4')}"
        for row in pages.PAGES
        for download in row.downloads
    }
    assert downloads <= set(rows)
    assert all(len(cells) == len(columns) for cells in rows.values()), rows
