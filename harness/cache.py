"""Content-addressed cache of imports, eager references and compile results.

A key is a digest of everything that decides the artifact: input bytes, flags, tool
versions (and the host CPU for `-target-cpu=host` modules). Entries are directories
written under a temporary name and renamed into place, so concurrent pytest-xdist
workers never see half an entry; `compute_once` serialises workers that would build
the same entry, so a case's import runs once even when eight items want it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

DEFAULT_ROOT = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "iree-regress"


def cache_root() -> Path:
    return Path(os.environ.get("IREE_REGRESS_CACHE", DEFAULT_ROOT))


def digest(*parts) -> str:
    """Stable key of strings, bytes and Paths (a Path contributes its content)."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, Path):
            data = part.read_bytes()
        elif isinstance(part, bytes):
            data = part
        else:
            data = json.dumps(part, sort_keys=True, default=str).encode()
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()[:32]


class Cache:
    def __init__(self, root: Path | None = None, enabled: bool = True):
        self.root = Path(root) if root else cache_root()
        self.enabled = enabled
        # A disabled cache still serves what this run made (a case's import is shared
        # by its sixteen items): entries written since it was created.
        self.not_before = time.time()
        self.hits = 0
        self.misses = 0

    def entry(self, kind: str, key: str) -> Path:
        return self.root / kind / key

    def lookup(self, kind: str, key: str) -> Path | None:
        meta = self.entry(kind, key) / "meta.json"
        try:
            fresh = meta.stat().st_mtime >= self.not_before
        except FileNotFoundError:
            return None
        if self.enabled or fresh:
            self.hits += 1
            return meta.parent
        return None

    @contextlib.contextmanager
    def compute_once(self, kind: str, key: str):
        """Hold the entry's lock; yields the finished entry if another worker made it.

            with cache.compute_once("compile", key) as done:
                if done: use(done) else: build into cache.store(...)
        """
        lock_dir = self.root / "locks"
        lock_dir.mkdir(parents=True, exist_ok=True)
        with open(lock_dir / f"{kind}-{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield self.lookup(kind, key)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def store(self, kind: str, key: str, meta: dict, files: dict[str, Path | bytes]) -> Path:
        """Write an entry atomically; `files` maps names to source paths (moved) or bytes."""
        final = self.entry(kind, key)
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=final.parent))
        for name, content in files.items():
            if isinstance(content, bytes):
                (tmp / name).write_bytes(content)
            else:
                shutil.move(str(content), tmp / name)
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True, default=str))
        if final.exists():
            shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
        self.misses += 1
        return final

    def scratch(self, prefix: str) -> Path:
        """A private directory for a tool's output before it is stored."""
        d = self.root / "tmp"
        d.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=prefix, dir=d))


def read_meta(entry: Path) -> dict:
    return json.loads((entry / "meta.json").read_text())
