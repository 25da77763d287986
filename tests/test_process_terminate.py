""":func:`spielwerk.core.process.terminate_pool` with a worker killed while it wrote a result:
the pool's manager thread was left reading the rest of that message for ever, and the
interpreter's exit, which joins that thread, hung (seen once as a ``skat match`` that printed
its figures after SIGTERM and never ended). Run in a fresh interpreter, whose exit is the
part that hung."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent("""
    import gc
    import multiprocessing
    import multiprocessing.queues
    import os
    import struct
    import sys
    import time
    from concurrent.futures import ProcessPoolExecutor

    from spielwerk.core.process import terminate_pool


    def half_a_result(flag):
        queue = next(o for o in gc.get_objects()
                     if isinstance(o, multiprocessing.queues.SimpleQueue))
        os.write(queue._writer.fileno(), struct.pack("!i", 1000) + b"x" * 10)  # 10 of 1000
        open(flag, "w").close()
        time.sleep(120)


    if __name__ == "__main__":
        flag = sys.argv[1]
        pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver"))
        pool.submit(half_a_result, flag)
        while not os.path.exists(flag):
            time.sleep(0.05)
        time.sleep(0.5)  # the manager thread reads the header and waits for the rest
        terminate_pool(pool)
        print("terminated", flush=True)
""")


def test_the_process_exits_after_a_worker_died_writing_a_result(tmp_path: Path) -> None:
    script = tmp_path / "half.py"
    script.write_text(SCRIPT)
    try:
        done = subprocess.run([sys.executable, str(script), str(tmp_path / "flag")],
                              capture_output=True, text=True, timeout=90)
    except subprocess.TimeoutExpired as exc:  # a hang, not a slow machine: it never ends
        raise AssertionError(f"the process did not exit: {exc.stdout!r} {exc.stderr!r}") from None
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "terminated"
