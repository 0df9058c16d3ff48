"""`serve`: the dashboard, as `streamlit run` starts it, from a checkout or an installed
package alike.

Streamlit reads its settings from `.streamlit/config.toml` in the working folder, which an
installed command run from anywhere does not have; so the project's settings (loopback only,
no file watcher, the theme) are passed as options, and the options given after `serve` come
last and win (`--server.port 8502`, `--server.baseUrlPath usage`). Secrets (the service key,
sign-in) are still read from the working folder's `.streamlit/secrets.toml` and the
environment.
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path
from typing import Any

import typer

from analytics.cli.program import app
from analytics.storage import bundle_folder


def streamlit_options(config: Path) -> list[str]:
    """A Streamlit config file as `streamlit run` options: `--section.name value` each, and
    `--section.table.name value` for a nested table (`[theme.dark]`)."""
    return _options(tomllib.loads(config.read_text()), "--")


def _options(table: dict[str, Any], prefix: str) -> list[str]:
    options = []
    for name, value in table.items():
        if isinstance(value, dict):
            options += _options(value, f"{prefix}{name}.")
        else:
            shown = str(value).lower() if isinstance(value, bool) else str(value)
            options += [f"{prefix}{name}", shown]
    return options


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def serve(ctx: typer.Context) -> None:
    """Start the dashboard (streamlit run) with the project's settings; Streamlit options
    given after serve win, e.g. --server.port 8502 --server.baseUrlPath usage."""
    folder = bundle_folder()
    defaults = streamlit_options(folder / ".streamlit" / "config.toml")
    command = [sys.executable, "-m", "streamlit", "run", str(folder / "app.py")]
    # The process becomes Streamlit, so systemd's signals and exit status reach it directly.
    os.execv(sys.executable, [*command, *defaults, *ctx.args])  # noqa: S606
