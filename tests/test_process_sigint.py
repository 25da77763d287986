"""A process started under :func:`spielwerk.core.process.sigint_blocked` starts with SIGINT
blocked, the first one too: multiprocessing starts its resource tracker with the first
spawned process and unblocks SIGINT in the starting thread as it does, so without care the
first engine worker of the web table imported its modules open to a Ctrl-C and printed a
traceback (seen when the machine was slow enough for the Ctrl-C to land in the import).

Each check runs in a fresh interpreter, where no resource tracker runs yet."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = textwrap.dedent("""
    import multiprocessing as mp
    import signal

    from spielwerk.core.process import sigint_blocked


    def report(conn):  # before anything in the child could change its mask
        conn.send(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []))


    if __name__ == "__main__":
        ctx = mp.get_context("spawn")
        seen = []
        for _ in range(2):  # the first start also starts the resource tracker
            parent, child = ctx.Pipe()
            p = ctx.Process(target=report, args=(child,))
            with sigint_blocked():
                p.start()
            seen.append(parent.recv())
            p.join()
        after = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
        print(seen, after)
""")


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="needs pthread_sigmask")
def test_every_process_started_under_the_block_starts_blocked(tmp_path: Path) -> None:
    script = tmp_path / "blocked.py"
    script.write_text(SCRIPT)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    # both children blocked; the parent's own mask is restored after each start
    assert run.stdout.split() == ["[True,", "True]", "False"], run.stdout + run.stderr
