"""The project stays readable as it grows: a short front door, modules that hold one idea each,
only the libraries' public interfaces (a private import breaks silently on an upgrade), and a
type check that follows every package the library imports."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from support.servers import ROOT

README_LINES = 120
MODULE_LINES = 450
FUNCTION_LINES = 60
# The library, the emulator, the dashboard's pages and the benchmark.
PRODUCT = ("analytics", "emulator", "app_pages", "bench")
# Functions still over FUNCTION_LINES, each to be split into its steps and struck off here
# until the set is empty: a new one fails the test, and so does one split but still listed.
LONG_FUNCTIONS_BEING_SPLIT = {
    # analytics/capacity/ is being reorganized by idea; the reorganization splits this one.
    "analytics/capacity/evaluation.py:evaluate",
}
# Streamlit's documented modules; anything else under `streamlit.` is its own business.
PUBLIC_STREAMLIT = {"streamlit", "streamlit.delta_generator", "streamlit.testing.v1"}


def python_files(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules.add(node.module)
    return modules


def test_the_readme_is_a_front_door():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_LINES, f"README.md has {len(lines)} lines; the rest is the site's"


def test_no_module_holds_more_than_one_idea():
    long = {
        str(path.relative_to(ROOT)): n
        for path in python_files(*PRODUCT)
        if (n := len(path.read_text().splitlines())) > MODULE_LINES
    }
    assert len(python_files("analytics", "emulator")) > 100
    assert len(python_files("app_pages")) > 10 and len(python_files("bench")) > 10
    assert long == {}, f"over {MODULE_LINES} lines: split by idea"


def test_no_function_holds_more_than_one_step():
    """A function over FUNCTION_LINES lines (its `def` to its last line, decorators apart) holds
    several steps; each is a function named for what it does."""
    long = {
        f"{path.relative_to(ROOT)}:{node.name}": node.end_lineno - node.lineno + 1
        for path in [ROOT / "app.py", *python_files(*PRODUCT)]
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > FUNCTION_LINES
    }
    assert set(long) == LONG_FUNCTIONS_BEING_SPLIT, f"over {FUNCTION_LINES} lines: {long}"


def private(module: str) -> bool:
    """Streamlit's modules but its documented ones, and any library's module named private
    (a part starting with `_`, as Typer's own copy of click, `typer._click`)."""
    top, *rest = module.split(".")
    if top == "streamlit":
        return module not in PUBLIC_STREAMLIT
    return any(part.startswith("_") for part in rest)


def test_the_product_imports_only_public_modules():
    """The dashboard, its pages, the command line, the benchmark and the emulator. (The tests
    that speak Streamlit's wire protocol read its message definitions, `streamlit.proto`: an
    upgrade that changes them fails those tests loudly.)"""
    found = {
        f"{path.relative_to(ROOT)}: {module}"
        for path in [ROOT / "app.py", *python_files("analytics", "app_pages", "bench", "emulator")]
        for module in imported_modules(path)
        if private(module)
    }
    assert found == set()


def test_the_type_check_follows_every_package_the_library_imports():
    """pyproject.toml leaves some packages unfollowed by mypy (only the library's dependencies
    reach them); one the library imports itself would be typed as `Any` without a word."""
    overrides = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["overrides"]
    unfollowed = {
        pattern.removesuffix(".*")
        for override in overrides
        if override.get("follow_imports") == "skip"
        for pattern in override["module"]
    } - {"emulator"}  # the demo's one lazy import, checked by its own tests
    assert {"altair", "PIL", "narwhals"} <= unfollowed  # the list is the one read here
    imported = {
        module.split(".")[0]
        for path in python_files("analytics")
        for module in imported_modules(path)
    }
    assert imported & unfollowed == set()
