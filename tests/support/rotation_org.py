"""The organization key rotation is tested on: an admin key and two keys created in January,
each used once in February, and the days of a rotation that begins on BEGUN (day 0), with
analytics closed through day 4 on TODAY; `traffic` books a key's use on the rotation's days,
as moving a client from the old key to the new one does. `rotation_organization` makes the
same three keys with another creation day, limit, speech label and usage."""

from __future__ import annotations

import datetime as dt

from fastapi import FastAPI

from support.orgfiles import admin_organization, org_key, org_usage

ADMIN, WEB, SPEECH = (
    "rot-admin-0001-aaaa:adm",
    "web0shop-1111-2222-3333-4444beef",
    "speech-9999-cccc",
)
BEGUN = dt.date(2026, 3, 2)  # day 0 of the rotation
TODAY = BEGUN + dt.timedelta(days=5)  # analytics closed through day 4


def rotation_organization(created: str, *usage: str, character_limit: int, speech: str) -> str:
    """An organization of ADMIN, WEB ("Web shop", its own `character_limit`) and SPEECH
    (labelled `speech`), both created at `created`, that used `usage`."""
    stamp = f'created = "{created}"'
    return admin_organization(
        org_key(WEB, "Web shop", stamp, f"character_limit = {character_limit}"),
        org_key(SPEECH, speech, stamp),
        *usage,
        admin=ADMIN,
    )


ORG = rotation_organization(
    "2026-01-05T00:00:00Z",
    org_usage(WEB, "2026-02-20", text=10),
    org_usage(SPEECH, "2026-02-21", text=10),
    character_limit=50000,
    speech="Speech",
)


def traffic(app: FastAPI, secret: str, days: range, characters: int) -> None:
    """Book `characters` on each of the rotation's `days` (0: the day it began) for a key."""
    store = app.state.emulator.store
    for n in days:
        store.record_usage(store.find_key(secret), BEGUN + dt.timedelta(days=n), text=characters)
