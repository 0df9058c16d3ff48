"""How a page looks at the key-day frame: by key or by team, in usage units or in money, and
the settings in force it reads for that; its texts are the cache key of every money view
(`data`)."""

from __future__ import annotations

from dataclasses import dataclass

from analytics.cost import Pricing, Teams
from analytics.settings import Part, SettingsInForce, Texts


@dataclass(frozen=True)
class View:
    """How a page looks at the key-day frame: by team when ``by_team`` (the teams of
    ``settings``), in money when ``cost`` (its prices, in ``currency``); by key and in usage
    units otherwise."""

    settings: SettingsInForce | None = None
    cost: bool = False
    by_team: bool = False
    currency: str = ""

    @property
    def key(self) -> Texts:
        """The cache key of the view: the texts of the documents it reads (the money views
        name them by their parts' files, whatever holds them), nothing for usage by key."""
        read: dict[Part, bool] = {"pricing": self.cost, "teams": self.by_team}
        parts = [part for part, used in read.items() if used]
        return () if self.settings is None or not parts else self.settings.texts(*parts)

    @property
    def pricing(self) -> Pricing | None:
        """The prices the view reads; None: in usage units."""
        return self.settings.pricing if self.cost and self.settings is not None else None

    @property
    def teams(self) -> Teams | None:
        """The teams the view groups by; None: by key."""
        return self.settings.given_teams if self.by_team and self.settings is not None else None

    @property
    def in_usage(self) -> View:
        """The same grouping in usage units: what a cost of 0 is set against."""
        return View(self.settings, by_team=self.by_team)


USAGE_BY_KEY = View()
