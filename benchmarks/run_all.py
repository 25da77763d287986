"""Run every benchmark script in this folder, one after another."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
failed = []
for script in sorted(here.glob("*.py")):
    if script.name in ("run_all.py", "__init__.py", "_machine.py"):
        continue
    print(f"=== {script.name}", flush=True)
    if subprocess.call([sys.executable, str(script)]) != 0:
        failed.append(script.name)
if failed:
    print("benchmarks that errored:", ", ".join(failed))
    sys.exit(1)
