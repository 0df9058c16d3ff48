"""The settings in force answer once: no module outside `analytics/settings/` parses a settings
document (TOML through tomllib, tomlkit or `parse_toml`, or a document's text given to one of
its parsers); pages and commands take `settings.in_force.SettingsInForce`, built once per run
by the dashboard (`dashboard.settings_in_force.page_settings`) and once per command
(`cli.settings_in_force.command_settings`), and read its parsed values. The scan is
`support.settings_reads`, which ``python -m tests.support.settings_reads`` prints."""

from __future__ import annotations

import ast

from support.settings_reads import calls_in, parse_calls


def test_no_module_outside_the_settings_parses_a_settings_document() -> None:
    found = [str(call) for call in parse_calls()]
    assert found == [], "parse the settings in analytics/settings/ (SettingsInForce)"


def test_the_scan_finds_each_way_of_parsing() -> None:
    planted = """
import tomllib
from analytics.alerts.alert_settings import rotation_settings as rotations
from analytics.cost import prices


def shown(text):
    tomllib.loads(text)
    prices.parse_pricing(text)
    rotations(text, "alerts.toml")
    return parse_teams(text)
"""
    calls = list(
        calls_in(ast.parse(planted), "app_pages/planted.py", {"rotations": "rotation_settings"})
    )
    assert [(call.line, call.called) for call in calls] == [
        (8, "tomllib.loads"),
        (9, "parse_pricing"),
        (10, "rotation_settings"),
        (11, "parse_teams"),
    ]
