"""The project stays readable as it grows: a short front door, modules that hold one idea each,
package faces that say what a package answers and hold nothing but its re-exports, only the
libraries' public interfaces (a private import breaks silently on an upgrade), and a type check
that follows every package the library imports."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

from support.servers import ROOT

README_LINES = 120
MODULE_LINES = 450
# Streamlit's documented modules; anything else under `streamlit.` is its own business.
PUBLIC_STREAMLIT = {"streamlit", "streamlit.delta_generator", "streamlit.testing.v1"}
# A face's own names beside its re-exports: what it offers, and the library's version.
FACE_NAMES = {"__all__", "__version__"}
# Capacity's face comes with its split into packages by idea, each with a face of its own.
FACE_PENDING = {"analytics/capacity/__init__.py"}
# A module or name a docstring cites: `detect`, `key_specs.keep_places_free`,
# `analytics.exit_codes.EXIT_CODES` (single or double backticks; a class's name is not read).
FILE_KINDS = {"toml", "md", "json", "jsonl", "csv", "sqlite"}
CITED = re.compile(r"`+([a-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)`+")


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


def test_no_module_of_the_library_or_the_emulator_holds_more_than_one_idea():
    long = {
        str(path.relative_to(ROOT)): n
        for path in python_files("analytics", "emulator")
        if (n := len(path.read_text().splitlines())) > MODULE_LINES
    }
    assert len(python_files("analytics", "emulator")) > 100
    assert long == {}, f"over {MODULE_LINES} lines: split by idea"


def top_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level: imported, defined or assigned."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def module_file(dotted: str) -> Path | None:
    """The file of module `dotted` (`analytics.keys.audit`) in the checkout, if there is one."""
    base = ROOT.joinpath(*dotted.split("."))
    return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)


def cites_what_exists(cited: str, package: str, face: set[str]) -> bool:
    """Whether `cited` names a module of the package or of the package above it (or any, by
    its full name; `detect.py` as `detect`), or a name of the face, and then a name that module
    defines. A file of another kind (`alerts.toml`) is not a module, and is not read."""
    parts = cited.removesuffix(".py").split(".")
    if parts[-1] in FILE_KINDS:
        return True
    if parts[0] in ("analytics", "emulator"):
        bases = [""]
    elif parts[0] in face:
        return True
    else:
        bases = [package + ".", package.rpartition(".")[0] + "."]
    for base in bases:
        for i in range(len(parts), 0, -1):
            found = module_file(base + ".".join(parts[:i]))
            if found is not None:
                rest = parts[i:]
                return not rest or rest[0] in top_names(ast.parse(found.read_text()))
    return False


def face_problems(tree: ast.Module, package: str) -> list[str]:
    """What keeps an `__init__` from being a face: a statement other than its docstring,
    imports and FACE_NAMES; no `__all__`, or a name in it the face does not bind; a docstring
    citing what does not exist."""
    docstring = ast.get_docstring(tree)
    problems = [] if docstring else ["no docstring"]
    offered: list[str] = []
    for node in tree.body[1 if docstring else 0 :]:
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in FACE_NAMES
        ):
            if node.targets[0].id == "__all__":
                offered = list(ast.literal_eval(node.value))
        else:
            problems.append(f"line {node.lineno}: not an import, __all__ or __version__")
    bound = top_names(tree)
    problems += [f"{name} in __all__ is not bound" for name in offered if name not in bound]
    problems += ["no __all__"] if not offered else []
    problems += [
        f"the docstring cites `{cited}`, which does not exist"
        for cited in CITED.findall(docstring or "")
        if not cites_what_exists(cited, package, bound)
    ]
    return problems


def test_a_face_that_is_not_one_is_told():
    face = '''"""Cites `detect`, `usual.py`, `alerts.toml`, `nowhere`,
`analytics.exit_codes.NOTHING`."""
from analytics.anomalies.usual import baseline
from analytics.anomalies.detect import find_anomalies
LOOKBACK = 7
__all__ = ["baseline", "find_anomalies", "missing"]
'''
    assert face_problems(ast.parse(face), "analytics.anomalies") == [
        "line 5: not an import, __all__ or __version__",
        "missing in __all__ is not bound",
        "the docstring cites `nowhere`, which does not exist",
        "the docstring cites `analytics.exit_codes.NOTHING`, which does not exist",
    ]


def test_every_package_face_says_what_it_answers_and_only_re_exports():
    faces = [
        path
        for path in python_files("analytics", "emulator")
        if path.name == "__init__.py" and str(path.relative_to(ROOT)) not in FACE_PENDING
    ]
    found = {
        str(path.relative_to(ROOT)): problems
        for path in faces
        if (
            problems := face_problems(
                ast.parse(path.read_text()), ".".join(path.parent.relative_to(ROOT).parts)
            )
        )
    }
    assert len(faces) >= 20
    assert found == {}


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
