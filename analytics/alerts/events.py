"""The alert event: what any producer (budgets, anomaly checks) hands to delivery.

An event is identified by ``id`` across runs, so delivery can tell a new alert from one it
already sent; ``level`` only ever escalates a sent alert (``info`` < ``warning`` <
``exceeded``), so the same alert is never sent twice at the same level.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

LEVELS = ("info", "warning", "exceeded")
REPEATED = "(possibly repeated)"


def rank(level: str) -> int:
    """The level's place in the escalation order (higher is more serious)."""
    return LEVELS.index(level)


@dataclass(frozen=True)
class Event:
    """One alert, stable across runs.

    ``id`` e.g. ``"budget:<name>:<period start>"``; ``subject`` one line; ``text`` plain
    sentences naming keys by label and masked key (never a full key); ``link`` a dashboard
    path with its query (``"/capacity"``), to which delivery prepends the dashboard's address.
    """

    id: str
    level: str
    subject: str
    text: str
    link: str

    def __post_init__(self) -> None:
        # Checked here so a producer's mistake fails at once, not in a message at 6 a.m.
        if not self.id.strip():
            raise ValueError("an event needs an id")
        if self.level not in LEVELS:
            raise ValueError(f"unknown level {self.level!r}; expected one of {', '.join(LEVELS)}")
        if not self.subject.strip() or "\n" in self.subject or "\r" in self.subject:
            raise ValueError(f"the subject must be one non-empty line, not {self.subject!r}")
        if not self.link.startswith("/"):
            raise ValueError(
                f"the link must be a dashboard path starting with /, not {self.link!r}"
            )

    def possibly_repeated(self) -> Event:
        """The event as sent again after a run stopped between sending it and recording it:
        marked in its subject and its first sentence, so a reader who got it twice knows why."""
        return replace(
            self,
            subject=f"{REPEATED} {self.subject}",
            text="An earlier run stopped while sending this alert; it may have arrived already.\n"
            + self.text,
        )
