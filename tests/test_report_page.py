"""The Capacity page in the headless dashboard: forecasts, budgets, comparison, report download."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_app import demo_env, open_page  # noqa: F401  (demo_env is a fixture)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def example_budgets(monkeypatch, tmp_path):
    """The dashboard reads budgets.toml from its working folder."""
    shutil.copy(ROOT / "budgets.example.toml", tmp_path / "budgets.toml")
    monkeypatch.chdir(tmp_path)


def test_capacity_page_without_budgets(demo_env):  # noqa: F811
    at = open_page("capacity", period="Last 30 days")
    assert not at.exception
    assert not at.error
    assert at.title[0].value == "Capacity"
    headers = [h.value for h in at.subheader]
    assert headers == ["Forecasts", "Period comparison", "Growth drivers"]
    assert len(at.get("plotly_chart")) == 4
    services = at.dataframe[1].value
    assert "Total characters" in services.index


def test_capacity_page_with_budgets(demo_env, example_budgets):  # noqa: F811
    at = open_page("capacity", period="Last 30 days")
    assert not at.exception
    assert not at.error
    assert at.subheader[0].value == "Budget status"
    status = at.dataframe[0].value
    assert len(status) == 5
    assert set(status["status"]) <= {"ok", "warning", "exceeded", "unknown key"}
