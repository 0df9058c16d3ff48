"""Decoding the analytics answer: the key-day frame against the obvious pandas way and against
orjson's parse alone, and the tolerant typed decoding against a strict one."""

from __future__ import annotations

import json

import msgspec
import orjson
import pandas as pd

from analytics.service.models import AdminUsageReport, KeyAndDayUsage
from analytics.usage import frames
from analytics.usage.metrics import CHARACTER_METRICS, MINUTE_METRICS
from bench import synthetic_orgs
from bench.result_lines import Result, result
from bench.timing import medians, rounded


def naive_key_day(body: bytes) -> pd.DataFrame:
    """The obvious way to the same frame: dicts first, then flatten, rename and fix dtypes."""
    items = json.loads(body)["usage_report"]["key_and_day_usages"]
    frame = pd.json_normalize(items).rename(columns=lambda c: c.removeprefix("usage."))
    days = pd.to_datetime(frame["usage_date"]).dt.tz_localize(None)
    frame["usage_date"] = days.astype(frames.DATE_DTYPE)
    frame = frame.astype(
        {**dict.fromkeys(CHARACTER_METRICS, "int64"), **dict.fromkeys(MINUTE_METRICS, "float64")}
    )
    frame = frame.sort_values(["usage_date", "api_key"], kind="stable", ignore_index=True)
    latest = frame.drop_duplicates("api_key", keep="last").set_index("api_key")["api_key_label"]
    frame["api_key_label"] = frame["api_key"].map(latest)
    for column in ("api_key", "api_key_label"):
        categories = sorted(frame[column].unique())
        frame[column] = pd.Categorical(frame[column], categories=categories)
    return frame[frames.KEY_DAY_COLUMNS]


class _StrictUsage(msgspec.Struct, frozen=True, gc=False):
    """The analytics answer as the spec reads it, every field required: what tolerant decoding
    (absent counts are 0, absent labels empty, two names for the rows) is measured against."""

    total_characters: int
    text_translation_characters: int
    document_translation_characters: int
    text_improvement_characters: int
    speech_to_text_minutes: float
    speech_to_speech_minutes: float


class _StrictRow(msgspec.Struct, frozen=True, gc=False):
    api_key: str
    api_key_label: str
    usage: _StrictUsage
    usage_date: str


class _StrictReport(msgspec.Struct, frozen=True):
    total_usage: _StrictUsage
    start_date: str
    end_date: str
    key_and_day_usages: list[_StrictRow]
    group_by: str | None = None


class _StrictAnswer(msgspec.Struct, frozen=True):
    usage_report: _StrictReport


def tidy_key_day(body: bytes) -> pd.DataFrame:
    return frames.key_day_frame([frames.decode_key_day(body)[0]])


def same_frame(left: pd.DataFrame, right: pd.DataFrame) -> bool:
    try:
        pd.testing.assert_frame_equal(left, right)
    except AssertionError:
        return False
    return True


def decoding(scale: synthetic_orgs.Scale) -> list[Result]:
    body = synthetic_orgs.key_and_day_body(scale.keys, 366)
    identical = same_frame(naive_key_day(body), tidy_key_day(body))
    times = medians(
        {
            "naive": lambda: naive_key_day(body),
            "frames": lambda: tidy_key_day(body),
            "orjson_loads": lambda: orjson.loads(body),
        },
        scale.repeat,
        warmup=scale.warmup,
    )
    tolerant, strict = (
        msgspec.json.Decoder(AdminUsageReport[KeyAndDayUsage]),
        msgspec.json.Decoder(_StrictAnswer),
    )
    typed = medians(
        {"tolerant": lambda: tolerant.decode(body), "strict": lambda: strict.decode(body)},
        scale.repeat,
        warmup=scale.warmup,
    )
    raw = {"seconds": rounded(times), "body_mb": round(len(body) / 1e6, 1)}
    return [
        result(
            "decode_vs_naive",
            times["frames"] / times["naive"],
            0.2,
            {"identical": identical},
            **raw,
        ),
        result("decode_vs_orjson", times["frames"] / times["orjson_loads"], 0.5, {}, **raw),
        result(
            "decode_tolerance",
            typed["tolerant"] / typed["strict"],
            1.1,
            {},
            seconds=rounded(typed),
            body_mb=raw["body_mb"],
        ),
    ]
