"""Where the files that ship beside the library live: the dashboard (`app.py`, `pages/`), its
Streamlit settings (`.streamlit/config.toml`) and the example configuration files.

In a checkout they sit at the repository's root, the folder above `analytics/`. Installed with
pip they sit in the `usage_dashboard` folder beside `analytics/` in site-packages (see
`pyproject.toml`), since a wheel has no root of its own. One rule finds both, so the demo's
example prices and `usage-dashboard serve` work the same from a checkout and an install.
"""

from __future__ import annotations

from pathlib import Path

_BESIDE_LIBRARY = Path(__file__).resolve().parents[2]


def bundle_folder() -> Path:
    """The folder holding `app.py`: the checkout's root, else the installed `usage_dashboard`."""
    if (_BESIDE_LIBRARY / "app.py").is_file():
        return _BESIDE_LIBRARY
    return _BESIDE_LIBRARY / "usage_dashboard"
