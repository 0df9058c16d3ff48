"""moto's S3 server on a free loopback port, reached as the commands reach any S3-compatible
store: through the AWS environment variables, which the processes a test starts inherit."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
import s3fs
from moto.server import ThreadedMotoServer

from bench.processes import free_port


@contextmanager
def s3_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[s3fs.S3FileSystem]:
    """The server, empty, with the variables set; the filesystem s3fs makes of them."""
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port)
    server.start()
    # moto's state is the process's: an earlier test's bucket is gone from this server too.
    httpx.post(f"http://127.0.0.1:{port}/moto-api/reset").raise_for_status()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test-access")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
    s3fs.S3FileSystem.clear_instance_cache()
    try:
        yield s3fs.S3FileSystem()
    finally:
        s3fs.S3FileSystem.clear_instance_cache()
        server.stop()
