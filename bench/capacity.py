"""The Capacity page's rerun: a rerun that changes nothing against the first run of a fresh
session, rendered in-process with Streamlit's AppTest."""

from __future__ import annotations

import os
import statistics
import tempfile

from bench import synthetic_orgs
from bench.result_lines import Result, result
from bench.timing import rounded, timed


def capacity_rerun(scale: synthetic_orgs.Scale) -> list[Result]:
    """The Capacity page over all history: a rerun that changes neither the range nor the
    budgets (any widget) against the first run of a fresh session with empty caches."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from analytics.pages import page_at

    page = str(page_at("capacity").file)
    runs: dict[str, list[float]] = {"cold": [], "warm": []}
    with tempfile.TemporaryDirectory() as folder, synthetic_orgs.demo_environment(folder):
        os.environ["SERVICE_DEMO_KEYS"] = str(scale.keys)
        # The warm-up rounds (the first builds the organization) are dropped.
        for _ in range(scale.warmup + scale.repeat):
            st.cache_data.clear()
            st.cache_resource.clear()
            at = AppTest.from_string(synthetic_orgs.APP_LAUNCHER, default_timeout=900)
            at.query_params["period"] = "All history"
            at.run()
            cold, _ = timed(lambda at=at: at.switch_page(page).run())
            warm, _ = timed(at.run)
            if at.exception:
                raise RuntimeError(f"capacity failed: {at.exception[0].message}")
            runs["cold"].append(cold)
            runs["warm"].append(warm)
    times = {name: statistics.median(values[scale.warmup :]) for name, values in runs.items()}
    return [
        result(
            "capacity_rerun",
            times["warm"] / times["cold"],
            0.2,
            {},
            seconds=rounded(times),
            keys=scale.keys,
        )
    ]
