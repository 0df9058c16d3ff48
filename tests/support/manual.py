"""The manual's snippets (docs/*.md) as the tests read them, so what they exercise is what the
manual tells an operator to install."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
UNIT_HEADER = re.compile(r"^# /etc/systemd/system/(\S+)$", re.MULTILINE)


def page(name: str) -> str:
    """One page of the manual, e.g. `deployment`."""
    return (DOCS / f"{name}.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    """Every fenced block of `language` in the manual, page by page in name order."""
    return [
        block
        for path in sorted(DOCS.glob("*.md"))
        for block in re.findall(rf"```{language}\n(.*?)```", path.read_text(), re.DOTALL)
    ]


def systemd_units() -> dict[str, str]:
    """Every unit file the manual shows (`# /etc/systemd/system/<name>` opens one), by name."""
    units = {}
    for block in blocks("ini"):
        headers = list(UNIT_HEADER.finditer(block))
        for header, following in zip(headers, [*headers[1:], None], strict=True):
            end = following.start() if following else len(block)
            units[header.group(1)] = block[header.end() : end].strip() + "\n"
    return units


def dashboard_options() -> list[str]:
    """The `usage-dashboard serve` options of the manual's dashboard unit."""
    unit = systemd_units()["usage-dashboard.service"]
    line = next(line for line in unit.splitlines() if line.startswith("ExecStart="))
    words = shlex.split(line.removeprefix("ExecStart="))
    return words[words.index("serve") + 1 :]


def nginx_config() -> str:
    [config] = blocks("nginx")
    return config
