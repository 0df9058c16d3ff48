"""Pages that cost the same at any scale: Trends and Keys over five years of a big organization
against a small one, rendered in-process with Streamlit's AppTest."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable

from bench import synthetic_orgs
from bench.result_lines import MAX_FIGURE_BYTES, Result, result
from bench.timing import medians, rounded

SMALL_KEYS = 10
PAGES = ("trends", "keys")


def pages(scale: synthetic_orgs.Scale) -> list[Result]:
    """Trends and Keys over the whole five years, warm cache, big organization against small."""
    from streamlit.testing.v1 import AppTest

    from analytics.pages import page_at

    def render(keys: int, figures: list[int]) -> Callable[[], None]:
        def run() -> None:
            os.environ["SERVICE_DEMO_KEYS"] = str(keys)
            for page in PAGES:
                at = AppTest.from_string(synthetic_orgs.APP_LAUNCHER, default_timeout=600)
                at.query_params["period"] = "All history"
                at.run()
                at.switch_page(str(page_at(page).file)).run()
                if at.exception:
                    raise RuntimeError(f"{page} failed: {at.exception[0].message}")
                figures.extend(len(chart.proto.spec.encode()) for chart in at.get("plotly_chart"))

        return run

    sizes: dict[str, list[int]] = {"big": [], "small": []}
    with tempfile.TemporaryDirectory() as folder, synthetic_orgs.demo_environment(folder):
        times = medians(
            {
                "big": render(scale.keys, sizes["big"]),
                "small": render(SMALL_KEYS, sizes["small"]),
            },
            scale.repeat,
            warmup=scale.warmup,
        )
    largest = max(sizes["big"] + sizes["small"])
    return [
        result(
            "pages_scale",
            times["big"] / times["small"],
            2.0,
            {"figures_under_1mb": largest <= MAX_FIGURE_BYTES},
            seconds=rounded(times),
            keys={"big": scale.keys, "small": SMALL_KEYS},
            largest_figure_bytes=largest,
        )
    ]
