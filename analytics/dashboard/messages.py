"""Service and state-store failures as messages on the page instead of tracebacks."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import streamlit as st

from analytics.dashboard.source import Source
from analytics.service import (
    AuthorizationError,
    ConnectionFailedError,
    RateLimitError,
    ServiceError,
)
from analytics.storage import StoreError


@contextmanager
def service_errors(src: Source) -> Iterator[None]:
    """Around a page's service calls: a failure becomes a message, and the run stops there."""
    try:
        yield
    except ServiceError as exc:
        stop_with_error(exc, src)


def stop_with_error(exc: ServiceError, src: Source) -> NoReturn:
    """`show_error`, and the run stops there."""
    show_error(exc, src)
    st.stop()


def show_error(exc: ServiceError, src: Source) -> None:
    """A clear message quoting the trace id where there is one."""
    if isinstance(exc, ConnectionFailedError):
        st.error(
            f"The service at {src.connection.base_url} cannot be reached. Check "
            f"SERVICE_BASE_URL and the network, then reload. ({exc})",
            icon=":material/cloud_off:",
        )
    elif isinstance(exc, AuthorizationError):
        st.error(
            "The service refused the API key (403). Check that SERVICE_AUTH_KEY is an "
            f"administrator key of this organization. ({exc})",
            icon=":material/lock:",
        )
    elif isinstance(exc, RateLimitError):
        st.error(
            "The service is limiting the rate of requests (429) and kept doing so through "
            f"every retry. Wait a minute, then reload. ({exc})",
            icon=":material/hourglass:",
        )
    else:
        st.error(f"The service could not answer: {exc}", icon=":material/error:")


def show_store_error(exc: StoreError, meanwhile: str = "") -> None:
    """The state store failed: what is kept there (marks, the audit log, the guardrails'
    memory, deliveries) cannot be read or written now; usage, from the service, still shows;
    ``meanwhile``: what the page uses instead, in words."""
    st.warning(
        f"{exc}. Marks, the key audit log and the guardrails' memory cannot be read or kept "
        "until it answers; usage comes from the service and is shown as usual."
        + (f" {meanwhile}" if meanwhile else ""),
        icon=":material/database:",
    )


@contextmanager
def store_errors() -> Iterator[None]:
    """Around a part of a page that reads or writes the state store: a failure ends that part
    with `show_store_error`, and the rest of the page goes on."""
    try:
        yield
    except StoreError as exc:
        show_store_error(exc)
