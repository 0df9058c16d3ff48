"""The project stays readable as it grows: a short front door, modules that hold one idea each,
package faces that say what a package answers and hold nothing but its re-exports, only the
libraries' public interfaces (a private import breaks silently on an upgrade), and a type check
that follows every package the library imports."""

from __future__ import annotations

import ast
import re
import tomllib
from collections import defaultdict
from pathlib import Path

from support.faces import imported, past_faces, product_files
from support.servers import ROOT

README_LINES = 120
MODULE_LINES = 450
FUNCTION_LINES = 60
# The library, the emulator, the dashboard's pages and the benchmark.
PRODUCT = ("analytics", "emulator", "app_pages", "bench")
# Streamlit's documented modules; anything else under `streamlit.` is its own business.
PUBLIC_STREAMLIT = {"streamlit", "streamlit.delta_generator", "streamlit.testing.v1"}
# A face's own names beside its re-exports: what it offers, and the library's version.
FACE_NAMES = {"__all__", "__version__"}
# A module or name a docstring cites: `detect`, `key_specs.keep_places_free`,
# `analytics.exit_codes.EXIT_CODES` (single or double backticks; a class's name is not read).
FILE_KINDS = {"toml", "md", "json", "jsonl", "csv", "sqlite"}
CITED = re.compile(r"`+([a-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)`+")


def python_files(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def imported_modules(path: Path) -> set[str]:
    return set(imported(path.read_text(), str(path)))


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
    assert long == {}, f"over {FUNCTION_LINES} lines: split into steps"


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
    faces = [path for path in python_files("analytics", "emulator") if path.name == "__init__.py"]
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


# The module names (a file's, or a package's folder's) that several modules share, each for
# one idea served from several sides: a domain and its front ends (command, page, figure,
# report section), the emulator's side of an operation the library calls, a benchmark of what
# it measures. Any other repeat is a name that says too little of what its module holds.
SHARED_NAMES: dict[str, tuple[str, set[str]]] = {
    "access": (
        "who may see and change what",
        {"analytics/access", "analytics/dashboard/access.py"},
    ),
    "anomalies": (
        "the anomalies",
        {
            "analytics/anomalies",
            "analytics/dashboard/anomalies",
            "analytics/figures/anomalies.py",
            "app_pages/anomalies.py",
            "bench/anomalies.py",
        },
    ),
    "capacity": (
        "the capacity review",
        {
            "analytics/capacity",
            "analytics/cli/capacity.py",
            "analytics/dashboard/capacity",
            "analytics/figures/capacity.py",
            "app_pages/capacity.py",
            "bench/capacity.py",
        },
    ),
    "chargeback": (
        "the chargeback per team",
        {
            "analytics/cost/chargeback.py",
            "analytics/dashboard/chargeback",
            "app_pages/chargeback.py",
        },
    ),
    "dashboard": ("the dashboard", {"analytics/dashboard", "bench/dashboard.py"}),
    "decision": (
        "the capacity decision",
        {
            "analytics/capacity/decision",
            "analytics/figures/decision.py",
            "analytics/reports/decision.py",
        },
    ),
    "decoding": (
        "the service's answers decoded",
        {"analytics/service/decoding.py", "bench/decoding.py"},
    ),
    "demo": ("the demo organization", {"analytics/cli/demo.py", "analytics/service/demo.py"}),
    "documents": (
        "the document upload",
        {"emulator/documents.py", "emulator/routers/documents.py"},
    ),
    "errors": (
        "the service's errors, raised by its client and answered by the emulator",
        {"analytics/service/errors.py", "emulator/errors.py"},
    ),
    "export": (
        "the Export page",
        {"analytics/dashboard/export", "app_pages/export.py"},
    ),
    "exports": (
        "the exports",
        {"analytics/exports", "analytics/cli/exports.py", "bench/exports.py"},
    ),
    "guardrails": (
        "the guardrails",
        {
            "analytics/guardrails",
            "analytics/cli/guardrails.py",
            "analytics/dashboard/guardrails.py",
            "bench/guardrails.py",
        },
    ),
    "keys": (
        "the developer keys",
        {
            "analytics/keys",
            "analytics/cli/keys.py",
            "analytics/dashboard/keys",
            "analytics/usage/tables/keys.py",
            "app_pages/keys.py",
            "emulator/routers/keys.py",
        },
    ),
    "languages": (
        "the languages and their detection",
        {
            "analytics/dashboard/languages",
            "analytics/languages.py",
            "app_pages/languages.py",
            "emulator/routers/languages.py",
        },
    ),
    "limits": ("the keys' own limits", {"analytics/keys/limits.py", "app_pages/limits.py"}),
    "overview": (
        "the range at a glance",
        {"analytics/dashboard/overview", "app_pages/overview.py"},
    ),
    "page_layout": (
        "a page's widgets, in its package of the dashboard",
        {
            "analytics/dashboard/anomalies/page_layout.py",
            "analytics/dashboard/capacity/page_layout.py",
            "analytics/dashboard/chargeback/page_layout.py",
            "analytics/dashboard/export/page_layout.py",
            "analytics/dashboard/keys/page_layout.py",
            "analytics/dashboard/keys_and_limits/page_layout.py",
            "analytics/dashboard/languages/page_layout.py",
            "analytics/dashboard/overview/page_layout.py",
            "analytics/dashboard/pairs/page_layout.py",
            "analytics/dashboard/settings/page_layout.py",
            "analytics/dashboard/tags/page_layout.py",
            "analytics/dashboard/trends/page_layout.py",
        },
    ),
    "pairs": (
        "the language pairs",
        {
            "analytics/dashboard/pairs",
            "analytics/usage/tables/pairs.py",
            "app_pages/pairs.py",
            "bench/pairs.py",
        },
    ),
    "plan": (
        "the plan and its usage, `GET /v2/usage`",
        {"emulator/plan.py", "emulator/routers/plan.py"},
    ),
    "reports": ("the meeting report", {"analytics/reports", "analytics/cli/reports.py"}),
    "settings": (
        "the organization's settings",
        {
            "analytics/settings",
            "analytics/cli/settings.py",
            "analytics/dashboard/settings",
            "app_pages/settings.py",
        },
    ),
    "settings_in_force": (
        "the settings in force as a front end reads them",
        {"analytics/cli/settings_in_force.py", "analytics/dashboard/settings_in_force.py"},
    ),
    "spend": ("the spend", {"analytics/cost/spend.py", "analytics/reports/spend.py"}),
    "state": ("the state store", {"analytics/cli/state.py", "bench/state.py"}),
    "tags": (
        "the custom tags",
        {
            "analytics/dashboard/tags",
            "analytics/usage/tables/tags.py",
            "app_pages/tags.py",
            "bench/tags.py",
        },
    ),
    "trends": ("the usage over time", {"analytics/dashboard/trends", "app_pages/trends.py"}),
    "usage": ("the usage", {"analytics/usage", "analytics/figures/usage.py"}),
    "windows": ("the request windows", {"analytics/usage/windows.py", "bench/windows.py"}),
}
NAMED_FOLDERS = ("analytics", "app_pages", "bench", "emulator")


def module_names() -> dict[str, set[str]]:
    """Each module name of the product with the paths that carry it: a module's file, or a
    package's folder (its ``__init__``); ``__main__`` and the top folders are no names."""
    names: dict[str, set[str]] = defaultdict(set)
    for path in python_files(*NAMED_FOLDERS):
        if path.name == "__init__.py" and path.parent.name not in NAMED_FOLDERS:
            names[path.parent.name].add(str(path.parent.relative_to(ROOT)))
        elif path.name not in {"__init__.py", "__main__.py"}:
            names[path.stem].add(str(path.relative_to(ROOT)))
    return names


def test_two_modules_share_a_name_only_to_serve_one_idea():
    """A name found in more places than `SHARED_NAMES` declares is a new module to name after
    what it holds (or, serving the same idea from another side, a path to declare there)."""
    found = {name: paths for name, paths in module_names().items() if len(paths) > 1}
    declared = {name: paths for name, (_, paths) in SHARED_NAMES.items()}
    wrong = [
        f"{name}: {sorted(found.get(name, set()))}, declared {sorted(declared.get(name, set()))}"
        for name in sorted(found.keys() | declared.keys())
        if found.get(name) != declared.get(name)
    ]
    assert wrong == [], "modules sharing a name:\n" + "\n".join(wrong)


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


def test_the_pages_and_the_benchmark_read_capacity_through_its_faces():
    """The library's packages are held to capacity's faces by import-linter (pyproject.toml);
    the pages, app.py and the benchmark lie outside the packages it reads, so this holds them:
    a module inside a face may move or split without a caller noticing."""
    capacity = ROOT / "analytics" / "capacity"
    faces = {"analytics.capacity"} | {
        f"analytics.capacity.{face.parent.name}" for face in capacity.glob("*/__init__.py")
    }
    assert faces >= {"analytics.capacity.budgets", "analytics.capacity.forecasting"}
    found = {
        f"{path.relative_to(ROOT)}: {module}"
        for path in [ROOT / "app.py", *python_files("app_pages", "bench")]
        for module in imported_modules(path)
        if module.startswith("analytics.capacity") and module not in faces
    }
    assert found == set()


def test_an_import_past_a_face_is_told():
    text = (
        "from analytics.cost.prices import Pricing\n"
        "from analytics.cost import Teams\n"
        "from analytics.usage import calendar\n"
        "import analytics.keys.audit\n"
        "from analytics.dashboard.page import header\n"
    )
    past = {"analytics.keys.audit", "analytics.dashboard.page"}
    for where, more in (
        ("analytics/cli/x.py", {"analytics.cost.prices"}),
        ("analytics/cost/x.py", set()),
        ("app_pages/x.py", {"analytics.cost.prices"}),
    ):
        assert past_faces(ROOT, text, Path(where)) == {f"{where}: {m}" for m in past | more}


def test_a_package_is_read_through_its_face():
    """A module inside a face may move or split without a caller noticing: what the library,
    the pages and app.py take from another package, they take from its face."""
    found = set().union(
        *(past_faces(ROOT, (ROOT / where).read_text(), where) for where in product_files(ROOT))
    )
    assert found == set()


def outside_dashboard(text: str) -> set[str]:
    """The modules a page's ``text`` imports that are neither Streamlit nor a face of the
    dashboard (`analytics.dashboard`, or a page's own package of it)."""
    found = set()
    for module in imported(text):
        parts = module.split(".")
        face = parts[:2] == ["analytics", "dashboard"] and len(parts) <= 3
        if parts[0] not in ("__future__", "streamlit") and not (
            face and module_file(module) == ROOT.joinpath(*parts, "__init__.py")
        ):
            found.add(module)
    return found


def test_a_page_outside_the_dashboards_faces_is_told():
    text = (
        "from __future__ import annotations\nimport streamlit as st\n"
        "from analytics.dashboard import visitor\nfrom analytics.dashboard.settings import x\n"
        "from analytics.dashboard.data import View\nfrom analytics.cost import Pricing\n"
        "import pandas as pd\n"
    )
    assert outside_dashboard(text) == {"analytics.dashboard.data", "analytics.cost", "pandas"}


def test_a_page_imports_only_the_dashboards_faces_and_streamlit():
    """Every page is grouped into its package of the dashboard: it reads the visitor and calls
    its layout, and what it draws and how it reads is the package's."""
    found = {path.stem for path in python_files("app_pages") if outside_dashboard(path.read_text())}
    assert found == set()
