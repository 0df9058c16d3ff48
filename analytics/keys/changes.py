"""Changing developer keys, each attempt written to the audit log whatever its outcome.

The dashboard and the command line change keys only through these functions, so every
change, refused and failed ones included, leaves one entry. A create is never sent twice
(``ServiceClient.create_developer_key`` is not retried once it may have reached the service):
when its answer is lost the outcome is *unknown* and the person is told to look at the list.

The audit log comes first: a change is sent only once the state store answered, and when its
entry still cannot be written afterwards, `AuditNotKept` says that the change was made and
that its entry is missing, and the entry is written to the log output instead (no secret in
it), so that it can be added by hand; a change is never made silently unaudited.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from analytics.keys.audit import Action, AuditLog, Outcome, encode, entry
from analytics.keys.join import masked
from analytics.keys.preview import Preview, label_problem
from analytics.service import (
    ConnectionFailedError,
    CreatedKey,
    DeveloperKey,
    KeyChange,
    ServiceClient,
    ServiceError,
)
from analytics.storage import StoreError, StoreUnavailable

log = logging.getLogger(__name__)

K = TypeVar("K", DeveloperKey, CreatedKey)


class AuditNotKept(StoreUnavailable):
    """The service made a change, but its audit entry could not be written."""


class UnknownOutcome(ServiceError):
    """A create whose answer was lost: the key may exist. The message says where to look."""


class NotAllowed(PermissionError):
    """The actor may not make this change: nothing was sent. The message says why."""


# Why an actor may not change ``key``, or None when it may. None for the key is a change of
# the organization's own: a new key, or the guardrails over every key.
KeyRule = Callable[[DeveloperKey | None], str | None]


def every_key(key: DeveloperKey | None) -> str | None:
    """The rule of whoever holds the organization's admin key (the command line): any key."""
    return None


def no_key(refusal: str) -> KeyRule:
    """The rule of someone who may change no key, ``refusal`` saying why."""
    return lambda key: refusal


@dataclass(frozen=True)
class Actor:
    """Who changes keys, through which client, where their attempts are written, and which
    keys they may change."""

    client: ServiceClient
    who: str
    audit: AuditLog | None
    rule: KeyRule


def _outcome(exc: ServiceError) -> Outcome:
    """The service said no (a 4xx answer), or could not be asked."""
    return "refused" if exc.status is not None and exc.status < 500 else "failed"


def _record(
    actor: Actor,
    action: Action,
    key: DeveloperKey | None,
    label: str,
    outcome: Outcome,
    message: str = "",
    trace_id: str | None = None,
    after: DeveloperKey | None = None,
    masked_key: str | None = None,
) -> None:
    """Write one attempt to the actor's audit log (none: nothing to write). An entry the store
    does not keep goes to the log output instead, and `AuditNotKept` says so: the change was
    made, and its entry can be added by hand."""
    if actor.audit is None:
        return
    attempt = entry(
        action,
        actor.who,
        key,
        outcome,
        after=after,
        label=label,
        masked_key=masked_key,
        message=message,
        trace_id=trace_id,
    )
    try:
        actor.audit.append(attempt)
    except StoreError as exc:
        log.error("key audit entry not kept: %s", encode(attempt).decode())
        raise AuditNotKept(
            f"the {action} was {outcome} at the service, but its audit entry was not kept "
            f"(written to the log instead): {exc}"
        ) from None


def allowed(actor: Actor, action: Action, key: DeveloperKey | None, label: str = "") -> None:
    """`NotAllowed` when the actor's rule refuses ``action`` on ``key`` (None: a change of the
    organization's), its attempt written as refused; nothing is sent either way."""
    refusal = actor.rule(key)
    if refusal is None:
        return
    # An entry the store does not keep is in the log output; the refusal is what to hear.
    with suppress(AuditNotKept):
        _record(actor, action, key, label, "refused", message=refusal)
    raise NotAllowed(refusal)


def _changed(
    actor: Actor,
    action: Action,
    key: DeveloperKey | None,
    call: Callable[[], KeyChange[K]],
    label: str = "",
    api_key: str | None = None,
    over: DeveloperKey | None = None,
) -> KeyChange[K]:
    """Make one change (``call``) once the actor's rule allows it over ``over`` (the key
    changed, else ``key``) and the audit log's store answered, and write its attempt whatever
    its outcome: refused, failed, unknown (a create's lost answer) or done."""
    allowed(actor, action, over or key, label)
    record = partial(_record, actor, action, key, label)
    if actor.audit is not None:
        actor.audit.records.store.ping()  # unreachable: StoreUnavailable, and nothing is sent
    try:
        change = call()
    except ConnectionFailedError as exc:
        if action == "create" and exc.request_sent:
            record("unknown", message=str(exc))
            raise UnknownOutcome(
                "the key may or may not have been created: the answer was lost. Look at the "
                "key list before creating another"
            ) from exc
        record("failed", message=str(exc))
        raise
    except ServiceError as exc:
        record(_outcome(exc), message=str(exc), trace_id=exc.trace_id)
        raise
    answer: DeveloperKey = change.key
    secret = answer.key if isinstance(answer, CreatedKey) else None
    record(
        "done",
        after=answer.listed if isinstance(answer, CreatedKey) else answer,
        masked_key=api_key if secret is None else masked(secret),
        trace_id=change.trace_id,
    )
    return change


class LabelRefused(ValueError):
    """A label the organization's keys cannot take (see `preview.label_problem`): nothing is
    sent and nothing is audited, as with any input refused before a request."""


def checked_label(
    listed: Sequence[DeveloperKey], label: str, key_id: str | None = None, shared: bool = False
) -> str:
    """The label trimmed; LabelRefused when the key `key_id` (None: a new key) may not take
    it among the `listed` keys."""
    if problem := label_problem(listed, label, key_id, shared):
        raise LabelRefused(problem)
    return label.strip()


def create(
    actor: Actor,
    label: str | None,
    listed: Sequence[DeveloperKey] = (),
    shared: bool = False,
    replacing: DeveloperKey | None = None,
) -> KeyChange[CreatedKey]:
    """A new key; its secret is in the answer alone (never in the log: its mask is). Without
    a label the service gives its default one; a label is checked against `listed`. A key
    made to replace another (``replacing``, a rotation) is allowed as a change of that key."""
    given = checked_label(listed, label, None, shared) if label and label.strip() else None
    return _changed(
        actor,
        "create",
        None,
        lambda: actor.client.create_developer_key(given),
        given or "",
        over=replacing,
    )


def rename(
    actor: Actor,
    preview: Preview,
    listed: Sequence[DeveloperKey] = (),
    shared: bool = False,
    api_key: str | None = None,
) -> KeyChange[DeveloperKey] | None:
    """The label of `rename_preview`; None when it is the key's own (nothing is sent).
    `api_key`, the analytics mask the key is joined to, is recorded so the key stays joined
    while its usage still carries the old label."""
    if not preview.changes:
        return None
    key = preview.key
    label = checked_label(listed, preview.label or "", key.key_id, shared)
    return _changed(
        actor,
        "rename",
        key,
        lambda: actor.client.rename_developer_key(key.key_id, label),
        api_key=api_key,
    )


def deactivate(
    actor: Actor, key: DeveloperKey, api_key: str | None = None
) -> KeyChange[DeveloperKey]:
    """Permanent: the service refuses the key from then on."""
    return _changed(
        actor,
        "deactivate",
        key,
        lambda: actor.client.deactivate_developer_key(key.key_id),
        api_key=api_key,
    )


def limit(
    actor: Actor, preview: Preview, api_key: str | None = None
) -> KeyChange[DeveloperKey] | None:
    """The limits of `limit_preview`, only those that differ; None when none does (nothing is
    sent, nothing audited)."""
    if not preview.changes:
        return None
    key = preview.key
    return _changed(
        actor,
        "limit",
        key,
        lambda: actor.client.set_developer_key_limits(
            key.key_id, preview.characters, preview.speech_milliseconds
        ),
        api_key=api_key,
    )
