"""The money files the dashboard uses: uploads, or `pricing.toml` / `teams.toml` beside the
dashboard, or (demo) the examples. Kept as text: the cache keys of the money views."""

from __future__ import annotations

from pathlib import Path

from streamlit.runtime.uploaded_file_manager import UploadedFile

from analytics.usage.bundle import organization_file


def money_text(name: str, uploaded: UploadedFile | None, demo: bool) -> str | None:
    """The text of ``name``.toml in force, or None (usage only)."""
    if uploaded is not None:
        return uploaded.getvalue().decode("utf-8", errors="replace")
    path = organization_file(name, None, Path.cwd(), demo)
    return path.read_text(encoding="utf-8") if path else None


# What a page says when a money view is asked for without its file.
NO_PRICING = (
    "Money views need prices: put a pricing.toml (and a teams.toml for the teams) beside "
    "the dashboard. See pricing.example.toml."
)
NO_TEAMS = (
    "Grouping by team needs teams: put a teams.toml beside the dashboard. See teams.example.toml."
)
