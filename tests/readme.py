"""The README's deployment snippets as the tests read them, so what they exercise is what the
README tells an operator to install."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
UNIT_HEADER = re.compile(r"^# /etc/systemd/system/(\S+)$", re.MULTILINE)


def systemd_units() -> dict[str, str]:
    """Every unit file the README shows (`# /etc/systemd/system/<name>` opens one), by name."""
    units = {}
    for block in re.findall(r"```ini\n(.*?)```", README.read_text(), re.DOTALL):
        headers = list(UNIT_HEADER.finditer(block))
        for header, following in zip(headers, [*headers[1:], None], strict=True):
            end = following.start() if following else len(block)
            units[header.group(1)] = block[header.end() : end].strip() + "\n"
    return units


def dashboard_options() -> list[str]:
    """The `streamlit run app.py` options of the README's dashboard unit."""
    unit = systemd_units()["usage-dashboard.service"]
    line = next(line for line in unit.splitlines() if line.startswith("ExecStart="))
    words = shlex.split(line.removeprefix("ExecStart="))
    return words[words.index("app.py") + 1 :]


def nginx_config() -> str:
    [config] = re.findall(r"```nginx\n(.*?)```", README.read_text(), re.DOTALL)
    return config
