"""The sync bridge: an async client's coroutines run on one private event loop, so the
dashboard and the command line call the same operations without an event loop of their own.

`Blocking` holds the async client and its loop; `blocking` turns one coroutine function whose
first argument is the async client into a method of the sync face, with the same name,
arguments and docstring, so the two faces cannot drift apart.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar

from analytics.service.transport import Transport

T = TypeVar("T")
P = ParamSpec("P")
Client = TypeVar("Client", bound=Transport)


class _EventLoopThread:
    """A private event loop on a daemon thread, so sync callers on any thread (Streamlit's
    script threads, the CLI) share one connection pool and never nest event loops."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="service-client", daemon=True
        )
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self, client: Transport) -> None:
        if self.loop.is_closed():
            return
        try:
            self.run(client.aclose())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=5)
            self.loop.close()


class Blocking(Generic[Client]):
    """The sync face of an async client: its coroutines run on the face's own event loop
    thread, which is stopped (and the client's connections closed) by `close` or when the
    face is collected."""

    def __init__(self, async_client: Client) -> None:
        self.async_client = async_client
        self._loop = _EventLoopThread()
        self._finalizer = weakref.finalize(self, self._loop.stop, async_client)

    def run(
        self,
        func: Callable[Concatenate[Client, P], Coroutine[Any, Any, T]],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """`func(async_client, *args, **kwargs)` run on the client's loop, waited for."""
        return self._loop.run(func(self.async_client, *args, **kwargs))

    def close(self) -> None:
        self._finalizer()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def blocking(
    method: Callable[Concatenate[Client, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[Blocking[Client], P], T]:
    """The sync form of an async client's method, or of any coroutine function whose first
    argument is the async client: same name, arguments and docstring, run on the sync
    client's loop."""

    def call(self: Blocking[Client], /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.run(method, *args, **kwargs)

    functools.update_wrapper(call, method)
    return call
