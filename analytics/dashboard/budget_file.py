"""The budgets the Capacity page uses: an upload, or the budgets in force (the settings every
surface reads, as the `report` command does)."""

from __future__ import annotations

from analytics.capacity.budgets import BudgetFile, BudgetFileError, parse_budgets
from analytics.dashboard.money_files import in_force
from analytics.dashboard.source import Source
from analytics.dashboard.uploads import UploadedFile


def chosen_budgets(
    uploaded: UploadedFile | None, src: Source
) -> tuple[BudgetFile | None, str | None]:
    """The budgets in force (an upload, else the settings') the session's scope sees, and the
    problem that stopped reading them, if any."""
    try:
        if uploaded is not None:
            read = parse_budgets(uploaded.getvalue().decode("utf-8"), uploaded.name)
            return src.visible.budgets(read), None
        found = in_force("budgets", src)
        if found is not None:
            return src.visible.budgets(parse_budgets(found.text, found.where)), None
    except (BudgetFileError, UnicodeDecodeError) as exc:
        return None, str(exc)
    return None, None
