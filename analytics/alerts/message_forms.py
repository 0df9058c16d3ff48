"""Each destination's form of a message: e-mail, Slack, Teams and plain JSON.

Only what an event or a report says goes in: never a credential, a webhook address or a key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr

from analytics.alerts.alert_settings import Email, WebhookKind
from analytics.alerts.events import Event

OPEN = "Open the dashboard"
# Headers as long as a line may be (RFC 5322, 998 characters), so a subject is never folded:
# the standard library folds before an encoded word (a "·", an "é") keeping the space before
# the fold, and a reader then sees two spaces where the subject has one.
UNFOLDED = policy.default.clone(max_line_length=998)


@dataclass(frozen=True)
class Attachment:
    """A file sent with a message, e.g. the meeting report."""

    filename: str
    content: bytes
    mime_type: str  # "application/pdf"


def mail(email: Email, recipients: Sequence[str], subject: str, body: str) -> EmailMessage:
    """A plain-text message from the configured sender."""
    message = EmailMessage(policy=UNFOLDED)
    message["Subject"] = subject
    message["From"] = email.sender
    message["To"] = ", ".join(recipients)
    message["Date"] = formatdate(usegmt=True)
    # The sender's domain, not the host name: a look-up of it can hang on a badly set up host.
    domain = parseaddr(email.sender)[1].rpartition("@")[2]
    message["Message-ID"] = make_msgid(domain=domain or None)
    message.set_content(body)
    return message


def event_mail(email: Email, event: Event, link: str) -> EmailMessage:
    """An event to the configured recipients."""
    return mail(email, email.to, event.subject, f"{event.text}\n\n{OPEN}: {link}\n")


def with_attachment(message: EmailMessage, attachment: Attachment) -> EmailMessage:
    """``message`` with ``attachment`` added (the text stays the first part)."""
    maintype, _, subtype = attachment.mime_type.partition("/")
    # Text is UTF-8 here (the HTML report); without the charset a reader would guess ASCII.
    params = {"charset": "utf-8"} if maintype == "text" else None
    message.add_attachment(
        attachment.content,
        maintype=maintype,
        subtype=subtype,
        filename=attachment.filename,
        params=params,
    )
    return message


def _slack_escaped(text: str) -> str:
    """Slack reads <, > and & as markup; a key label may hold them."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def webhook_payload(kind: WebhookKind, event: Event, link: str) -> dict[str, object]:
    """The JSON body a webhook of ``kind`` takes."""
    if kind == "slack":
        subject, text = _slack_escaped(event.subject), _slack_escaped(event.text)
        return {"text": f"*{subject}*\n{text}\n<{link}|{OPEN}>"}
    if kind == "teams":
        # An Adaptive Card in a message, as Teams workflows ("post to a channel when a webhook
        # request is received") take it.
        card = {
            "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
            "type": "AdaptiveCard",
            "version": "1.4",
            "body": [
                {"type": "TextBlock", "text": event.subject, "weight": "Bolder", "wrap": True},
                {"type": "TextBlock", "text": event.text, "wrap": True},
            ],
            "actions": [{"type": "Action.OpenUrl", "title": OPEN, "url": link}],
        }
        return {
            "type": "message",
            "attachments": [
                {"contentType": "application/vnd.microsoft.card.adaptive", "content": card}
            ],
        }
    return {
        "id": event.id,
        "level": event.level,
        "subject": event.subject,
        "text": event.text,
        "link": link,
    }
