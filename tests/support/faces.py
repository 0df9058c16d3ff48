"""Imports between packages and the faces they go through: which imports take a name from
another package past its face (its ``__init__``), for the layout test and for anyone measuring
a checkout: ``python -m tests.support.faces [CHECKOUT]`` prints how many imports cross from one
package to another and lists those that pass a face."""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def face_of(root: Path, package: str, module: str) -> str | None:
    """The face an import of ``module`` from ``package`` names: the outermost package holding
    the module and not the importer (`analytics.capacity` for `analytics.capacity.forecasting`
    read from `analytics.cli`); None within one package. The pages and app.py (package "")
    read the dashboard's, or a page's own package of it (`analytics.dashboard.settings`)."""
    parts = module.split(".")
    own = root.joinpath(*parts[:3]) / "__init__.py"
    if package == "" and parts[:2] == ["analytics", "dashboard"] and own.is_file():
        return ".".join(parts[:3])  # a page's own package of the dashboard
    for depth in range(2 if package == "" else 1, len(parts) + 1):
        face = ".".join(parts[:depth])
        inside = package == face or package.startswith(face + ".")
        if (root.joinpath(*parts[:depth]) / "__init__.py").is_file() and not inside:
            return face
    return None


def imported(text: str, where: str = "<text>") -> list[str]:
    """The modules a module's ``text`` imports by absolute name, one per import of each, in
    the order they are met."""
    found = []
    for node in ast.walk(ast.parse(text, where)):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return found


def crossings(root: Path, text: str, where: Path) -> list[tuple[str, str]]:
    """Each import of the module ``where`` (its ``text``, ``where`` relative to ``root``) of a
    module of another package: the module imported and the face it should name. A module
    taken from a package (`from analytics.usage import calendar`) is read through it."""
    folder = where.parent.parts
    package = "" if folder in ((), ("app_pages",)) else ".".join(folder)
    found = []
    for module in imported(text, str(where)):
        face = face_of(root, package, module) if module.startswith("analytics.") else None
        if face is not None:
            found.append((module, face))
    return found


def past_faces(root: Path, text: str, where: Path) -> set[str]:
    """The imports of ``where`` that take a name from another package past its face."""
    return {f"{where}: {module}" for module, face in crossings(root, text, where) if module != face}


def product_files(root: Path) -> list[Path]:
    """The library's modules, the pages and app.py, relative to ``root``."""
    found = [
        root / "app.py",
        *(root / "analytics").rglob("*.py"),
        *(root / "app_pages").glob("*.py"),
    ]
    return sorted(path.relative_to(root) for path in found)


def main(root: Path) -> None:
    total, past = 0, []
    for where in product_files(root):
        text = (root / where).read_text()
        total += len(crossings(root, text, where))
        past += sorted(past_faces(root, text, where))
    print(f"imports from another package: {total}; past its face: {len(past)}")
    print("\n".join(past))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
