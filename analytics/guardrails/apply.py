"""Applying a plan, and restoring the limits keys had before the guardrails.

One run at a time, on any host: a run holds the store's guardrails lock of the account
(``Store.lock``) from reading the state to its last write, so a second run (the hourly timer on
another host, a person's ``apply``) waits, then plans afresh from what the first one left. Only
the differences are sent, each through the key-change path (``keys.changes.limit``: audited with
the actor ``guardrail: <budget>`` and the service's trace id), and every limit lowered is
lowered before any is raised, so the invariant holds between any two calls. Before the first
call the state remembers each key's hand-set limits and the limits about to be sent; after each
answer, what the key now has. A run killed half-way so leaves a state the next run completes: a
key with the limits last left or about to be sent is the guardrail's, anything else was set
elsewhere (drift). A call that fails stops the run (nothing is retried here beyond the client's
own retries of this idempotent request); the next run plans again from the service's answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import msgspec

from analytics.guardrails.limit_plan import KeyPlan, Plan
from analytics.guardrails.memory import (
    GuardrailState,
    LastRun,
    Memory,
    Outcome,
    highest,
    lock_name,
    read,
    write,
)
from analytics.keys import changes, limit_preview
from analytics.service import NO_LIMITS, ServiceError, UsageLimits
from analytics.usage import Records, utc_now

ACTOR = "guardrail: "


@dataclass(frozen=True)
class Run:
    """What a run planned, and how many limit changes it sent."""

    plan: Plan
    chosen: tuple[KeyPlan, ...]  # the keys the run changed (restore --budget: that budget's)
    sent: int


def _send(
    actor: changes.Actor, planned: KeyPlan, now: UsageLimits, target: UsageLimits, by: str
) -> None:
    """One call: the key from ``now`` to ``target``, audited as the guardrail of ``by``
    (under the rule of the person who runs it)."""
    key = msgspec.structs.replace(planned.key, usage_limits=now)
    preview = limit_preview(key, target.characters, target.speech_to_text_milliseconds)
    guardrail = changes.Actor(actor.client, ACTOR + by, actor.audit, actor.rule)
    changes.limit(guardrail, preview, planned.use.api_key)


def chosen_keys(plan: Plan, memory: Mapping[str, Memory], only: str | None) -> tuple[KeyPlan, ...]:
    """The keys a run changes: every planned key, or (``only``) those the budget of that
    title set last."""
    return tuple(
        k
        for k in plan.keys
        if only is None or (k.key.key_id in memory and memory[k.key.key_id].by == only)
    )


def _remember(memory: dict[str, Memory], plan: Plan, chosen: tuple[KeyPlan, ...]) -> None:
    """Note in ``memory``, before any call, each chosen key's hand-set limits, the limits it
    has and those about to be sent: a run killed half-way so leaves a state the next run
    completes, and tells the guardrail's limits from ones set elsewhere."""
    for k in chosen:
        old = memory.get(k.key.key_id)
        by = k.by or (old.by if old else "")
        pending = (k.lower_step, k.new) if k.changes else ()
        # A key first guarded today may have had any limit before: none, for today.
        seen = [NO_LIMITS] if old is None else [old.highest_on(plan.today, k.current)]
        memory[k.key.key_id] = Memory(
            hand=k.hand,
            applied=k.current,
            pending=pending,
            by=by,
            day=plan.today,
            highest=highest([*seen, *pending]),
        )


def run(
    records: Records,
    planned: Callable[[Mapping[str, Memory]], Plan],
    actor: changes.Actor,
    action: Literal["apply", "restore"] = "apply",
    only: str | None = None,
) -> Run:
    """Plan from the remembered state (``planned``) and send the plan's changes as ``actor``,
    under the state's lock; ``only``: the keys a budget of that title set last (restore one
    budget). The guardrails hold the organization's budgets over every key: an actor whose
    rule refuses a change of the organization's is refused before anything is read or sent."""
    if (refusal := actor.rule(None)) is not None:
        raise changes.NotAllowed(refusal)
    with records.store.lock(lock_name(records)):
        state = read(records)
        plan = planned(state.keys)
        listed = {k.key.key_id for k in plan.keys}
        memory = {kid: m for kid, m in state.keys.items() if kid in listed}
        chosen = chosen_keys(plan, memory, only)
        _remember(memory, plan, chosen)
        changing = [k for k in chosen if k.changes]
        started = utc_now()

        def record(outcome: Outcome, sent: int, message: str = "") -> None:
            last = LastRun(
                time=started,
                who=actor.who,
                action=action,
                outcome=outcome,
                changes=sent,
                message=message,
            )
            write(records, GuardrailState(keys=dict(memory), last_run=last))

        record("running", 0)
        sent = 0
        try:
            for step in ("lower", "new"):
                for k in changing:
                    kid = k.key.key_id
                    now = memory[kid].applied
                    target = k.lower_step if step == "lower" else k.new
                    if target == now:
                        continue
                    _send(actor, k, now, target, memory[kid].by)
                    rest = () if target == k.new else memory[kid].pending
                    memory[kid] = msgspec.structs.replace(memory[kid], applied=target, pending=rest)
                    sent += 1
                    record("running", sent)
        except ServiceError as exc:
            record("failed", sent, str(exc))
            raise
        for k in chosen:
            if k.forget:
                memory.pop(k.key.key_id, None)
        record("done" if changing else "nothing to change", sent)
    return Run(plan, chosen, sent)


def last_run(records: Records) -> LastRun | None:
    """The last run recorded in the state (None: never run)."""
    return read(records).last_run
