"""The budgets file the Capacity page uses: an upload, or `budgets.toml` beside the dashboard,
or (demo) the example, found by the rule the money files follow."""

from __future__ import annotations

from pathlib import Path

from streamlit.runtime.uploaded_file_manager import UploadedFile

from analytics.capacity.budgets import BudgetFile, BudgetFileError, load_budgets, parse_budgets
from analytics.usage.bundle import organization_file

BUDGETS_FILE = Path("budgets.toml")


def chosen_budgets(
    uploaded: UploadedFile | None, demo: bool
) -> tuple[BudgetFile | None, str | None]:
    """The budgets in force and the problem that stopped reading them, if any."""
    try:
        if uploaded is not None:
            return parse_budgets(uploaded.getvalue().decode("utf-8"), uploaded.name), None
        path = organization_file("budgets", None, Path.cwd(), demo)
        if path is not None:
            return load_budgets(path), None
    except (BudgetFileError, UnicodeDecodeError) as exc:
        return None, str(exc)
    return None, None
