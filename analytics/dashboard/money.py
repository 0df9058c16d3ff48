"""The money files the dashboard uses: uploads, or `pricing.toml` / `teams.toml` beside the
dashboard, or (demo) the examples. Kept as text: the cache keys of the money views."""

from __future__ import annotations

from pathlib import Path

from streamlit.runtime.uploaded_file_manager import UploadedFile

from analytics.cost.files import money_file


def money_text(name: str, uploaded: UploadedFile | None, demo: bool) -> str | None:
    """The text of ``name``.toml in force, or None (usage only)."""
    if uploaded is not None:
        return uploaded.getvalue().decode("utf-8", errors="replace")
    path = money_file(name, None, Path.cwd(), demo)
    return path.read_text(encoding="utf-8") if path else None
