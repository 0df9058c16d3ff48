"""The organization's settings (prices, teams with their keys' owners, budgets, alert routes):
what each of the four documents is and the one check every surface applies to them (`parts`),
their versions in the state store (`versions`), the one reader of the settings in force
(`in_force`: `settings_in_force`, one parsed object, `SettingsInForce`), and what a change
would do (`field_changes`, field by field; `effects`, beyond its fields)."""

from analytics.settings.field_changes import differences
from analytics.settings.in_force import (
    Document,
    Place,
    SettingsInForce,
    document,
    settings_in_force,
)
from analytics.settings.parts import PARTS, Part, SettingsProblem, check, checked_budgets
from analytics.settings.versions import SavedMeanwhile, Version, history, latest, save

__all__ = [
    "PARTS",
    "Document",
    "Part",
    "Place",
    "SavedMeanwhile",
    "SettingsInForce",
    "SettingsProblem",
    "Version",
    "check",
    "checked_budgets",
    "differences",
    "document",
    "history",
    "latest",
    "save",
    "settings_in_force",
]
