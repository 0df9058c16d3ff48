"""One enforced budget's measure shared out as its keys' limits: the room held back by a reserve
per sharing key, the pool shared by forecast, and today's use the keys' own limits already
bound shared out again (the rules are the plan's, `analytics.guardrails.limit_plan`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from analytics.capacity import Budget
from analytics.guardrails.plan_inputs import KeyUse
from analytics.guardrails.rules import MEASURE_NAMES, Measure, limit_of
from analytics.service import UsageLimits

# The keys given a share of a budget's room, and each one's share (key id → units).
Shared = tuple[frozenset[str], dict[str, int]]


@dataclass(frozen=True)
class BudgetShare:
    """One enforced budget's measure shared out over this usage period (service units)."""

    budget: Budget
    measure: Measure
    allowance: int
    prior: int
    fixed: int
    hidden: int
    counted: int
    reserve: int
    limits: Mapping[str, int]  # key id → limit
    in_limits: int = 0  # of ``hidden``, what the keys' own limits already bound: shared again

    @property
    def left(self) -> int:
        """What the keys may still use: the allowance less everything used."""
        return self.allowance - self.fixed - self.hidden - self.counted

    @property
    def title(self) -> str:
        return f"{self.budget.title} ({MEASURE_NAMES[self.measure]})"


def apportion(pool: int, weights: Mapping[str, float], floor: int) -> dict[str, int]:
    """``pool`` units shared out exactly: the floor to each (less when the pool cannot hold
    it), the rest by weight in whole units, largest remainders first, ties by name."""
    names = sorted(weights)
    if not names or pool <= 0:
        return dict.fromkeys(names, 0)
    base = min(floor, pool // len(names))
    rest = pool - base * len(names)
    whole = {n: max(0, round(weights[n])) for n in names}
    total = sum(whole.values())
    if total == 0:
        whole, total = dict.fromkeys(names, 1), len(names)
    quota = {n: rest * whole[n] // total for n in names}
    short = rest - sum(quota.values())
    for n in sorted(names, key=lambda n: (-(rest * whole[n] % total), n))[:short]:
        quota[n] += 1
    return {n: base + quota[n] for n in names}


def capped(
    pool: int, weights: Mapping[str, float], floor: int, caps: Mapping[str, int]
) -> dict[str, int]:
    """``apportion`` where some take at most their cap (what a smaller hand-set limit leaves
    them): a share above its cap is cut to it, and the rest shared again among the others, so
    what a capped key cannot use goes to the keys that can."""
    given: dict[str, int] = {}
    free, left = dict(weights), pool
    while free:
        shares = apportion(left, free, floor)
        over = [n for n, share in shares.items() if n in caps and share > caps[n]]
        if not over:
            return given | shares
        for n in over:
            given[n] = caps[n]
            left -= caps[n]
            del free[n]
    return given


def share_room(
    budget: Budget,
    measure: Measure,
    allowance: int,
    prior: int,
    members: Sequence[KeyUse],
    scope_now: int,
    hidden: int,
    settings: tuple[int, int],
    limits_seen: tuple[Mapping[str, UsageLimits], Mapping[str, UsageLimits]],
    turning: bool,
    unbounded: int | None,
) -> BudgetShare:
    """One measure of one budget shared out (the plan's rules, `analytics.guardrails.limit_plan`);
    ``limits_seen``: each key's hand-set limits and the highest it had today; ``turning``:
    today is the last day of a usage period the budget's period goes on after;
    ``unbounded``: the most the budget's other use today (keys outside the plan) can be, None
    when nothing bounds it."""
    hands, tops = limits_seen
    reserve, floor = settings
    counted = sum(use.counted[measure] for use in members)
    fixed = max(0, scope_now - counted)
    room = allowance - fixed - hidden - counted
    ids = {use.key.key_id: use for use in members}
    by_use = {k: float(use.counted[measure]) for k, use in ids.items()}
    if room < 0 and not turning:  # spent: share what is left of the allowance, all stopped
        held = 0
        limits = apportion(max(0, allowance - fixed - hidden), by_use, 0)
    elif turning and room < counted:  # spent by the turn: stopped until it, limits after it
        held = reserve
        limits = _until_the_turn(ids, measure, by_use, room, reserve)
    else:
        room = (room - counted) // 2 if turning else room
        caps = _hand_caps(ids, hands, measure)
        weights = {k: use.forecast[measure] for k, use in ids.items()}
        # A reserve for each sharing key and at least as much again to share (one key, when
        # the room holds a reserve and a unit more): what is held back never outgrows what
        # is shared, so little is left unused when the budget runs out. Keys a hand-set limit
        # stops anyway come last, then the smaller forecasts.
        ranked = sorted(ids, key=lambda k: (caps.get(k) == 0, -weights[k], k))

        def shared(pool: int) -> Shared:
            sharing = ranked[: max(pool // (2 * reserve + 1), min(1, pool // (reserve + 1)))]
            weighed = {k: weights[k] for k in sharing}
            return frozenset(sharing), capped(pool - reserve * len(sharing), weighed, floor, caps)

        found, gained = shared(room), 0
        bounds = None if turning else _today_bounds(ids, measure, tops, reserve, unbounded)
        if bounds is not None:  # today's use the limits already bound, shared out again
            found, gained = _share_again(hidden, bounds, room, shared, reserve)
        limits = {k: ids[k].counted[measure] + found[1].get(k, 0) for k in ids}
        return BudgetShare(
            budget, measure, allowance, prior, fixed, hidden, counted, reserve, limits, gained
        )
    return BudgetShare(budget, measure, allowance, prior, fixed, hidden, counted, held, limits)


def _until_the_turn(
    ids: Mapping[str, KeyUse],
    measure: Measure,
    by_use: Mapping[str, float],
    room: int,
    reserve: int,
) -> dict[str, int]:
    """Each key's limit when the budget is spent by the turn of the usage period: at or below
    each count, so no key can send a request before the turn; after it, a reserve for each key
    given a limit (one that used some), the largest users first (``by_use``: each key's
    count)."""
    ranked = sorted((k for k in ids if by_use[k] > 0), key=lambda k: (-by_use[k], k))
    sharing = ranked[: max(0, room) // (reserve + 1)]
    counts = {k: ids[k].counted[measure] for k in sharing}
    shares = capped(max(0, room) - reserve * len(sharing), counts, 0, counts)
    return {k: shares.get(k, 0) for k in ids}


def _hand_caps(
    ids: Mapping[str, KeyUse], hands: Mapping[str, UsageLimits], measure: Measure
) -> dict[str, int]:
    """What each key with a hand-set limit may still use under it: its share of the budget
    is never more, and what it cannot use goes to the others (`capped`)."""
    return {
        k: max(0, hand - use.counted[measure])
        for k, use in ids.items()
        if (hand := limit_of(hands[k], measure)) is not None
    }


def _today_bounds(
    ids: Mapping[str, KeyUse],
    measure: Measure,
    tops: Mapping[str, UsageLimits],
    reserve: int,
    unbounded: int | None,
) -> tuple[Mapping[str, int], int] | None:
    """The most each key can have used today beyond its closed days (its highest limit
    today, crossed by one request, less its count), and the budget's other use today; None
    when a key had no limit today, or the other use has no bound."""
    most = {k: most_today(use, tops, measure, reserve) for k, use in ids.items()}
    if unbounded is None or any(m is None for m in most.values()):
        return None
    return {k: m for k, m in most.items() if m is not None}, unbounded


def most_today(
    use: KeyUse, tops: Mapping[str, UsageLimits], measure: Measure, reserve: int
) -> int | None:
    """The most a key can have used today beyond its closed days: its highest limit today,
    crossed by one request of at most the reserve, less its count; None without a limit."""
    top = limit_of(tops.get(use.key.key_id, UsageLimits()), measure)
    return None if top is None else max(0, top + reserve - use.counted[measure])


def _share_again(
    hidden: int,
    bounds: tuple[Mapping[str, int], int],
    room: int,
    shared: Callable[[int], Shared],
    reserve: int,
) -> tuple[Shared, int]:
    """The keys sharing and their shares when what of today's ``hidden`` use the keys' own
    limits already hold is shared out again (``shared``: the rule, for a room), and how much
    that is.

    The room took all of ``hidden`` off, though each key's use today also counts against its
    own limit. A key ends at most at the larger of its share plus its reserve (when it shares)
    and what it used today, so the keys pass their shares and reserves by at most
    E = min(hidden, Σ max(0, most today − share − reserve) + the other use). Sharing the room
    plus x, the worst end is room + x + E: any x with x + E ≤ hidden keeps the invariant
    whichever way today's use was spread. The largest such x is sought by halving (each x is
    checked, so the answer holds even where E does not fall as x grows)."""
    most, other = bounds

    def fits(x: int) -> Shared | None:
        sharing, shares = found = shared(room + x)
        over = sum(
            max(0, most[k] - shares.get(k, 0) - (reserve if k in sharing else 0)) for k in most
        )
        return found if x + min(hidden, over + other) <= hidden else None

    best, low, high = shared(room), 0, hidden
    if (whole := fits(high)) is not None:
        return whole, high
    while high - low > 1:
        middle = (low + high) // 2
        if (found := fits(middle)) is not None:
            best, low = found, middle
        else:
            high = middle
    return best, low
