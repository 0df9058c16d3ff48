"""`python -m bench.peak OUTPUT MODULE [ARGS...]`: run `python -m MODULE ARGS...` in this
process, then write its peak resident memory (kilobytes) to OUTPUT.

The peak is the process's own high-water mark (`VmHWM`). The `ru_maxrss` that `wait4` reports
for a child also counts the address space it was forked from, as the kernel records it at
exec: a benchmark process that has decoded and exported five years holds hundreds of
megabytes, and every child it starts would report at least that much.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

from bench.processes import resident_kb


def main() -> None:
    output, module, *args = sys.argv[1:]
    sys.argv = [module, *args]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:
        Path(output).write_text(f"{resident_kb(os.getpid())['VmHWM']}\n")


if __name__ == "__main__":
    main()
