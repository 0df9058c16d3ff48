"""The one table of pages matches the page files on disk, and the dashboard speaks only
Streamlit's public API (a private module may change in any Streamlit release)."""

from __future__ import annotations

import ast

from support.servers import ROOT

from analytics.pages import PAGES, PAGES_FOLDER


def test_every_page_file_is_a_row_of_the_table_and_every_row_has_its_file():
    on_disk = sorted(path.name for path in (ROOT / "app_pages").glob("*.py"))
    assert sorted(page.file.name for page in PAGES) == on_disk
    assert PAGES_FOLDER == ROOT / "app_pages"


def test_titles_and_addresses_are_each_one_pages_and_one_page_is_the_root():
    assert len({page.title for page in PAGES}) == len(PAGES)
    assert len({page.url_path for page in PAGES}) == len(PAGES)
    assert [page.address for page in PAGES].count("") == 1


def imported_modules(path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def is_private(module: str) -> bool:
    """A Streamlit module not meant for callers: its runtime, or a name with an underscore."""
    top, *parts = module.split(".")
    return top == "streamlit" and (parts[:1] == ["runtime"] or any(p[:1] == "_" for p in parts))


def test_no_module_imports_a_private_part_of_streamlit():
    sources = [ROOT / "app.py"]
    sources += [
        path
        for folder in ("analytics", "app_pages", "bench")
        for path in (ROOT / folder).rglob("*.py")
    ]
    private = [
        (str(path.relative_to(ROOT)), name)
        for path in sources
        for name in imported_modules(path)
        if is_private(name)
    ]
    assert is_private("streamlit._internal") and not is_private("streamlit.testing.v1")
    assert len(sources) > 50
    assert private == []
