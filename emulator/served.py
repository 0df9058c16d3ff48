"""The organization one app serves: its store, plan and keys, and the live fault settings."""

from __future__ import annotations

import datetime as dt

from emulator.config import EmulatorConfig
from emulator.errors import ServiceError
from emulator.faults import Faults
from emulator.ledger import LedgerRow, PairLedgerRow, TagLedgerRow, UsageAmounts
from emulator.org import Injected, KeySpec, Organization
from emulator.plan import Plan, usage_body
from emulator.store import Store, StoredKey

AUTH_FAILED = "Authorization failed: supply a valid key in the Authorization header."


class Emulator:
    """One organization served over HTTP: its ledger, keys and live fault settings.

    `fingerprint` names the organization, so that a database file already holding it is
    reused rather than loaded again."""

    def __init__(self, config: EmulatorConfig, org: Organization, fingerprint: str) -> None:
        if config.page_size < 1:
            raise ValueError("page_size must be at least 1")
        self.config = config
        self.faults = Faults(
            latency_ms=config.latency_ms,
            fault_429_rate=config.fault_429_rate,
            fault_503_rate=config.fault_503_rate,
            retry_after_s=config.retry_after_s,
            seed=config.seed,
        )
        self.keys: list[KeySpec] = org.keys
        self.admin_key: str | None = org.admin_key
        self.plan: Plan = org.plan
        # The anomalies put into a synthetic organization: what detection should find.
        self.injected: list[Injected] = org.injected
        self.page_size = config.page_size
        self.synthetic = config.org_file is None
        self.store = Store(config.db)
        # Whether the organization was loaded now: False when `config.db` already held it,
        # with every change made to it since.
        self.loaded = self.store.ensure(fingerprint, org, self.today(), fresh=config.fresh)

    def today(self) -> dt.date:
        """The day translations and uploads book usage on (pinned by `EmulatorConfig.today`)."""
        return self.config.current_day()

    def ledger(self, start: dt.date, end: dt.date) -> list[LedgerRow]:
        """Stored key-days of the inclusive UTC day range, sorted by (usage_date, api_key)."""
        return self.store.ledger(start, end)

    def usage_and_limits(self, key: StoredKey) -> dict[str, object]:
        """The `GET /v2/usage` body: the billing period holding today, up to and with today;
        the calling key's character limit is its own when it has one."""
        period = self.plan.period(self.today())
        account, own = self.store.total(*self._so_far()), self.key_use(key)
        return usage_body(self.plan, period, account, own, key.character_limit)

    def _so_far(self) -> tuple[dt.date, dt.date]:
        """[first, stop) of the billing period holding today, up to and with today: the
        usage period of plan and key limits alike."""
        today = self.today()
        return self.plan.period(today)[0], today + dt.timedelta(days=1)

    def key_use(self, key: StoredKey) -> UsageAmounts:
        """The key's use of the current usage period so far."""
        return self.store.total(*self._so_far(), key.key_id)

    def now(self) -> dt.datetime:
        """The instant key changes are stamped with: now, on the emulator's current day."""
        now = dt.datetime.now(dt.UTC)
        return dt.datetime.combine(self.today(), now.timetz())

    def tag_ledger(self, start: dt.date, end: dt.date) -> list[TagLedgerRow]:
        """Tagged characters per key-day and tag of the inclusive UTC day range, sorted by
        (usage_date, api_key, custom_tag); the custom-tag report sums these."""
        return self.store.tag_ledger(start, end)

    def pair_ledger(self, start: dt.date, end: dt.date) -> list[PairLedgerRow]:
        """Usage per key-day and language pair of the inclusive UTC day range, sorted by
        (usage_date, api_key, source, target, attributed); the language-pair report sums
        these, with unattributed rows under key '-'."""
        return self.store.pair_ledger(start, end)

    def authenticate(self, authorization: str | None) -> StoredKey:
        """The calling key, or 403 when the header is missing, malformed or unknown."""
        scheme, _, key = (authorization or "").strip().partition(" ")
        found = None
        if scheme.lower() == self.config.auth_scheme.lower() and key.strip():
            found = self.store.find_key(key.strip())
        if found is None:
            raise ServiceError(403, AUTH_FAILED, "authorization_failed")
        return found
