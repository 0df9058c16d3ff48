"""The dashboard driven without a browser: Streamlit's AppTest in-process, and the websocket
protocol a browser tab speaks to a running server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.testing.v1 import AppTest

from analytics import pages
from analytics.usage.calendar import utc_today
from emulator import EmulatorConfig
from support.installed import remember_distributions

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGES = [page.url_path for page in pages.PAGES]  # each page by its address
# The day the headless dashboard runs on (the `demo_env` fixture pins it), so a run across UTC
# midnight compares like with like.
TODAY = utc_today()
# The demo organization of the headless tests.
DEMO_SEED, DEMO_KEYS, DEMO_DAYS = 42, 8, 120
DEMO = {
    "SERVICE_DEMO_KEYS": str(DEMO_KEYS),
    "SERVICE_DEMO_DAYS": str(DEMO_DAYS),
    "SERVICE_DEMO_SEED": str(DEMO_SEED),
}


def demo_config(**settings: Any) -> EmulatorConfig:
    """The emulator's settings of the demo organization of the headless tests (`DEMO`), for
    building it again beside the dashboard, with `settings` (its day, its tags) added."""
    return EmulatorConfig(seed=DEMO_SEED, keys=DEMO_KEYS, days=DEMO_DAYS, **settings)


# Each AppTest looks through the installed distributions: read once per process.
remember_distributions()


def app_test(timeout: float = 120) -> AppTest:
    """The dashboard as `streamlit run app.py` serves it: app.py's `st.navigation`, then the
    page asked for."""
    return AppTest.from_file(APP, default_timeout=timeout)


def open_page(page: str, **params: str | list[str]) -> AppTest:
    """A fresh session of `page` with the given URL query parameters, run once: as a shared
    link opens it, the page's own widgets read their choices from the URL on the first run."""
    at = app_test()
    for name, value in params.items():
        at.query_params[name] = value
    shown = pages.page_at(page)
    if not shown.default:
        at.switch_page(str(shown.file))
    return at.run()


def open_clean_page(page: str, **params: str | list[str]) -> AppTest:
    """`open_page`, whose run must show neither an exception nor an error: where most page
    tests start before they read what the page shows."""
    at = open_page(page, **params)
    assert not at.exception and not at.error
    return at


def chart_specs(at: AppTest) -> list[dict]:
    """The plotly figures of a run, as the browser receives them."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


async def one_run(
    session: websockets.ClientConnection,
    query: str,
    page_name: str = "",
    seen: list[ForwardMsg] | None = None,
) -> list[Element]:
    """Ask a running dashboard for a script run (`query` as the URL's query string, `page_name`
    as its path) and read it to the end, reruns included; every element shown (and, in
    `seen`, every message, for what a later request needs: the session's id). A run that
    fails is a failure."""
    message = BackMsg()
    message.rerun_script.query_string = query
    message.rerun_script.page_script_hash = ""
    message.rerun_script.page_name = page_name
    await session.send(message.SerializeToString())
    elements = []
    while True:
        forward = ForwardMsg()
        forward.ParseFromString(await asyncio.wait_for(session.recv(), timeout=60))
        if seen is not None:
            seen.append(forward)
        kind = forward.WhichOneof("type")
        if kind == "script_finished":
            if forward.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                continue  # the app asked for a rerun (e.g. to show another page): read it too
            assert forward.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY, forward
            return elements
        if kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
            elements.append(forward.delta.new_element)
