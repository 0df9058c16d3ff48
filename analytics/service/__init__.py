"""The Language Service as the rest of the library sees it: one client for every operation
(`client`, sync and async), how patiently it waits (`Policy`), how it is
reached (`service_connection`) and one error class per failure a caller reacts to (`errors`). The
answers' shapes are in `models`; how a request travels is `transport`, and the sync bridge
`sync`."""

from analytics.service.client import (
    DEFAULT_POLICY,
    KEEP,
    AsyncServiceClient,
    Keep,
    KeyChange,
    Limit,
    Policy,
    ServiceClient,
)
from analytics.service.decoding import (
    NOT_DOCUMENTED,
    RowDecoder,
    key_day_rows,
    pair_rows,
    tag_day_rows,
)
from analytics.service.demo import DEMO_BASE_URL, demo_lock
from analytics.service.errors import (
    AuthorizationError,
    BadRequestError,
    ConnectionFailedError,
    InvalidResponseError,
    NotFoundError,
    QuotaExceededError,
    RateLimitError,
    ServerError,
    ServiceError,
    one_line,
)
from analytics.service.models import (
    NO_LIMITS,
    CreatedKey,
    DetectionResult,
    DeveloperKey,
    LanguageEntry,
    LanguageResource,
    PlanUsage,
    Resource,
    UsageBreakdown,
    UsageLimits,
    V2Language,
)
from analytics.service.service_connection import (
    DemoFiles,
    ServiceConnection,
    default_history_path,
    setting_problems,
)
from analytics.service.sync import blocking
from analytics.service.transport import invalid_response

__all__ = [
    "DEFAULT_POLICY",
    "DEMO_BASE_URL",
    "KEEP",
    "NOT_DOCUMENTED",
    "NO_LIMITS",
    "AsyncServiceClient",
    "AuthorizationError",
    "BadRequestError",
    "ConnectionFailedError",
    "CreatedKey",
    "DemoFiles",
    "DetectionResult",
    "DeveloperKey",
    "InvalidResponseError",
    "Keep",
    "KeyChange",
    "LanguageEntry",
    "LanguageResource",
    "Limit",
    "NotFoundError",
    "PlanUsage",
    "Policy",
    "QuotaExceededError",
    "RateLimitError",
    "Resource",
    "RowDecoder",
    "ServerError",
    "ServiceClient",
    "ServiceConnection",
    "ServiceError",
    "UsageBreakdown",
    "UsageLimits",
    "V2Language",
    "blocking",
    "default_history_path",
    "demo_lock",
    "invalid_response",
    "key_day_rows",
    "one_line",
    "pair_rows",
    "setting_problems",
    "tag_day_rows",
]
