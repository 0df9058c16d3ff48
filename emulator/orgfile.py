"""Organizations defined in a TOML file (`[[keys]]` and `[[usage]]` tables; see README)."""

from __future__ import annotations

import datetime as dt
import tomllib
from pathlib import Path
from typing import Any

from emulator.org import METRICS, MINUTE_METRICS, KeySpec, Organization, UsageTuple

KEY_FIELDS = {"key", "label", "admin", "detect_beta"}
USAGE_FIELDS = {"key", "date", *METRICS}


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
    unknown = set(data) - {"keys", "usage"}
    if unknown:
        raise OrgFileError(f"{where}: unknown table(s) {sorted(unknown)}; expected keys, usage")
    keys = [_key(item, f"{where}: keys[{i}]") for i, item in enumerate(_tables(data, "keys"))]
    if not keys:
        raise OrgFileError(f"{where}: at least one [[keys]] entry is needed")
    index = {spec.key: i for i, spec in enumerate(keys)}
    if len(index) != len(keys):
        raise OrgFileError(f"{where}: the same key is listed twice in [[keys]]")
    if len({spec.masked for spec in keys}) != len(keys):
        raise OrgFileError(f"{where}: two keys share the same masked form; make them differ")
    usage: dict[tuple[str, int], UsageTuple] = {}
    for i, item in enumerate(_tables(data, "usage")):
        row = _usage(item, index, keys, f"{where}: usage[{i}]")
        if (row[0], row[1]) in usage:
            raise OrgFileError(f"{where}: usage[{i}] repeats a key and date already listed")
        usage[(row[0], row[1])] = row
    return Organization(keys=keys, usage=sorted(usage.values(), key=lambda r: (r[0], r[1])))


def _tables(data: dict[str, Any], name: str) -> list[dict[str, Any]]:
    items = data.get(name, [])
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise OrgFileError(f"{name} must be an array of tables ([[{name}]])")
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
    return KeySpec(key, label, **flags)


def _usage(
    item: dict[str, Any], index: dict[str, int], keys: list[KeySpec], where: str
) -> UsageTuple:
    _no_unknown(item, USAGE_FIELDS, where)
    key = item.get("key")
    if key not in index:
        raise OrgFileError(f"{where}: key is not listed in [[keys]]")
    day = item.get("date")
    try:
        day = dt.date.fromisoformat(day) if isinstance(day, str) else day
    except ValueError:
        day = None
    if not isinstance(day, dt.date) or isinstance(day, dt.datetime):
        raise OrgFileError(f"{where}: date must be a day formatted YYYY-MM-DD")
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


def _no_unknown(item: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = set(item) - allowed
    if unknown:
        raise OrgFileError(f"{where}: unknown field(s) {sorted(unknown)}")
