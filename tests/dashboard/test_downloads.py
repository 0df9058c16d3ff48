"""A download button's file is made from the run that drew it, only while that run is the
page's latest (analytics.dashboard.downloads); the browser's side of it, a click a second after
the range changed, is in test_browser.py."""

import ast
import threading
from pathlib import Path

import pytest

from analytics.dashboard.downloads import Runs, StaleDownload

ROOT = Path(__file__).resolve().parents[2]


def clicked_at_once(runs: Runs) -> tuple[threading.Thread, list[str]]:
    """A click on a button of the run begun now, before that run ends, as the browser's
    download asks on a thread beside the script: the file made, or the refusal's words."""
    runs.begin()
    drawn = runs.begun
    outcome: list[str] = []

    def click() -> None:
        try:
            outcome.append(str(runs.served(drawn, lambda: "this run's file")))
        except StaleDownload as exc:
            outcome.append(str(exc))

    clicked = threading.Thread(target=click)
    clicked.start()
    return clicked, outcome


def test_a_button_of_the_latest_run_serves_once_that_run_has_ended():
    runs = Runs()
    clicked, made = clicked_at_once(runs)
    clicked.join(0.2)
    assert clicked.is_alive() and made == []  # the run is still drawing what the file reads
    runs.end(finished=True)
    clicked.join(5)
    assert made == ["this run's file"]
    assert runs.served(runs.begun, lambda: "again") == "again"  # a second click, a second file


def test_a_button_of_an_earlier_run_serves_nothing_once_a_rerun_began():
    runs = Runs()
    runs.begin()
    drawn = runs.begun
    runs.end(finished=True)
    runs.begin()  # the range changed: the page reruns, the old button still on it
    with pytest.raises(StaleDownload, match="changed"):
        runs.served(drawn, lambda: "the previous range's file")


def test_a_click_waiting_for_its_run_is_refused_when_a_rerun_cuts_it_short():
    runs = Runs()
    clicked, refused = clicked_at_once(runs)
    runs.end(finished=False)  # cut short by the rerun below
    runs.begin()
    clicked.join(5)
    assert refused == ["the page changed after this button was drawn"]


def test_a_run_that_stopped_before_its_end_serves_nothing():
    runs = Runs()
    runs.begin()
    runs.end(finished=False)
    with pytest.raises(StaleDownload, match="stopped"):
        runs.served(runs.begun, lambda: "half a page's file")


def test_every_download_button_is_drawn_by_the_one_helper():
    helper = ROOT / "analytics" / "dashboard" / "downloads.py"
    drawing = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in [ROOT / "app.py", *ROOT.glob("app_pages/*.py"), *ROOT.glob("analytics/**/*.py")]
        if path != helper
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.Attribute) and node.attr == "download_button"
    ]
    assert drawing == []
