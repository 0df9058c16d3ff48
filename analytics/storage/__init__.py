"""What the programs keep on and read from the local disk and the state store: the state store
over the embedded SQLite file or PostgreSQL (`state_store`) and its tables (`schema`), files
written atomically and a damaged one moved aside (`files`), the organization's TOML files read
into typed structures (`tomlfiles`), where the files shipped beside the library are (`bundle`),
and where a program's Arrow buffers come from (`allocator`).

It imports nothing of ours, and the service layer nothing of it: each stands on its own at the
bottom, one speaking HTTP and the other the disk, and every layer above reads both."""

from analytics.storage.allocator import use_system_allocator
from analytics.storage.bundle import bundle_folder, organization_file
from analytics.storage.files import move_aside, write_atomic
from analytics.storage.schema import (
    api_tokens,
    audit,
    deliveries,
    guardrails,
    marks,
    rotations,
    settings_versions,
)
from analytics.storage.state_store import (
    EMBEDDED_FILE,
    Store,
    StoreError,
    StoreUnavailable,
    check_text,
    embedded_store,
    open_store,
    upsert,
)
from analytics.storage.tomlfiles import parse_toml, read_text

__all__ = [
    "EMBEDDED_FILE",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "api_tokens",
    "audit",
    "bundle_folder",
    "check_text",
    "deliveries",
    "embedded_store",
    "guardrails",
    "marks",
    "move_aside",
    "open_store",
    "organization_file",
    "parse_toml",
    "read_text",
    "rotations",
    "settings_versions",
    "upsert",
    "use_system_allocator",
    "write_atomic",
]
