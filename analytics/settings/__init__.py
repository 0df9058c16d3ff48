"""The organization's settings (prices, teams with their keys' owners, budgets, alert routes):
what each of the four documents is and the one check every surface applies to them (`parts`),
their versions in the state store (`versions`), the one reader of the settings in force
(`in_force`: `settings_in_force`, one parsed object, `SettingsInForce`), and what a change
would do (`field_changes`, field by field; `effects`, beyond its fields)."""

from analytics.settings.effects import plan_effect, route_effects, team_effects, total_cost
from analytics.settings.field_changes import differences, line_diff
from analytics.settings.in_force import (
    Document,
    Naming,
    Place,
    SettingsInForce,
    Texts,
    document,
    first_start,
    settings_in_force,
)
from analytics.settings.organization_names import Organization, organization, used_range
from analytics.settings.parts import (
    PARTS,
    TITLES,
    Part,
    SettingsProblem,
    check,
    checked_budgets,
    file_name,
    part_of,
    route_warning,
)
from analytics.settings.succession import carry_over
from analytics.settings.versions import (
    NONE_YET,
    SavedMeanwhile,
    Version,
    history,
    latest,
    save,
    version,
)

__all__ = [
    "NONE_YET",
    "PARTS",
    "TITLES",
    "Document",
    "Naming",
    "Organization",
    "Part",
    "Place",
    "SavedMeanwhile",
    "SettingsInForce",
    "SettingsProblem",
    "Texts",
    "Version",
    "carry_over",
    "check",
    "checked_budgets",
    "differences",
    "document",
    "file_name",
    "first_start",
    "history",
    "latest",
    "line_diff",
    "organization",
    "part_of",
    "plan_effect",
    "route_effects",
    "route_warning",
    "save",
    "settings_in_force",
    "team_effects",
    "total_cost",
    "used_range",
    "version",
]
