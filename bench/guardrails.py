"""`guardrails`: the guardrails' end-to-end replay against the emulator.

Two usage periods of the benchmark organization's active keys are replayed hour by hour
through the emulator's metered endpoint (`/v2/translate`, in requests no larger than the
reserve; a request refused with 456 is lost and counted), with one key spiking for three
days, a key created mid-period outside the product and a quiet key. Every simulated hour, first
`guardrails apply` runs as the hourly timer runs it (`apply.run` with `plan_now`, the plan read
through the service's analytics as of that hour, closed through the previous UTC day) against
an organization budget and a team budget of `period = "usage"`, each set at 70 % of the
period's natural usage (what the keys would use unguarded), then the hour's usage arrives.

One clock moves for both sides: the process's `USAGE_DASHBOARD_CLOCK`, which the product's
"now" (`analytics.usage.calendar.utc_now`) and the in-process emulator's current day
(`EmulatorConfig.current_day`, with no `today` pinned) both read, is set to each simulated
hour and given back its value afterwards.

Lines: `guardrail_overrun`, the characters each budget's keys used in a usage period beyond
the budget, over the budget (worst budget and period; target 0), and `guardrail_stranded`, the
allowance left unused at a period's end in the budgets whose limits refused a key (a key's own
hand-set limit is not the budget's), over the allowance (worst; target 0.05).
`counters_agree` checks, for each closed day, that each key's count and the organization's
in `/v2/usage` at the day's end are what analytics shows once the day has closed. The
emulator's database, the budgets and the schedule's figures are kept (`--keep`) for the test
to check the lines against the emulator's own ledger and key store.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import orjson
import pandas as pd
from pydantic import SecretStr

from analytics.capacity.budgets import BudgetSettings, parse_budgets
from analytics.connection import in_process_client
from analytics.cost.teams import Teams, key_teams, load_teams
from analytics.guardrails import apply
from analytics.guardrails.inputs_from_reader import plan_now
from analytics.guardrails.limit_plan import Plan
from analytics.guardrails.memory import Memory
from analytics.keys.audit import AuditLog
from analytics.keys.changes import Actor, every_key
from analytics.service.client import ServiceClient
from analytics.service.errors import QuotaExceededError
from analytics.service.models import DeveloperKey, PlanUsage
from analytics.storage.bundle import bundle_folder
from analytics.storage.state_store import embedded_store
from analytics.usage.calendar import CLOCK_VARIABLE, utc_today
from analytics.usage.pipeline import FetchedRange, fetch_usage
from analytics.usage.records import Records
from bench import synthetic_orgs
from bench.result_lines import Result, keep, result
from emulator import Emulator, EmulatorConfig, create_app

SCENARIO = "guardrails"
# The replay covers the usage periods starting on this day and a month later. The synthetic
# organization is billed from the day of the month its history begins, so its history begins
# on the 4th too, four months before: the run rate's 84 days and more.
START = dt.date(2026, 9, 4)
HISTORY_DAYS = (START - dt.date(2026, 5, 4)).days
RATE_DAYS = 28  # each key's natural daily use: its mean over the last four weeks of history
SHARE = 0.7  # each budget's limit, of the period's natural usage (the smaller period's)
TEAM = "Documents"  # the team of teams.example.toml held by the team budget
RESERVE = 5_000  # characters: the reserve and floor are the defaults; requests stay within it
SPIKE = (8, 11, 5.0)  # days [8, 11) of the first period, the team's busiest key uses 5 times
NEW_KEY = (14, "Document pipeline (new)")  # created on that day, elsewhere, in the team
QUIET = 300  # characters a day of the quiet key (the active key without history)
NOISE = 0.25  # sigma of each key-day's lognormal noise
TARGET_LANG = "DE"


def _hour_weights() -> np.ndarray:
    """Each UTC hour's share of a key's day: busiest at 14:00, quietest at 02:00."""
    hours = np.arange(24)
    weights = 1 + 0.8 * np.cos(2 * np.pi * (hours - 14) / 24)
    return np.asarray(weights / weights.sum())


@dataclass(frozen=True)
class ReplayKey:
    """A key the replay sends usage with: its label, secret and natural daily characters."""

    label: str
    secret: str
    rate: float


@dataclass
class Schedule:
    """The replay's natural usage: characters per (day, slot) per key label, fixed in advance
    (what the keys would use unguarded)."""

    days: list[dt.date]
    slots: list[int]  # the simulated hours of each day
    amounts: dict[tuple[int, int], dict[str, int]] = field(default_factory=dict)

    def natural(self, labels: set[str], first: dt.date, stop: dt.date) -> int:
        return sum(
            amount
            for (d, _), by_label in self.amounts.items()
            if first <= self.days[d] < stop
            for label, amount in by_label.items()
            if label in labels
        )


def schedule(
    keys: list[ReplayKey], team: set[str], new_rate: float, days: list[dt.date], hours: int
) -> Schedule:
    """Each key's natural day (its rate, noise, the spike) spread over the simulated hours by
    the hours' weights; the new key from the slot after its creation."""
    rng = np.random.default_rng(synthetic_orgs.SEED)
    weights = _hour_weights()
    step = 24 // hours
    slots = list(range(0, 24, step))
    spiking = max((k for k in keys if k.label in team), key=lambda k: k.rate).label
    plan = Schedule(days, slots)
    everyone = [*((k.label, k.rate) for k in keys), (NEW_KEY[1], new_rate)]
    for d in range(len(days)):
        for label, rate in everyone:
            daily = rate * float(rng.lognormal(0.0, NOISE))
            if label == spiking and SPIKE[0] <= d < SPIKE[1]:
                daily *= SPIKE[2]
            for s, hour in enumerate(slots):
                if label == NEW_KEY[1] and (d, s) <= (NEW_KEY[0], 0):
                    continue
                amount = round(daily * float(weights[hour : hour + step].sum()))
                if amount:
                    plan.amounts.setdefault((d, hour), {})[label] = amount
    return plan


@dataclass(frozen=True)
class Reader:
    """The replay's analytics, as `Fetches` reads a configured service: usage through the
    service's analytics (fetched afresh), the plan, the key list, the audit log's masks."""

    client: ServiceClient
    audit: AuditLog

    def usage(self, first: dt.date, last: dt.date) -> FetchedRange:
        return fetch_usage(self.client, first, last)

    def plan(self) -> PlanUsage:
        return self.client.usage()

    def developer_keys(self) -> list[DeveloperKey]:
        return self.client.developer_keys()

    def recorded_masks(self) -> dict[str, str]:
        return self.audit.recorded_masks()


@contextmanager
def simulated_clock() -> Iterator[None]:
    """The process's clock given back its value when the replay ends."""
    saved = os.environ.get(CLOCK_VARIABLE)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(CLOCK_VARIABLE, None)
        else:
            os.environ[CLOCK_VARIABLE] = saved


def set_clock(instant: dt.datetime) -> None:
    os.environ[CLOCK_VARIABLE] = instant.isoformat()


def budgets_text(org_limit: int, team_limit: int) -> str:
    """The replay's budgets file: the organization's and the team's, enforced."""
    return f"""
[[budget]]
name = "Organization"
metric = "total_characters"
period = "usage"
limit = {org_limit}
enforce = true

[[budget]]
name = "{TEAM} team"
metric = "total_characters"
period = "usage"
limit = {team_limit}
team = "{TEAM}"
enforce = true

[guardrails]
reserve_characters = {RESERVE}
"""


@dataclass
class Tally:
    """What the replay saw: per (period start, label), characters served; per (period
    start, label, the budget whose limit refused it: "" its own hand-set one), requests
    refused; and each closed day's counters against analytics."""

    served: dict[tuple[dt.date, str], int] = field(default_factory=lambda: defaultdict(int))
    refused: dict[tuple[dt.date, str, str], int] = field(default_factory=lambda: defaultdict(int))
    requests: int = 0
    largest_request: int = 0
    days_checked: int = 0
    disagreements: list[str] = field(default_factory=list)
    runs: int = 0
    changes_sent: int = 0


class Replay:
    """The emulator, the product's clients over it and the guardrail's files, in one folder."""

    def __init__(self, folder: Path, scale: synthetic_orgs.Scale, stack: ExitStack) -> None:
        self.folder = folder
        self.hours = scale.replay_hours
        set_clock(dt.datetime.combine(START, dt.time(), dt.UTC))
        self.db = folder / "emulator.sqlite"
        config = EmulatorConfig(
            seed=synthetic_orgs.SEED, keys=scale.replay_keys, days=HISTORY_DAYS, db=self.db
        )
        self.app = create_app(config)
        self.emulator: Emulator = self.app.state.emulator
        if self.emulator.plan.period(START)[0] != START:
            raise RuntimeError(f"{START} does not start a usage period of the organization")
        admin_key = self.emulator.admin_key
        assert admin_key is not None
        self.admin = stack.enter_context(self.client(admin_key))
        self.records = Records(embedded_store(folder), "bench")
        self.audit = AuditLog(self.records)
        self.reader = Reader(self.admin, self.audit)
        self.teams: Teams = load_teams(bundle_folder() / "teams.example.toml")
        self.stack = stack
        self.clients: dict[str, ServiceClient] = {}
        self.setters: dict[str, str] = {}  # label → the budget that set its character limit
        self.tally = Tally()

    def client(self, secret: str) -> ServiceClient:
        return in_process_client(self.app, SecretStr(secret))

    def keys(self) -> list[ReplayKey]:
        """The active developer keys, each with its natural daily use over RATE_DAYS; the key
        without history is the quiet one."""
        secrets = {spec.masked: spec.key for spec in self.emulator.keys}
        history = self.emulator.ledger(START - dt.timedelta(days=RATE_DAYS), START)
        used: dict[str, int] = defaultdict(int)
        for row in history:
            used[row.api_key] += (
                row.text_translation_characters
                + row.document_translation_characters
                + row.text_improvement_characters
            )
        return [
            ReplayKey(row.label, secrets[row.masked], used[row.masked] / RATE_DAYS or QUIET)
            for row in self.emulator.store.developer_keys()
            if row.deactivated is None
        ]

    def team_of(self, labels: Mapping[str, str]) -> set[str]:
        """The names (of ``labels``: name → label) whose key is in the team."""
        return {name for name, team in key_teams(self.teams, labels).items() if team == TEAM}

    def planned(self, budgets: BudgetSettings) -> apply.Run:
        """`guardrails apply --yes` as the hourly timer runs it."""

        def plan(memory: Mapping[str, Memory]) -> Plan:
            return plan_now(self.reader, budgets, (self.teams, None), utc_today(), memory)

        run = apply.run(self.records, plan, Actor(self.admin, "timer", self.audit, every_key))
        self.tally.runs += 1
        self.setters = {k.key.label: k.setters["characters"] for k in run.plan.keys}
        self.tally.changes_sent += run.sent
        return run

    def send(self, label: str, amount: int, period: dt.date) -> None:
        """``amount`` characters of ``label``'s key in requests no larger than the reserve;
        each refused one (456) is lost."""
        client = self.clients[label]
        count = -(-amount // RESERVE)
        for n in range(count):
            size = amount // count + (n < amount % count)
            self.tally.requests += 1
            self.tally.largest_request = max(self.tally.largest_request, size)
            try:
                client.translate("x" * size, TARGET_LANG)
            except QuotaExceededError:
                self.tally.refused[period, label, self.setters.get(label, "")] += 1
            else:
                self.tally.served[period, label] += size

    def counters(self) -> tuple[dt.date, dict[str, int], int]:
        """The usage period's start and each key's count (by masked key), and the
        organization's, as `/v2/usage` says them now."""
        answer = self.admin.usage()
        assert answer.start_time is not None
        masks = {row.label: row.masked for row in self.emulator.store.developer_keys()}
        counts = {}
        for label, client in self.clients.items():
            count = client.usage().api_key_character_count
            counts[masks[label]] = count or 0
        return answer.start_time.date(), counts, answer.character_count

    def check(self, day: dt.date, counted: tuple[dt.date, dict[str, int], int]) -> None:
        """The counters at ``day``'s end against analytics, now that ``day`` has closed."""
        first, by_key, total = counted
        frame = self.reader.usage(first, day).frame
        shown = frame.groupby("api_key", observed=True)["total_characters"].sum()
        self.tally.days_checked += 1
        if int(shown.sum()) != total:
            self.tally.disagreements.append(f"{day}: organization {total} ≠ {int(shown.sum())}")
        for mask, count in by_key.items():
            if int(shown.get(mask, 0)) != count:
                self.tally.disagreements.append(f"{day}: {mask} {count} ≠ {shown.get(mask, 0)}")


def guardrails(scale: synthetic_orgs.Scale) -> list[Result]:
    with tempfile.TemporaryDirectory() as name, simulated_clock(), ExitStack() as stack:
        folder = Path(name)
        began = time.perf_counter()
        replay = Replay(folder, scale, stack)
        keys = replay.keys()
        for key in keys:
            replay.clients[key.label] = stack.enter_context(replay.client(key.secret))
        second = replay.emulator.plan.period(START)[1]
        stop = replay.emulator.plan.period(second)[1]
        periods = [START, second]
        days = [START + dt.timedelta(days=n) for n in range((stop - START).days)]
        labels = {k.label: k.label for k in keys} | {NEW_KEY[1]: NEW_KEY[1]}
        team = replay.team_of(labels)
        new_rate = float(np.median([k.rate for k in keys if k.label in team]))
        plan = schedule(keys, team, new_rate, days, replay.hours)
        bounds = [(p, replay.emulator.plan.period(p)[1]) for p in periods]
        natural = {
            "Organization": [plan.natural(set(labels), *b) for b in bounds],
            f"{TEAM} team": [plan.natural(team, *b) for b in bounds],
        }
        limits = {name: round(SHARE * min(values)) for name, values in natural.items()}
        budgets = parse_budgets(budgets_text(*limits.values()), "replay budgets")
        counted = None
        for d, day in enumerate(days):
            period = replay.emulator.plan.period(day)[0]
            for hour in plan.slots:
                set_clock(dt.datetime.combine(day, dt.time(hour), dt.UTC))
                replay.planned(budgets)
                if hour == 0 and counted is not None:
                    replay.check(day - dt.timedelta(days=1), counted)
                if (d, hour) == (NEW_KEY[0], plan.slots[0]):
                    created = replay.admin.create_developer_key(NEW_KEY[1]).key
                    assert created.key is not None
                    replay.clients[NEW_KEY[1]] = stack.enter_context(replay.client(created.key))
                for label, amount in plan.amounts.get((d, hour), {}).items():
                    if label in replay.clients:
                        replay.send(label, amount, period)
            counted = replay.counters()
        set_clock(dt.datetime.combine(stop, dt.time(), dt.UTC))
        replay.check(days[-1], counted)
        seconds = time.perf_counter() - began
        frame = replay.reader.usage(START, days[-1]).frame
        replay.emulator.store.close()
        keep(SCENARIO, "emulator.sqlite", replay.db)
        keep(SCENARIO, "budgets.toml", budgets_text(*limits.values()).encode())
    return _lines(replay, frame, bounds, limits, natural, seconds)


def _used_and_refused(
    replay: Replay,
    frame: pd.DataFrame,
    bounds: list[tuple[dt.date, dt.date]],
    limits: dict[str, int],
) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """Each budget's characters used in each period, as analytics reads them from the
    replayed days, and its requests refused there by its limits: what the overrun and the
    stranded room are read from."""
    frame_team = replay.team_of(dict(zip(frame["api_key"], frame["api_key_label"], strict=True)))
    used: dict[str, list[int]] = {}
    refused: dict[str, list[int]] = {}
    for name in limits:
        used[name], refused[name] = [], []
        for first, stop in bounds:
            days = frame[
                (frame["usage_date"] >= pd.Timestamp(first))
                & (frame["usage_date"] < pd.Timestamp(stop))
            ]
            if name != "Organization":
                days = days[days["api_key"].isin(frame_team)]
            used[name].append(int(days["total_characters"].sum()))
            refused[name].append(
                sum(n for (p, _, by), n in replay.tally.refused.items() if (p, by) == (first, name))
            )
    return used, refused


def _lines(
    replay: Replay,
    frame: pd.DataFrame,
    bounds: list[tuple[dt.date, dt.date]],
    limits: dict[str, int],
    natural: dict[str, list[int]],
    seconds: float,
) -> list[Result]:
    """The two lines from analytics' usage of the replayed days and the refusals counted."""
    tally = replay.tally
    used, refused = _used_and_refused(replay, frame, bounds, limits)
    overrun = max(max(0, u - limits[name]) / limits[name] for name in limits for u in used[name])
    stranded = max(
        (
            (limits[name] - u) / limits[name]
            for name in limits
            for u, r in zip(used[name], refused[name], strict=True)
            if r
        ),
        default=0.0,
    )
    figures = {
        "budgets": limits,
        "natural": natural,
        "used": used,
        "refused": refused,  # by the budget's limits
        "refused_by_own_limit": sum(n for (_, _, by), n in tally.refused.items() if not by),
        "periods": [[first.isoformat(), stop.isoformat()] for first, stop in bounds],
        "hours_per_day": replay.hours,
        "requests": tally.requests,
        "largest_request": tally.largest_request,
        "reserve": RESERVE,
        "served": sum(tally.served.values()),
        "runs": tally.runs,
        "changes_sent": tally.changes_sent,
        "days_checked": tally.days_checked,
        "disagreements": tally.disagreements[:5],
        "seconds": round(seconds, 1),
    }
    checks = {
        "counters_agree": not tally.disagreements and tally.days_checked > 0,
        "requests_within_reserve": tally.largest_request <= RESERVE,
        "keys_refused": any(any(r) for r in refused.values()),
    }
    keep(SCENARIO, "figures.json", orjson.dumps(figures))
    return [
        result("guardrail_overrun", overrun, 0, checks, **figures),
        result("guardrail_stranded", stranded, 0.05, checks, **figures),
    ]
