"""The measured targets, one module per area: each scenario returns result lines
`{"name", "ratio", "target", "ok", ...}`, and this table names them in the order they run.

`ratio` is always "ours / reference" (or a figure over its limit, or a goal over what was
reached), and `ok` means `ratio <= target` with every side condition (identical output, figure
sizes) met.
"""

from __future__ import annotations

from collections.abc import Callable

from bench import (
    anomalies,
    browser,
    capacity,
    data_out,
    decoding,
    exports,
    forecasts,
    guardrails,
    page_scale,
    pairs,
    pricing,
    real_series,
    scoped,
    state,
    synthetic_orgs,
    tags,
    windows,
)
from bench.result_lines import Result

SCENARIOS: dict[str, Callable[[synthetic_orgs.Scale], list[Result]]] = {
    "decoding": decoding.decoding,
    "csv_export": exports.csv_export,
    "memory": exports.memory,
    "focus_export": data_out.focus_export,
    "dataset_incremental": data_out.dataset_incremental,
    "api_usage": data_out.api_usage,
    "pages": page_scale.pages,
    "incremental_refresh": windows.incremental_refresh,
    "concurrent_windows": windows.concurrent_windows,
    "capacity_rerun": capacity.capacity_rerun,
    "tag_fetch": tags.tag_fetch,
    "anomaly_detection": anomalies.anomaly_detection,
    "check_anomalies": anomalies.check_anomalies,
    "state_marks": state.state_marks,
    "state_pages": state.state_pages,
    "chargeback_pricing": pricing.chargeback_pricing,
    "pair_fetch": pairs.pair_fetch,
    "tag_fetch_10k": tags.tag_fetch_10k,
    "tags_scale": tags.tags_scale,
    "guardrails": guardrails.guardrails,
    "browser_pages": browser.browser_pages,
    "session_memory": browser.session_memory,
    "scoped_pages": scoped.scoped_pages,
    "forecast_quality": forecasts.forecast_quality,
    "forecast_quality_hard": forecasts.forecast_quality_hard,
    "forecast_quality_real": real_series.forecast_quality_real,
    "recommend_time": forecasts.recommend_time,
}
