"""Property-based conformance: generated requests against the emulator's own OpenAPI."""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance
from support.servers import auth, small_config

from emulator import create_app

APP = create_app(small_config())
ADMIN = auth(APP.state.emulator.admin_key)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schema.parametrize()
@settings(max_examples=12, suppress_health_check=list(HealthCheck))
def test_generated_requests_get_documented_answers(case):
    response = case.call(headers=ADMIN)
    assert response.status_code < 500, response.text
    assert response.headers["x-trace-id"]
    if response.status_code >= 400:
        assert response.json()["message"]
    case.validate_response(response, checks=(response_schema_conformance, status_code_conformance))
