"""The organization's settings (prices, teams with their keys' owners, budgets, alert routes):
what each of the four documents is, the one check every surface applies to them, their
versions in the state store, and the one reader of the settings in force."""
