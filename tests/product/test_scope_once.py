"""The session's scope is applied once, where the front ends read: no page or command reads
the organization's reports, source or key list around it.

Each organization-wide reader is named by the one module allowed to use it (the reader the
scope wraps); any other front-end module naming it, by import or as an attribute of its
module, would read what a team's lead may not see.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FRONT_ENDS = sorted(
    [
        *ROOT.glob("analytics/cli/*.py"),
        *ROOT.glob("analytics/dashboard/**/*.py"),
        *ROOT.glob("app_pages/*.py"),
        ROOT / "app.py",
    ]
)
# reader (module, name) -> the front-end modules allowed to name it
READERS: dict[tuple[str, str], set[str]] = {
    # every daily report of the organization: read, then narrowed by `Visible.report`
    ("analytics.exports.vocabulary", "REPORTS"): {
        "analytics/dashboard/data.py",
        "analytics/cli/fetching.py",
    },
    # the organization's source, before the session's scope
    ("analytics.dashboard.source", "organization_source"): {"analytics/dashboard/visitor.py"},
    # the organization's source behind a session's, for the guardrails' plan, which
    # `guardrails.seen.seen_plan` narrows
    ("analytics.dashboard.source", "whole_of"): {"analytics/dashboard/guardrails.py"},
    # the organization's key list, which only a change checks against
    ("analytics.dashboard.key_list", "organization_keys"): {
        "analytics/dashboard/key_list.py",
        "analytics/dashboard/keys_and_limits/key_changes.py",
    },
}


def named(path: Path) -> set[tuple[str, str]]:
    """The readers a module names: imported from their module, or read as an attribute of
    the module imported (``from analytics.dashboard import key_list`` then
    ``key_list.organization_keys``)."""
    tree = ast.parse(path.read_text())
    modules: dict[str, str] = {}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                found.add((node.module, alias.name))
                modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = modules.get(node.value.id)
            if module is not None:
                found.add((module, node.attr))
    return found & set(READERS)


def test_the_readers_exist() -> None:
    """A reader renamed would let a front end use it unseen: each is where it is named."""
    for module, name in READERS:
        assert hasattr(importlib.import_module(module), name), (module, name)


def test_a_reader_named_around_the_scope_is_found(tmp_path: Path) -> None:
    page = tmp_path / "page.py"
    page.write_text(
        "from analytics.dashboard import key_list\n"
        "from analytics.exports.vocabulary import REPORTS\n"
        "keys = key_list.organization_keys(source)\n"
    )
    assert named(page) == {
        ("analytics.exports.vocabulary", "REPORTS"),
        ("analytics.dashboard.key_list", "organization_keys"),
    }


def test_no_page_or_command_reads_around_the_scope() -> None:
    around = {
        f"{path.relative_to(ROOT)}: {module}.{name}"
        for path in FRONT_ENDS
        for module, name in named(path)
        if str(path.relative_to(ROOT)) not in READERS[module, name]
    }
    assert around == set()
