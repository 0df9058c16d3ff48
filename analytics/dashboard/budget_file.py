"""The budgets file the Capacity page uses: an upload, or the one the report's settings find
(`budgets.toml` beside the dashboard, or in demo mode the example), as the `report` command
does."""

from __future__ import annotations

from pathlib import Path

from analytics.capacity.budgets import BudgetFile, BudgetFileError, load_budgets, parse_budgets
from analytics.dashboard.uploads import UploadedFile


def chosen_budgets(
    uploaded: UploadedFile | None, path: Path | None
) -> tuple[BudgetFile | None, str | None]:
    """The budgets in force (an upload, else the file at `path`) and the problem that stopped
    reading them, if any."""
    try:
        if uploaded is not None:
            return parse_budgets(uploaded.getvalue().decode("utf-8"), uploaded.name), None
        if path is not None:
            return load_budgets(path), None
    except (BudgetFileError, UnicodeDecodeError) as exc:
        return None, str(exc)
    return None, None
