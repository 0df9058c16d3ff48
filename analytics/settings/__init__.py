"""The organization's settings (prices, teams with their keys' owners, budgets, alert routes):
what each of the four documents is and the one check every surface applies to them (`parts`),
their versions in the state store (`versions`), the one reader of the settings in force
(`in_force`), and what a change would do (`field_changes`, field by field; `effects`, beyond its
fields)."""

from analytics.settings.field_changes import differences
from analytics.settings.in_force import Document, Place, document
from analytics.settings.parts import PARTS, Part, SettingsProblem, check, checked_budgets
from analytics.settings.versions import SavedMeanwhile, Version, history, latest, save

__all__ = [
    "PARTS",
    "Document",
    "Part",
    "Place",
    "SavedMeanwhile",
    "SettingsProblem",
    "Version",
    "check",
    "checked_budgets",
    "differences",
    "document",
    "history",
    "latest",
    "save",
]
