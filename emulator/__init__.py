"""A spec-faithful local emulator of the Language Service API (see docs/emulator.md)."""

from emulator.app import create_app
from emulator.config import EmulatorConfig
from emulator.ledger import LedgerRow, PairLedgerRow, TagLedgerRow, mask_key
from emulator.org import Injected, KeySpec, LanguagePair, TagShare
from emulator.plan import Plan
from emulator.served import Emulator

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
