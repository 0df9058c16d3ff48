"""Organizations defined in a TOML file (`[[keys]]`, `[[usage]]`, `[plan]`; docs/emulator.md)."""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from pathlib import Path
from typing import Any

from emulator.ledger import METRICS, MINUTE_METRICS, UsageTuple
from emulator.org import (
    ADMIN_SUFFIX,
    PARTS,
    KeySpec,
    LanguagePair,
    Organization,
    TagShare,
    most_active,
)
from emulator.plan import DEFAULT_MINUTES_LIMIT, Plan

TABLES = ("keys", "usage", "plan")
KEY_FIELDS = {
    "key", "label", "admin", "detect_beta", "tags", "pairs", "key_id", "created", "deactivated",
    "character_limit", "speech_to_text_milliseconds_limit",
}  # fmt: skip
GUID = r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"
KEY_ID = re.compile(f"{GUID}:{GUID}")
TAG_FIELDS = {"tag", "share", "first", "last"}
PAIR_FIELDS = {"source", "target", "weight", "attributed"}
LANGUAGE = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?")
USAGE_FIELDS = {"key", "date", *METRICS}
# Integer fields of [plan]: (default, least allowed value, largest allowed value or None).
PLAN_NUMBERS: dict[str, tuple[int | None, int, int | None]] = {
    "billing_day": (1, 1, 31),
    "character_limit": (None, 0, None),
    "speech_to_text_minutes_limit": (DEFAULT_MINUTES_LIMIT, 0, None),
    "speech_to_speech_minutes_limit": (DEFAULT_MINUTES_LIMIT, 0, None),
}


class OrgFileError(ValueError):
    """A readable reason why an organization file was rejected (never quotes a full key)."""


def load(path: Path) -> Organization:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise OrgFileError(f"{path}: cannot read the file ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise OrgFileError(f"{path}: not valid TOML ({exc})") from None
    return parse(data, str(path))


def parse(data: dict[str, Any], where: str = "organization") -> Organization:
    unknown = set(data) - set(TABLES)
    if unknown:
        raise OrgFileError(
            f"{where}: unknown table(s) {sorted(unknown)}; expected {', '.join(TABLES)}"
        )
    keys = [
        _key(item, f"{where}: keys[{i}]") for i, item in enumerate(_tables(data, "keys", where))
    ]
    if not keys:
        raise OrgFileError(f"{where}: at least one [[keys]] entry is needed")
    index = {spec.key: i for i, spec in enumerate(keys)}
    if len(index) != len(keys):
        raise OrgFileError(f"{where}: the same key is listed twice in [[keys]]")
    if len({spec.masked for spec in keys}) != len(keys):
        raise OrgFileError(f"{where}: two keys share the same masked form; make them differ")
    usage: dict[tuple[str, int], UsageTuple] = {}
    for i, item in enumerate(_tables(data, "usage", where)):
        row = _usage(item, index, keys, f"{where}: usage[{i}]")
        if (row[0], row[1]) in usage:
            raise OrgFileError(f"{where}: usage[{i}] repeats a key and date already listed")
        usage[(row[0], row[1])] = row
    rows = sorted(usage.values(), key=lambda r: (r[0], r[1]))
    plan = _plan(data.get("plan", {}), f"{where}: plan")
    active, most = sum(not k.admin and k.deactivated is None for k in keys), most_active(plan.pro)
    if active > most:
        raise OrgFileError(
            f"{where}: {active} developer keys are active, but the service allows at most "
            f"{most} at once on a {'paid' if plan.pro else 'free'} plan; give the others a "
            "deactivated time"
        )
    return Organization(keys=keys, usage=rows, plan=plan)


def _plan(item: Any, where: str) -> Plan:
    """The [plan] table; without one, a paid plan billed from the 1st with no cost control."""
    if not isinstance(item, dict):
        raise OrgFileError(f"{where} must be a table ([plan])")
    _no_unknown(item, {"pro", *PLAN_NUMBERS}, where)
    pro = item.get("pro", True)
    if not isinstance(pro, bool):
        raise OrgFileError(f"{where}: pro must be true or false")
    numbers = {}
    for name, (default, least, most) in PLAN_NUMBERS.items():
        value = item.get(name, default)
        if name in item and (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < least
            or (most is not None and value > most)
        ):
            upper = f" to {most}" if most is not None else " or more"
            raise OrgFileError(f"{where}: {name} must be an integer from {least}{upper}")
        numbers[name] = value
    return Plan(pro=pro, **numbers)


def _tables(data: dict[str, Any], name: str, where: str) -> list[dict[str, Any]]:
    items = data.get(name, [])
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise OrgFileError(f"{where}: {name} must be an array of tables ([[{name}]])")
    return items


def _key(item: dict[str, Any], where: str) -> KeySpec:
    _no_unknown(item, KEY_FIELDS, where)
    key, label = item.get("key"), item.get("label", "")
    if not isinstance(key, str) or not key.strip():
        raise OrgFileError(f"{where}: key must be a non-empty string")
    if not isinstance(label, str):
        raise OrgFileError(f"{where}: label must be a string")
    flags = {name: item.get(name, False) for name in ("admin", "detect_beta")}
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise OrgFileError(f"{where}: {name} must be true or false")
    if flags["admin"] and not key.endswith(ADMIN_SUFFIX):
        raise OrgFileError(
            f"{where}: admin = true needs a key ending in {ADMIN_SUFFIX} (an admin key's "
            "suffix; a key with it is an admin key, with or without admin = true)"
        )
    key_id = item.get("key_id", "")
    if not isinstance(key_id, str) or (key_id and not KEY_ID.fullmatch(key_id)):
        raise OrgFileError(f"{where}: key_id must be two GUIDs joined by a colon")
    created, deactivated = (
        _instant(item.get(name), where, name) for name in ("created", "deactivated")
    )
    if created and deactivated and deactivated < created:
        raise OrgFileError(f"{where}: deactivated must not be before created")
    limits = [
        _limit(item.get(name), where, name)
        for name in ("character_limit", "speech_to_text_milliseconds_limit")
    ]
    tags = tuple(
        _tag(tag, f"{where}.tags[{i}]") for i, tag in enumerate(_tables(item, "tags", where))
    )
    if len({t.tag for t in tags}) != len(tags):
        raise OrgFileError(f"{where}: a tag is listed twice")
    if sum(t.parts for t in tags) > PARTS:
        raise OrgFileError(f"{where}: the tags' shares add up to more than 1")
    pairs = tuple(
        _pair(pair, f"{where}.pairs[{i}]") for i, pair in enumerate(_tables(item, "pairs", where))
    )
    if len({(p.source, p.target, p.attributed) for p in pairs}) != len(pairs):
        raise OrgFileError(f"{where}: a language pair is listed twice")
    return KeySpec(
        key,
        label,
        flags["detect_beta"],
        tags,
        pairs,
        key_id,
        created,
        deactivated,
        *limits,
    )


def _instant(value: Any, where: str, name: str) -> dt.datetime | None:
    """A TOML date-time (a time without an offset is UTC), a day (its 00:00 UTC), an ISO
    string of either, or None when absent."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value)
        except ValueError:
            raise OrgFileError(f"{where}: {name} must be a date-time or a day") from None
    if not isinstance(value, dt.datetime) and isinstance(value, dt.date):
        value = dt.datetime.combine(value, dt.time())
    if not isinstance(value, dt.datetime):
        raise OrgFileError(f"{where}: {name} must be a date-time or a day")
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def _limit(value: Any, where: str, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise OrgFileError(f"{where}: {name} must be a whole number ≥ 0 (leave it out for none)")
    return value


def _pair(item: dict[str, Any], where: str) -> LanguagePair:
    _no_unknown(item, PAIR_FIELDS, where)
    for name in ("source", "target"):
        if not isinstance(item.get(name), str) or not LANGUAGE.fullmatch(item[name]):
            raise OrgFileError(f"{where}: {name} must be a language code such as en or pt-BR")
    weight, attributed = item.get("weight", 1), item.get("attributed", True)
    if isinstance(weight, bool) or not isinstance(weight, int) or weight < 1:
        raise OrgFileError(f"{where}: weight must be a positive integer")
    if not isinstance(attributed, bool):
        raise OrgFileError(f"{where}: attributed must be true or false")
    return LanguagePair(item["source"], item["target"], weight, attributed)


def _tag(item: dict[str, Any], where: str) -> TagShare:
    _no_unknown(item, TAG_FIELDS, where)
    tag, share = item.get("tag"), item.get("share")
    if not isinstance(tag, str) or not tag.strip():
        raise OrgFileError(f"{where}: tag must be a non-empty string")
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:
        raise OrgFileError(f"{where}: share must be a number above 0 and at most 1")
    first, last = (
        _day(item[name], where, name) if name in item else None for name in ("first", "last")
    )
    if first and last and last < first:
        raise OrgFileError(f"{where}: last must not be before first")
    return TagShare(tag, float(share), first, last)


def _usage(
    item: dict[str, Any], index: dict[str, int], keys: list[KeySpec], where: str
) -> UsageTuple:
    _no_unknown(item, USAGE_FIELDS, where)
    key = item.get("key")
    if key not in index:
        raise OrgFileError(f"{where}: key is not listed in [[keys]]")
    day = _day(item.get("date"), where, "date")
    values = []
    for metric in METRICS:
        value = item.get(metric, 0)
        is_minutes = metric in MINUTE_METRICS
        allowed = (int, float) if is_minutes else (int,)
        if isinstance(value, bool) or not isinstance(value, allowed) or value < 0:
            kind = "number" if is_minutes else "integer"
            raise OrgFileError(f"{where}: {metric} must be a non-negative {kind}")
        values.append(float(value) if is_minutes else value)
    spec = keys[index[key]]
    return (day.isoformat(), index[key], spec.label, *values)


def _day(value: Any, where: str, name: str) -> dt.date:
    """A TOML date or a `YYYY-MM-DD` string."""
    try:
        day = dt.date.fromisoformat(value) if isinstance(value, str) else value
    except ValueError:
        day = None
    if not isinstance(day, dt.date) or isinstance(day, dt.datetime):
        raise OrgFileError(f"{where}: {name} must be a day formatted YYYY-MM-DD")
    return day


def _no_unknown(item: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = set(item) - allowed
    if unknown:
        raise OrgFileError(f"{where}: unknown field(s) {sorted(unknown)}")
