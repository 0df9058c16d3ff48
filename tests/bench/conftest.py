"""What the smoke runs' test files share: the organization's ledger their scenarios read."""

import datetime as dt

import pytest
from support.bench import HISTORY_DAYS, KEYS

from emulator import EmulatorConfig, create_app


@pytest.fixture(scope="module")
def five_years(smoke):
    """The smoke organization's ledger of the five years the scenarios read, rebuilt here
    (`smoke` is the test file's own run)."""
    app = create_app(EmulatorConfig(seed=42, keys=KEYS, days=HISTORY_DAYS, today=smoke.today))
    emulator = app.state.emulator
    yield emulator.ledger(
        smoke.today - dt.timedelta(days=HISTORY_DAYS), smoke.today - dt.timedelta(days=1)
    )
    emulator.store.close()
