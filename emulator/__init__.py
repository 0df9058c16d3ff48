"""A spec-faithful local emulator of the Language Service API (see emulator/README.md)."""

from emulator.app import Emulator, create_app
from emulator.config import EmulatorConfig
from emulator.org import (
    Injected,
    KeySpec,
    LanguagePair,
    LedgerRow,
    PairLedgerRow,
    TagLedgerRow,
    TagShare,
    mask_key,
)
from emulator.plan import Plan

__all__ = [
    "Emulator",
    "EmulatorConfig",
    "Injected",
    "KeySpec",
    "LanguagePair",
    "LedgerRow",
    "PairLedgerRow",
    "Plan",
    "TagLedgerRow",
    "TagShare",
    "create_app",
    "mask_key",
]
