"""The exit codes of the command line, one table (`EXIT_CODES`): each code with what it says in
a few words (``--help``, the Export page), in full (the manual's Command line page) and which
commands end with it. Every command exits with a code's ``.code``, so a status is spelled one
way wherever it is used.

A module of its own beside the layers, importing nothing of ours: the command line exits with
these codes, the exports' crontab line and the Export page state them, and the benchmark
expects them, so it sits where each of them may import it.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class ExitCode:
    """What an exit status says: in a few words (``--help``, the Export page), in full (the
    table of the manual's Command line page), and which commands end with it."""

    code: int
    brief: str
    meaning: str
    commands: str


DONE = ExitCode(0, "done", "done", "all")
UNEXPECTED = ExitCode(
    1, "unexpected", "anything unexpected (e.g. the disk is full); an earlier file is kept", "all"
)
USAGE = ExitCode(
    2,
    "bad arguments or configuration",
    "bad arguments or configuration (settings, a budgets, pricing, teams or alerts file), the "
    "service refused an argument (400), or a KEY names no key or several (the candidates are "
    "listed)",
    "all",
)
FORBIDDEN = ExitCode(
    3, "key refused (403)", "the service refused the key (403)", "all that ask the service"
)
SERVICE = ExitCode(
    4,
    "service unreachable",
    "the service or the network failed after retries, or answered with an invalid body",
    "all that ask the service",
)
STORE = ExitCode(
    5,
    "state store unavailable",
    "the state store (SERVICE_STATE_URL, or the embedded file in the history folder) could not "
    "be reached or failed after retries: what was being recorded was not recorded, and nothing "
    "was sent or changed without its record",
    "all that keep or read marks, alert deliveries, the key audit log or the guardrails' state",
)
BUDGET_WARNING = ExitCode(
    10,
    "a budget's warning (check-budgets)",
    "a budget's or a key limit's warning threshold is reached (used or projected), or a budget "
    "names an unknown key",
    "check-budgets",
)
BUDGET_EXCEEDED = ExitCode(
    11,
    "a budget exceeded (check-budgets)",
    "a budget (or, for a plan budget, the plan's character limit; for a key, its own limit) is "
    "exceeded",
    "check-budgets",
)
CHANGES_PENDING = ExitCode(
    10,
    "limit changes pending (guardrails plan)",
    "the guardrails' plan has key limit changes to send (guardrails apply sends them)",
    "guardrails plan",
)
STILL_IN_USE = ExitCode(
    10,
    "old key still in use (keys rotation finish)",
    "the rotation's old key was used within the quiet days a finish needs: nothing was "
    "deactivated (--force finishes anyway, recorded as forced)",
    "keys rotation finish",
)
NEW_ANOMALIES = ExitCode(
    12,
    "new anomalies (check-anomalies)",
    "there are anomalies nobody has marked yet",
    "check-anomalies",
)
DELIVERY = ExitCode(
    13,
    "a message not delivered (--notify, report --mail-to)",
    "a message could not be delivered (it is sent again by the next run)",
    "--notify, report --mail-to",
)
# Standard output's reader went away (`… | head`): the status a shell shows for a writer that
# SIGPIPE stopped, as `cat` or `seq` end there.
CLOSED_PIPE = ExitCode(
    128 + signal.SIGPIPE,
    "standard output closed (… | head)",
    "standard output's reader went away (… | head): the command stops writing, quietly, with "
    "the status a shell shows for cat there (128 + SIGPIPE)",
    "all that write to standard output",
)
EXIT_CODES: Final = (
    DONE,
    UNEXPECTED,
    USAGE,
    FORBIDDEN,
    SERVICE,
    STORE,
    BUDGET_WARNING,
    CHANGES_PENDING,
    STILL_IN_USE,
    BUDGET_EXCEEDED,
    NEW_ANOMALIES,
    DELIVERY,
    CLOSED_PIPE,
)

# The line `guardrails plan` ends with, for each status it ends with after planning: what the
# status says and what to do next ({changes}: "1 limit change", "22 limit changes"). Its
# other statuses end with the one-line error, which says what stopped it.
PLAN_ENDINGS: Final = {
    DONE: "Nothing to change (exit 0): the keys' limits in force hold the enforced budgets.",
    CHANGES_PENDING: "{changes} pending (exit 10): `guardrails apply --yes` sends them.",
}


def plan_ending(changes: int) -> tuple[ExitCode, str]:
    """The status `guardrails plan` ends with for ``changes`` pending, and its last line."""
    code = CHANGES_PENDING if changes else DONE
    counted = f"{changes:,} limit change{'' if changes == 1 else 's'}"
    return code, PLAN_ENDINGS[code].format(changes=counted)


def exit_codes_text(codes: Iterable[ExitCode]) -> str:
    """``Exit codes: 0 done; 1 unexpected; …``: each code with its few words."""
    return "Exit codes: " + "; ".join(f"{c.code} {c.brief}" for c in codes) + "."
