"""Real receivers on loopback for the delivery tests: an SMTP server (aiosmtpd) and an HTTP
server that records what webhooks were sent. What they received is the tests' oracle."""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import ipaddress
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from bench.processes import free_port


@dataclass
class Mailbox:
    """What the SMTP server accepted; ``answer`` is its reply to each message's data."""

    port: int
    messages: list[EmailMessage] = field(default_factory=list)
    recipients: list[list[str]] = field(default_factory=list)
    raw: list[bytes] = field(default_factory=list)
    logins: list[tuple[str, str]] = field(default_factory=list)
    answer: str = "250 OK"
    # Called once a message is kept, before the answer goes back (a test's crash point).
    on_message: Callable[[], None] | None = None

    @property
    def subjects(self) -> list[str]:
        return [str(m["Subject"]) for m in self.messages]


class _MailHandler:
    def __init__(self, box: Mailbox) -> None:
        self.box = box

    async def handle_DATA(self, server, session, envelope) -> str:
        if self.box.answer.startswith("250"):
            self.box.raw.append(envelope.content)
            self.box.recipients.append(list(envelope.rcpt_tos))
            # Lines end in CRLF on the wire; parsed with Python's own line ends.
            content = envelope.content.replace(b"\r\n", b"\n")
            self.box.messages.append(email.message_from_bytes(content, policy=email.policy.default))
            if self.box.on_message is not None:
                self.box.on_message()
        return self.box.answer


@contextmanager
def smtp_server(
    port: int | None = None, credentials: tuple[str, str] | None = None, **options
) -> Iterator[Mailbox]:
    """aiosmtpd on 127.0.0.1 (`port`, else a free one); with `credentials` it takes mail only
    from a client signed in with them; `options` go to its SMTP class (tls_context,
    require_starttls...)."""
    box = Mailbox(port or free_port())
    if credentials is not None:
        options |= {"authenticator": _password_checker(box, *credentials), "auth_required": True}
    controller = Controller(_MailHandler(box), hostname="127.0.0.1", port=box.port, **options)
    controller.start()
    try:
        yield box
    finally:
        controller.stop()


def _password_checker(box: Mailbox, username: str, password: str):
    """An aiosmtpd authenticator taking only `username` / `password`, noting each login."""

    def check(server, session, envelope, mechanism, auth_data) -> AuthResult:
        if not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        login, secret = auth_data.login.decode(), auth_data.password.decode()
        box.logins.append((login, secret))
        return AuthResult(success=(login, secret) == (username, password), handled=False)

    return check


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, as PEM files (certificate, key)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "smtp-cert.pem", folder / "smtp-key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


@dataclass
class Post:
    path: str
    content_type: str
    body: bytes
    status: int  # what the receiver answered

    @property
    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class WebhookReceiver:
    """Records every POST; answers `status` (200 unless a test says otherwise)."""

    port: int = 0
    posts: list[Post] = field(default_factory=list)
    status: int = 200
    # Called once a post is kept, before the answer goes back (a test's crash point).
    on_post: Callable[[], None] | None = None

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def at(self, path: str) -> list[dict]:
        """The JSON bodies posted to `path` and accepted (2xx), in order."""
        return [post.json for post in self.posts if post.path == path and post.status < 300]


@contextmanager
def webhook_receiver() -> Iterator[WebhookReceiver]:
    """A threaded HTTP server on a free loopback port."""
    receiver = WebhookReceiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            content_type = self.headers.get("Content-Type", "")
            receiver.posts.append(Post(self.path, content_type, body, receiver.status))
            if receiver.on_post is not None:
                receiver.on_post()
            self.send_response(receiver.status)
            self.send_header("Content-Type", "text/plain")
            answer = b"ok" if receiver.status < 300 else b"receiver failed"
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def mail_and_webhook_alerts(folder: Path, mailbox: Mailbox, url_env: str) -> Path:
    """An alerts.toml in `folder` sending to `mailbox` and to one JSON webhook whose address
    is in the environment variable `url_env`."""
    path = folder / "alerts.toml"
    path.write_text(
        f"""base_url = "https://dash.example.org/usage"

[email]
host = "127.0.0.1"
port = {mailbox.port}
security = "none"
from = "alerts@example.org"
to = ["capacity@example.org"]

[[webhook]]
kind = "json"
url_env = "{url_env}"
""",
        encoding="utf-8",
    )
    return path


# The JSON webhook's path on the receiver, a channel's secret token in it as in a real address.
HOOK = "/hooks/json-token-5e6f"


@contextmanager
def alert_receivers(
    monkeypatch: pytest.MonkeyPatch, folder: Path
) -> Iterator[tuple[Mailbox, WebhookReceiver, Path]]:
    """A real SMTP server and webhook receiver on loopback, and an alerts file in `folder`
    sending to both: to the webhook at HOOK, its address in TEST_JSON_URL."""
    with smtp_server() as mailbox, webhook_receiver() as hooks:
        monkeypatch.setenv("TEST_JSON_URL", hooks.url(HOOK))
        yield mailbox, hooks, mail_and_webhook_alerts(folder, mailbox, "TEST_JSON_URL")
