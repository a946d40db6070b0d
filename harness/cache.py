"""Content-addressed cache of imports, eager references and compile results.

A key is a digest of everything that decides the artifact: input bytes, flags, tool
versions (and the host CPU for `-target-cpu=host` modules). Entries are directories
written under a temporary name and renamed into place, so concurrent pytest-xdist
workers never see half an entry; `compute_once` serialises workers that would build
the same entry, so a case's import runs once even when eight items want it.

An entry is trusted only as far as it verifies: meta.json names the entry's own key
and the sha256 of every file stored with it, and `lookup` checks both. A truncated,
edited, swapped or foreign entry is discarded with a CacheWarning and built again; it
never becomes a result. Entries live under a format folder (FORMAT), so entries of an
older layout are never read as if they verified.
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
import warnings
from pathlib import Path

FORMAT = "v2"  # the entry layout: meta.json with "key" and "files" digests


class CacheWarning(UserWarning):
    """A cache entry failed verification and was discarded (it is rebuilt)."""


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()

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
        self.discarded = 0
        self.note = ""  # why this run does not use the cache it was given (plugin: unusable)

    def unusable(self) -> str:
        """'' when entries can be written under the root, else why not (read-only, not a
        folder, no space): asked once, at the start of a run."""
        try:
            folder = self.root / FORMAT / "tmp"
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
                pass
        except OSError as e:
            return f"{self.root}: {e.strerror or e}"
        return ""

    def entry(self, kind: str, key: str) -> Path:
        return self.root / FORMAT / kind / key

    def lookup(self, kind: str, key: str) -> Path | None:
        entry = self.entry(kind, key)
        meta = entry / "meta.json"
        try:
            fresh = meta.stat().st_mtime >= self.not_before
        except FileNotFoundError:
            return None
        if not (self.enabled or fresh):
            return None
        problem = self._verify(entry, f"{kind}/{key}")
        if problem:
            warnings.warn(CacheWarning(f"discarded cache entry {entry}: {problem}; rebuilding it"),
                          stacklevel=2)
            shutil.rmtree(entry, ignore_errors=True)
            self.discarded += 1
            return None
        self.hits += 1
        return entry

    @staticmethod
    def _verify(entry: Path, name: str) -> str:
        """'' when the entry is what its meta.json says, else what is wrong with it."""
        try:
            meta = json.loads((entry / "meta.json").read_text())
        except (OSError, ValueError) as e:
            return f"unreadable meta.json ({e})"
        if not isinstance(meta, dict):
            return "meta.json is not an object"
        if meta.get("key") != name:
            return f"meta.json is not this entry's (key {meta.get('key')!r})"
        files = meta.get("files")
        if not isinstance(files, dict):
            return "meta.json lists no file digests"
        for file_name, want in files.items():
            try:
                if file_digest(entry / file_name) != want:
                    return f"{file_name} does not match its digest"
            except OSError:
                return f"{file_name} is missing"
        return ""

    @contextlib.contextmanager
    def compute_once(self, kind: str, key: str):
        """Hold the entry's lock; yields the finished entry if another worker made it.

            with cache.compute_once("compile", key) as done:
                if done: use(done) else: build into cache.store(...)
        """
        lock_dir = self.root / FORMAT / "locks"
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
        try:
            for name, content in files.items():
                (tmp / name).parent.mkdir(parents=True, exist_ok=True)  # names may hold folders
                if isinstance(content, bytes):
                    (tmp / name).write_bytes(content)
                else:
                    shutil.move(str(content), tmp / name)
            meta = {**meta, "key": f"{kind}/{key}",
                    "files": {name: file_digest(tmp / name) for name in files}}
            (tmp / "meta.json").write_text(json.dumps(meta, indent=1, sort_keys=True, default=str))
        except OSError:  # a full disk, say: no half entry is left to be found
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        if final.exists():  # renamed away first: a reader sees the old entry, none, or the new one
            old = Path(tempfile.mkdtemp(prefix=f".{key}.old.", dir=final.parent))
            os.replace(final, old / "entry")
            shutil.rmtree(old, ignore_errors=True)
        os.replace(tmp, final)
        self.misses += 1
        return final

    def scratch(self, prefix: str) -> Path:
        """A private directory for a tool's output before it is stored."""
        d = self.root / FORMAT / "tmp"
        d.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=prefix, dir=d))


def read_meta(entry: Path) -> dict:
    return json.loads((entry / "meta.json").read_text())
