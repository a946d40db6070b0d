"""How long does a pasted upstream report take to become a proven case?

    python benchmarks/harvest_speed.py [THREAD.md ...]

For each saved thread (default: tests/threads/iree-16780-uniform-dequantize.md), runs
`iree-regress harvest` end to end (parse, scan of every release, write) in an empty
folder with an empty suite cache (the releases themselves installed once, beforehand),
then `prove` on the case it wrote; prints the seconds of each and the window written.
The issue's aim: a compile-error report in 2 minutes or less on a 2-core machine.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    threads = [Path(a).resolve() for a in argv] or [ROOT / "tests" / "threads" / "iree-16780-uniform-dequantize.md"]
    for thread in threads:
        with tempfile.TemporaryDirectory(prefix="harvest-speed-") as work:
            (Path(work) / "cases").mkdir()
            env = {**os.environ, "IREE_REGRESS_CACHE": str(Path(work) / "cache"),
                   "PYTHONPATH": str(ROOT)}
            # The releases, installed once under the usual cache, are shared by symlink.
            (Path(work) / "cache").mkdir()
            shared = Path(os.environ.get("IREE_REGRESS_CACHE", Path.home() / ".cache" / "iree-regress"))
            if (shared / "releases").is_dir():
                (Path(work) / "cache" / "releases").symlink_to(shared / "releases")
            start = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "harness.cli", "harvest", str(thread)], cwd=work,
                                  env=env, capture_output=True, text=True)
            harvest_s = time.monotonic() - start
            window = re.search(r"^window: .*$", done.stdout, re.M)
            wrote = re.search(r"wrote cases/(\S+);", done.stdout)
            line = f"{thread.name}: harvest exit {done.returncode} in {harvest_s:.1f} s"
            if wrote:
                start = time.monotonic()
                proved = subprocess.run([sys.executable, "-m", "harness.cli", "prove", wrote.group(1)], cwd=work,
                                        env=env, capture_output=True, text=True)
                line += (f"; {window.group(0) if window else ''}; prove: "
                         f"{proved.stdout.strip().splitlines()[-1]} in {time.monotonic() - start:.1f} s")
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
