"""`serve-api --demo` as deployed: uvicorn on loopback starts the API by its factory's name, a
token of `api tokens create` opens it, and the journal's line names the call and the token's id,
never the token."""

from __future__ import annotations

import subprocess
import sys
import tempfile

import httpx
from support.builders import invoke
from support.headless import ROOT

from bench.processes import free_port, stop_process, wait_until_healthy


def test_serve_api_answers_on_loopback_and_logs_the_call_without_the_token(demo_env):
    created = invoke("api", "tokens", "create", "--team", "Marketing", "--demo")
    assert created.exit_code == 0, created.stderr
    token = created.stdout.strip()
    token_id = created.stderr.split()[2]
    port = free_port()
    command = [sys.executable, "-m", "analytics", "serve-api", "--demo", "--port", str(port)]
    with tempfile.TemporaryFile(mode="w+") as stderr:
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            base = f"http://127.0.0.1:{port}/api/v1"
            assert wait_until_healthy(f"{base}/openapi.json", process)
            answer = httpx.get(f"{base}/budgets", headers={"Authorization": f"Bearer {token}"})
            assert answer.status_code == 200
            assert httpx.get(f"{base}/budgets").status_code == 401
        finally:
            stop_process(process)
        stderr.seek(0)
        log = stderr.read()
    assert f"GET /api/v1/budgets 200 token {token_id} (Marketing)" in log
    assert "GET /api/v1/budgets 401 token no token" in log
    assert token not in log
