"""The questions both front ends ask (anomalies over their look-back, the plan now, every
budget's status, each key's limits, the client of the demo or the real service) are answered
once, in the library: the command line, the dashboard and its pages call those answers through
their readers, never the steps an answer is made of."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FRONT_ENDS = sorted(
    [
        *ROOT.glob("analytics/cli/*.py"),
        *ROOT.glob("analytics/dashboard/**/*.py"),
        *ROOT.glob("app_pages/*.py"),
        ROOT / "app.py",
    ]
)
# The steps, by the module defining them, that only the answers compose: the answer each
# belongs to is named beside it.
STEPS: dict[str, tuple[str, ...]] = {
    # analytics.anomalies.lookback
    "analytics.anomalies.detect": ("LOOKBACK_DAYS", "find_anomalies"),
    "analytics.anomalies.listing": ("anomaly_window",),
    # analytics.capacity.budgets.todays_status, analytics.keys.listed
    "analytics.capacity.budgets.billing": (
        "plan_snapshot",
        "usage_range",
        "period_range",
        "billing_period",
    ),
    "analytics.capacity.budgets.evaluation": ("evaluate", "evaluate_plan", "in_file_order"),
    "analytics.capacity.forecasting.run_rate_model": ("required_start",),
    # the steps the faces hand on to the library's packages (the keys, the guardrails, the
    # review)
    "analytics.capacity.budgets": ("billing_period", "period_range", "evaluate"),
    "analytics.capacity.forecasting": ("required_start",),
    "analytics.keys.limits": ("limit_evaluations", "view_range", "overview"),
    # analytics.capacity.capacity_review.review_of
    "analytics.capacity.capacity_review": ("review_range", "build_review"),
    # analytics.capacity.decision.buying.plan_for_term (today's plan, the Plan card's limits
    # priced)
    "analytics.capacity.decision.buying": ("todays_plan", "service_mix", "plan_terms"),
    # analytics.connection.service_client
    "analytics.connection": ("demo_client", "demo_app"),
}


def steps_used(tree: ast.Module) -> set[str]:
    """The steps a module names: imported from their module, or read as an attribute of it
    (``import analytics.capacity.budgets.billing as billing`` then ``billing.usage_range``)."""
    modules: dict[str, str] = {}  # local name -> module
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if alias.name in STEPS.get(node.module, ()):
                    used.add(f"{node.module}.{alias.name}")
                modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = modules.get(node.value.id)
            if module is not None and node.attr in STEPS.get(module, ()):
                used.add(f"{module}.{node.attr}")
    return used


def test_the_steps_exist() -> None:
    """A step renamed or moved would let a front end compose it unseen: each is where it is
    named."""
    for module, names in STEPS.items():
        defined = importlib.import_module(module)
        assert all(hasattr(defined, name) for name in names), module


def test_a_composed_step_is_found() -> None:
    source = """
from analytics.capacity.budgets.billing import PlanSnapshot, usage_range
import analytics.anomalies.detect as detect
from analytics.keys import limits
from analytics import connection

detect.find_anomalies(frame, start, start, end)
limits.limit_evaluations(rows, period, 0.8)
connection.service_client(settings, demo)
detect.Anomaly
"""
    assert steps_used(ast.parse(source)) == {
        "analytics.capacity.budgets.billing.usage_range",
        "analytics.anomalies.detect.find_anomalies",
        "analytics.keys.limits.limit_evaluations",
    }


@pytest.mark.parametrize("path", FRONT_ENDS, ids=lambda p: str(p.relative_to(ROOT)))
def test_front_ends_only_ask(path: Path) -> None:
    assert steps_used(ast.parse(path.read_text(encoding="utf-8"))) == set()
