"""Where the files that ship beside the library live: the dashboard (`app.py`, `app_pages/`), its
Streamlit settings (`.streamlit/config.toml`) and the example configuration files.

In a checkout they sit at the repository's root, the folder above `analytics/`. Installed with
pip they sit in the `usage_dashboard` folder beside `analytics/` in site-packages (see
`pyproject.toml`), since a wheel has no root of its own. One rule finds both, so the demo's
example files and `usage-dashboard serve` work the same from a checkout and an install.
"""

from __future__ import annotations

from pathlib import Path

_BESIDE_LIBRARY = Path(__file__).resolve().parents[2]


def bundle_folder() -> Path:
    """The folder holding `app.py`: the checkout's root, else the installed `usage_dashboard`."""
    if (_BESIDE_LIBRARY / "app.py").is_file():
        return _BESIDE_LIBRARY
    return _BESIDE_LIBRARY / "usage_dashboard"


def organization_file(name: str, given: Path | None, folder: Path, demo: bool) -> Path | None:
    """Which ``name``.toml describes the organization (``pricing``, ``teams``, ``budgets``,
    ``alerts``): the one given; else the one in ``folder`` when present; else, in demo mode,
    the shipped example, so the demo shows money and budgets. None: there is none."""
    if given is not None:
        return given
    if (folder / f"{name}.toml").is_file():
        return folder / f"{name}.toml"
    example = bundle_folder() / f"{name}.example.toml"
    return example if demo and example.is_file() else None
