"""Small organization files for the emulator, written out by the tests: a key with its tags or
pairs, its usage on a day, and the loader's verdict on a file that breaks the rules.

A test's organization file shows what sets its keys apart; the expected figures stay in the
test, worked out by hand from that file.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from pathlib import Path

import pytest

from emulator.orgfile import OrgFileError, load
from support.builders import enforced, guarded

# The file's usage fields by the short names the tests write them with.
USAGE_FIELDS = {
    "text": "text_translation_characters",
    "document": "document_translation_characters",
    "improvement": "text_improvement_characters",
    "stt": "speech_to_text_minutes",
    "sts": "speech_to_speech_minutes",
}
# A key's language pairs that split its translation 3 : 1 : 1 over en→ja, en→de and en→ja
# unattributed (cumulative floors), and send its improvement and speech-to-text to en→en.
SPLIT_PAIRS = """[
    { source = "en", target = "ja", weight = 3 },
    { source = "en", target = "de" },
    { source = "en", target = "ja", attributed = false },
    { source = "en", target = "en" },
]"""


def org_key(key: str, label: str, *lines: str, admin: bool = False) -> str:
    """One `[[keys]]` table, its own further lines (tags, pairs) after the key's fields: a
    test's organization file then shows only what sets its keys apart."""
    flags = ["admin = true"] if admin else []
    return "\n".join(["[[keys]]", f'key = "{key}"', f'label = "{label}"', *flags, *lines]) + "\n"


def org_usage(key: str, day: str, **figures: float) -> str:
    """One `[[usage]]` table: the key's figures on `day`, by the short names of USAGE_FIELDS
    (a figure not named is 0, as the file reads it)."""
    lines = [f"{USAGE_FIELDS[name]} = {value}" for name, value in figures.items()]
    return "\n".join(["[[usage]]", f'key = "{key}"', f'date = "{day}"', *lines]) + "\n"


def organization(*tables: str) -> str:
    """An organization file of the given tables (`org_key`, `org_usage`, `[plan]`)."""
    return "\n".join(tables)


# The admin key of an organization whose test needs no admin key of its own.
ORG_ADMIN = "org-admin-0001-aaaa:adm"


def admin_organization(*tables: str, admin: str = ORG_ADMIN) -> str:
    """An organization file billed from the 1st of each month, its admin key `admin` (labelled
    Admin) and then the given tables: the organization most command-line tests serve."""
    return organization("[plan]\nbilling_day = 1\n", org_key(admin, "Admin", admin=True), *tables)


def load_org(directory: Path, text: str):
    """The organization file `text` (written to `directory/org.toml`) as the emulator loads
    it."""
    path = directory / "org.toml"
    path.write_text(text)
    return load(path)


def org_file_error(directory: Path, text: str) -> str:
    """The message of the OrgFileError that loading the organization file `text` raises: the
    tests of the file's rules check what it names."""
    with pytest.raises(OrgFileError) as caught:
        load_org(directory, text)
    return str(caught.value)


# An organization of developer keys, as `keys` commands and the key view see it on KEYS_TODAY:
# a paid key joined by its key id, near its character limit; a speech key joined by label
# with a speech-to-text limit; a key never used; an admin key whose usage no listed key owns.
KEYS_ADMIN, KEYS_WEB = "keys-admin-0001-aaaa:adm", "ab12cd34-5555-6666-7777-8888ef56"
KEYS_SPEECH = "speech-team-9999-cccc"
KEYS_TODAY = dt.date(2025, 7, 10)
KEYS_ORG = admin_organization(
    org_key(KEYS_WEB, "Web shop", 'created = "2025-04-01T00:00:00Z"', "character_limit = 1000"),
    org_key(
        KEYS_SPEECH,
        "Speech",
        'created = "2025-06-01T00:00:00Z"',
        "speech_to_text_milliseconds_limit = 600000",
    ),
    org_key("unused-key-0000-dddd", "Planned", 'created = "2025-07-05T00:00:00Z"'),
    # 100 characters every day of the run rate's twelve weeks (2025-04-17 to 2025-07-09)
    *(
        org_usage(KEYS_WEB, str(dt.date(2025, 4, 17) + dt.timedelta(days=n)), text=100)
        for n in range(84)
    ),
    org_usage(KEYS_SPEECH, "2025-07-02", stt=2.5),
    org_usage(KEYS_ADMIN, "2025-07-03", text=7),
    admin=KEYS_ADMIN,
)


# Two enforced budgets over a small organization (small reserves and floors: 100 and 200
# characters): the organization within 50,000 characters and the Web team within 5,000.
GUARDED_BUDGETS = guarded(
    100, 200, enforced("Organization", 50_000), enforced("Web team", 5_000, 'team = "Web"')
)


def contract_year_end(today: dt.date) -> dt.date:
    """The last day of the contract year holding ``today``, from budgets.example.toml's
    contract_year_start (the file in force with --demo), worked out by hand."""
    start = tomllib.loads(
        (Path(__file__).resolve().parents[2] / "budgets.example.toml").read_text()
    )["contract_year_start"]
    month, day = (int(part) for part in start.split("-"))
    first = dt.date(today.year, month, day)
    if first > today:
        first = dt.date(today.year - 1, month, day)
    return dt.date(first.year + 1, month, day) - dt.timedelta(days=1)
