"""Delivery: each new or escalated event once to every destination, over smtplib and httpx.

Every message is tried once per run, with a timeout. A failure (an SMTP error, a refused
connection, an HTTP answer other than 2xx) is reported and not recorded, so the next run
sends that message again; the other destinations still get theirs. Error texts are built
here and never hold a credential or a webhook address, and while messages go out httpx's own
log lines (shown with --debug) have the webhook addresses taken out.
"""

from __future__ import annotations

import json
import logging
import smtplib
import ssl
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from email.message import EmailMessage
from functools import partial
from urllib.parse import urlsplit

import httpx
import msgspec
from pydantic import SecretStr

from analytics.alerts.alert_settings import AlertsConfig, Email, Webhook
from analytics.alerts.delivery_state import DeliveryState
from analytics.alerts.events import Event
from analytics.alerts.message_forms import event_mail, webhook_payload
from analytics.service import one_line

SMTP_TIMEOUT = 30.0
WEBHOOK_TIMEOUT = 15.0
QUOTED_ANSWER = 200  # characters of a receiver's answer quoted in an error


class DeliveryError(Exception):
    """A message did not get through; the text is safe to print and log."""


def _values(secrets: Iterable[SecretStr | None]) -> list[str]:
    return [value for s in secrets if s is not None and (value := s.get_secret_value())]


def _address_secrets(hook: Webhook) -> list[str]:
    """The webhook's address, and its path and query (the token), however a URL is spelt."""
    address = hook.url.get_secret_value()
    parts = urlsplit(address)
    token = parts.path + (f"?{parts.query}" if parts.query else "")
    return [address, token] if len(token) > 1 else [address]


def _without(text: str, secrets: Iterable[str]) -> str:
    for value in secrets:
        text = text.replace(value, "***")
    return text


def _redacted(text: str, secrets: Iterable[str]) -> str:
    return one_line(_without(text, secrets), QUOTED_ANSWER)


class _Redacting(logging.Filter):
    """Takes secrets out of a logger's lines (httpx logs each request's full address)."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = _without(record.getMessage(), self.secrets), None
        return True


@contextmanager
def _addresses_out_of_logs(config: AlertsConfig) -> Iterator[None]:
    redacting = _Redacting([value for hook in config.webhooks for value in _address_secrets(hook)])
    logger = logging.getLogger("httpx")
    logger.addFilter(redacting)
    try:
        yield
    finally:
        logger.removeFilter(redacting)


def send_mail(email: Email, message: EmailMessage) -> None:
    """Send over SMTP; TLS as configured (never downgraded), signed in when credentials are
    set. Raises DeliveryError, also when the server refuses any recipient."""
    context = ssl.create_default_context()
    secrets = _values((email.username, email.password))
    try:
        server = (
            smtplib.SMTP_SSL(email.host, email.port, timeout=SMTP_TIMEOUT, context=context)
            if email.security == "ssl"
            else smtplib.SMTP(email.host, email.port, timeout=SMTP_TIMEOUT)
        )
        with server:
            if email.security == "starttls":
                server.starttls(context=context)
            if email.username is not None and email.password is not None:
                server.login(email.username.get_secret_value(), email.password.get_secret_value())
            refused = server.send_message(message)
    except (smtplib.SMTPException, OSError) as exc:
        reason = _redacted(f"{type(exc).__name__}: {exc}", secrets)
        raise DeliveryError(f"SMTP server {email.host}:{email.port}: {reason}") from None
    if refused:
        raise DeliveryError(
            f"SMTP server {email.host}:{email.port} refused {', '.join(sorted(refused))}"
        )


def post(client: httpx.Client, hook: Webhook, payload: dict[str, object]) -> None:
    """POST ``payload`` as JSON; anything but a 2xx answer raises DeliveryError."""
    try:
        response = client.post(
            hook.url.get_secret_value(),
            content=msgspec.json.encode(payload),
            headers={"Content-Type": "application/json"},
        )
    except httpx.HTTPError as exc:
        reason = _redacted(f"{type(exc).__name__}: {exc}", _address_secrets(hook))
        raise DeliveryError(f"webhook {hook.name}: {reason}") from None
    if not response.is_success:
        answer = _redacted(response.text, _address_secrets(hook))
        raise DeliveryError(
            f"webhook {hook.name}: HTTP {response.status_code} {response.reason_phrase}"
            + (f": {answer}" if answer else "")
        )


@dataclass(frozen=True)
class Delivery:
    """One message for one destination: sent, failed (``error``) or, in a dry run, shown
    (``preview``)."""

    destination: str
    event: Event
    error: str = ""
    preview: str = ""


# A message ready to go: its text as a dry run shows it, and how to send it.
Prepared = tuple[str, Callable[[], None]]


def _by_mail(config: AlertsConfig, email: Email, event: Event) -> Prepared:
    message = event_mail(email, event, config.link(event.link))
    # Headers as people read them (as_string would show the encoded forms of non-ASCII text).
    shown = "".join(f"{name}: {message[name]}\n" for name in ("From", "To", "Subject"))
    return f"{shown}\n{message.get_content()}", partial(send_mail, email, message)


def _by_webhook(
    config: AlertsConfig, client: httpx.Client, hook: Webhook, event: Event
) -> Prepared:
    payload = webhook_payload(hook.kind, event, config.link(event.link))
    body = json.dumps(payload, indent=2, ensure_ascii=False)
    return f"POST to the {hook.kind} webhook {hook.name}\n{body}", partial(
        post, client, hook, payload
    )


def deliver(
    events: Sequence[Event], config: AlertsConfig, state: DeliveryState, dry_run: bool = False
) -> list[Delivery]:
    """Send each event that is new or escalated for a destination, recording the intent before
    and the success at once after (see `analytics.alerts.delivery_state`), as the one notifier
    of the store; ``dry_run`` shows the messages instead and records nothing."""
    deliveries = []
    one_notifier = nullcontext() if dry_run else state.exclusive()
    with (
        one_notifier,
        _addresses_out_of_logs(config),
        httpx.Client(timeout=WEBHOOK_TIMEOUT) as client,
    ):
        routes: list[tuple[str, Callable[[Event], Prepared]]] = [
            (hook.name, partial(_by_webhook, config, client, hook)) for hook in config.webhooks
        ]
        if config.email is not None:
            routes.insert(0, (config.email.name, partial(_by_mail, config, config.email)))
        for destination, prepare in routes:
            for event in events:
                if not state.is_due(destination, event):
                    continue
                repeated = state.may_have_been_sent(destination, event)
                preview, send = prepare(event.possibly_repeated() if repeated else event)
                if dry_run:
                    deliveries.append(Delivery(destination, event, preview=preview))
                    continue
                state.begin(destination, event)
                try:
                    send()
                except DeliveryError as exc:
                    state.abandon(destination, event)
                    deliveries.append(Delivery(destination, event, error=str(exc)))
                    continue
                state.record(destination, event)
                deliveries.append(Delivery(destination, event))
    return deliveries
