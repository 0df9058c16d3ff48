"""How many places read the organization's settings documents, measured from the source:
``python -m tests.support.settings_reads`` prints the calls outside `analytics/settings/` that
parse a settings document (TOML read with tomllib, tomlkit or `parse_toml`, or a document's text
given to one of its parsers, or to a wrapper named as one) and the modules holding them;
``--walk`` adds the walk, the project's files whose code runs from a budget saved on the
Settings page to the guardrail limits of Keys & limits (Streamlit's AppTest, the demo).

`tests/product/test_settings_once.py` holds the rule with the same scan: every such call is in
`analytics/settings/`. A parser's own definition may stay in its domain module (the body of
``parse_pricing`` parses), so the calls inside a parser's definition there are not counted;
every other call is.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The readers of the four documents' text, and TOML itself.
PARSERS = frozenset(
    {
        "parse_toml",
        "parse_pricing",
        "parse_teams",
        "parse_budgets",
        "parse_alerts",
        "parse_alert_settings",
        "checked_budgets",
        "rotation_settings",
        "load_pricing",
        "load_teams",
        "load_budgets",
        "load_alerts",
    }
)
TOML_LIBRARIES = frozenset({"tomllib", "tomlkit"})
# The domain modules defining the parsers: the calls inside a parser's own definition there
# are its body, not a read of the settings.
DEFINITIONS = frozenset(
    {
        "analytics/alerts/alert_settings.py",
        "analytics/capacity/budgets/definitions.py",
        "analytics/cost/priced.py",
        "analytics/cost/prices.py",
        "analytics/cost/teams.py",
        "analytics/storage/tomlfiles.py",
    }
)
# The one module outside analytics/settings/ that reads TOML which is not a settings document:
# `serve` reads Streamlit's own .streamlit/config.toml.
NOT_SETTINGS = frozenset({"analytics/cli/serve.py"})


@dataclass(frozen=True)
class Call:
    """One call that parses a settings document: where, and what it calls."""

    module: str
    line: int
    called: str

    def __str__(self) -> str:
        return f"{self.module}:{self.line}: {self.called}"


def project_files() -> Iterator[Path]:
    """The product's source: the analytics package, the pages and app.py."""
    yield from sorted((ROOT / "analytics").rglob("*.py"))
    yield from sorted((ROOT / "app_pages").rglob("*.py"))
    yield ROOT / "app.py"


def _aliases(tree: ast.AST) -> dict[str, str]:
    """The parsers a module imports under another name (``rotation_settings as rotations``)."""
    return {
        alias.asname: alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname and alias.name in PARSERS
    }


def _called(node: ast.Call, aliases: dict[str, str]) -> str | None:
    """The name a call parses with, or None: ``parse_pricing(...)``, ``tomllib.loads(...)``."""
    func = node.func
    if isinstance(func, ast.Name) and (func.id in PARSERS or func.id in aliases):
        return aliases.get(func.id, func.id)
    if isinstance(func, ast.Attribute):
        if func.attr in PARSERS:
            return func.attr
        if isinstance(func.value, ast.Name) and func.value.id in TOML_LIBRARIES:
            return f"{func.value.id}.{func.attr}"
    return None


def calls_in(
    tree: ast.AST, module: str, aliases: dict[str, str], inside_parser: bool = False
) -> Iterator[Call]:
    for node in ast.iter_child_nodes(tree):
        parser = (
            module in DEFINITIONS
            and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name in PARSERS
        )
        if isinstance(node, ast.Call) and not inside_parser and (name := _called(node, aliases)):
            yield Call(module, node.lineno, name)
        yield from calls_in(node, module, aliases, inside_parser or parser)


def parse_calls(include_settings: bool = False) -> list[Call]:
    """Every call parsing a settings document outside `analytics/settings/` (with
    ``include_settings``, inside it too), in file and line order."""
    found: list[Call] = []
    for path in project_files():
        module = path.relative_to(ROOT).as_posix()
        inside = module.startswith("analytics/settings/")
        if (inside and not include_settings) or module in NOT_SETTINGS:
            continue
        tree = ast.parse(path.read_text(), module)
        found.extend(calls_in(tree, module, _aliases(tree)))
    return sorted(found, key=lambda call: (call.module, call.line))


def walk() -> list[str]:
    """The project's files whose code runs from a budget saved on the Settings page (as a
    settings administrator of the demo organization) to Keys & limits' guardrails drawn."""
    import os
    import tempfile
    import threading

    from analytics.pages import page_at
    from analytics.usage import calendar
    from support.headless import DEMO, TODAY, app_test

    calendar.utc_today = lambda: TODAY
    folder = Path(tempfile.mkdtemp(prefix="settings-walk-"))
    os.environ.update(DEMO | {"SERVICE_HISTORY_PATH": str(folder / "history")})
    os.chdir(folder)
    at = app_test()
    at.secrets["ADMIN_EMAILS"] = []
    at.secrets["SETTINGS_ADMIN_EMAILS"] = ["ops@example.org"]
    at.user = {"is_logged_in": True, "email": "ops@example.org"}
    at.switch_page(str(page_at("settings").file))
    at.run()
    budgets = (ROOT / "budgets.example.toml").read_text()
    at.text_area(key="settings_text_budgets").set_value(
        budgets.replace("limit = 3_200_000", "limit = 3_300_000")
    )
    at.button(key="settings_preview_budgets").click().run()
    seen: set[str] = set()

    def profile(frame, event, arg):  # type: ignore[no-untyped-def]
        if event == "call":
            seen.add(frame.f_code.co_filename)

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        at.button(key="settings_save_budgets").click().run()
        at.switch_page(str(page_at("limits").file))
        at.query_params["guardrails"] = "true"
        at.run()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    assert not at.exception, at.exception
    ours = {Path(name).resolve() for name in seen}
    return sorted(
        path.relative_to(ROOT).as_posix()
        for path in ours
        if path.is_relative_to(ROOT / "analytics")
        or path.is_relative_to(ROOT / "app_pages")
        or path == ROOT / "app.py"
    )


def main(arguments: list[str]) -> None:
    calls = parse_calls()
    modules = sorted({call.module for call in calls})
    print(f"parse calls outside analytics/settings/: {len(calls)} in {len(modules)} modules")
    for module in modules:
        lines = [str(call.line) for call in calls if call.module == module]
        names = sorted({call.called for call in calls if call.module == module})
        print(f"  {module} ({len(lines)}: {', '.join(names)}; lines {', '.join(lines)})")
    if "--walk" in arguments:
        files = walk()
        folders = sorted({name.rsplit("/", 1)[0] if "/" in name else "." for name in files})
        print(
            f"walk, a budget saved to the guardrail limits: {len(files)} files "
            f"in {len(folders)} folders"
        )
        for name in files:
            print(f"  {name}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tests"))
    main(sys.argv[1:])
