"""Run one external tool under a time and memory bound and classify how it ended.

Every iree-compile / iree-opt / iree-run-module call goes through `run_bounded`, so a
compiler that segfaults, asserts, hangs or grows without bound becomes a value the
harness records, never a dead test run. Memory is bounded by watching the resident
set of the tool's process group (not RLIMIT_AS: LLVM reserves far more address space
than it touches, so an address-space limit kills healthy compiles).
"""

from __future__ import annotations

import errno
import os
import re
import shlex
import shutil
import select
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .outcomes import CRASHED, FAILED, OK, OUT_OF_MEMORY, TIMED_OUT
from .sandbox import Sandbox, confine, for_tools, kept_from_writing, refused_write, tool_env, writable_for

# Text that LLVM/MLIR tools print when they die of an internal error. A tool wrapped
# by a shell or a Python launcher reports such a death as an exit code, not a signal.
CRASH_MARKERS = (
    "PLEASE submit a bug report",
    "Stack dump:",
    "Assertion `",
    "LLVM ERROR:",
    "Segmentation fault",
    "core dumped",
)

# What is kept of a tool's stderr: its start (the first diagnostic) and its end, where
# a crash's "Stack dump:" puts the frames that say where it died. Enough for 40 frames.
# Only this much is ever held: a tool printing a gigabyte costs the harness nothing.
STDERR_HEAD_CHARS = 4000
STDERR_TAIL_CHARS = 8000
STDOUT_MAX_BYTES = 64 << 20  # captured stdout (FileCheck reports, device lists); IR goes to files
PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux), so that a tool's
    child that escaped with setsid is re-parented here, where it can be found and killed."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process."""
    table = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    table[int(entry.name)] = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    return table


def children(pid: int) -> set[int]:
    listed = _children_listed(pid)
    return listed if listed is not None else {p for p, parent in _parents().items() if parent == pid}


def kill_tree_root(pid: int) -> None:
    """SIGKILL one process and reap it if it is our child."""
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, PermissionError, ChildProcessError):
        pass


def _children_listed(pid: int) -> set[int] | None:
    """The children of `pid` as the kernel lists them per thread (/proc/PID/task/TID/children),
    read without scanning every process; None where this kernel has no such file."""
    found = set()
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return set()  # gone: no children
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                found.update(int(c) for c in f.read().split())
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{tid}"):
                continue  # the thread ended meanwhile
            return None
        except (OSError, ValueError):
            continue
    return found


def descendants(pid: int) -> set[int]:
    """Every process below `pid`. Walked from `pid` down through the children the kernel
    lists (a few files, not all of /proc: run_bounded asks twice per tool call); where the
    kernel lists none, from the parent of every process."""
    found, frontier = set(), {pid}
    while frontier:
        below = set()
        for p in frontier:
            kids = _children_listed(p)
            if kids is None:
                return _descendants_by_scan(pid)
            below |= kids
        frontier = below - found
        found |= frontier
    return found


def _descendants_by_scan(pid: int) -> set[int]:
    parents = _parents()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def kill_descendants(keep: set[int] = frozenset(), pid: int | None = None) -> list[int]:
    """SIGKILL every descendant of `pid` (default: this process) not in `keep`, and reap
    those that are our children. Returns the pids killed."""
    pid = os.getpid() if pid is None else pid
    victims = sorted(descendants(pid) - set(keep))
    for victim in victims:
        try:
            os.kill(victim, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    # A SIGKILLed process is gone a moment later, not at once: reaped without waiting it
    # would stay a zombie of this (subreaper) process for good, one or two a sandboxed
    # tool call (a reduction's hundreds of trials left hundreds).
    pending, deadline = set(victims), time.monotonic() + 0.5
    while pending:
        for victim in list(pending):
            try:
                if os.waitpid(victim, os.WNOHANG)[0]:
                    pending.discard(victim)
            except ChildProcessError:
                pending.discard(victim)  # not our child: its own parent (or init) reaps it
        if not pending or time.monotonic() > deadline:
            break
        time.sleep(0.002)
    return victims


class _HeadTail:
    """The first `head` and last `tail` bytes of a stream, and how many were dropped."""

    def __init__(self, head: int, tail: int):
        self.head_max, self.tail_max = head, tail
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, block: bytes) -> None:
        room = self.head_max - len(self.head)
        if room > 0:
            self.head += block[:room]
            block = block[room:]
        self.tail += block
        if len(self.tail) > self.tail_max:
            cut = len(self.tail) - self.tail_max
            self.dropped += cut
            del self.tail[:cut]

    def bytes(self) -> bytes:
        marker = f"\n[... {self.dropped} bytes ...]\n".encode() if self.dropped else b""
        return bytes(self.head) + marker + bytes(self.tail)


@dataclass(frozen=True)
class ProcessResult:
    argv: tuple[str, ...]
    returncode: int | None  # None when the harness killed it
    stdout: bytes
    stderr: str
    seconds: float
    peak_rss_mb: float
    timed_out: bool = False
    out_of_memory: bool = False
    signal_name: str | None = None  # set when the tool died of a signal it did not ask for
    sandboxed: bool = False  # it ran in the sandbox: a write it was refused is its own doing
    refused: str = ""  # what it said as the sandbox refused it a write outside its folders

    @property
    def crashed(self) -> bool:
        if self.timed_out or self.out_of_memory:
            return False
        if self.signal_name is not None:
            return True
        return self.returncode not in (0, None) and any(m in self.stderr for m in CRASH_MARKERS)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not (self.timed_out or self.out_of_memory)

    def status(self) -> str:
        """ok | fail | crash | timeout | oom."""
        if self.timed_out:
            return TIMED_OUT
        if self.out_of_memory:
            return OUT_OF_MEMORY
        if self.crashed:
            return CRASHED
        return OK if self.returncode == 0 else FAILED

    def stderr_tail(self) -> str:
        """Head and tail of stderr (run_bounded keeps no more), with a marker where the
        middle was dropped."""
        return self.stderr


@dataclass(frozen=True)
class Bounds:
    timeout_s: float = 300.0
    memory_mb: float = 8192.0
    env: dict[str, str] = field(default_factory=dict)


# The one table of default bounds, per kind of tool call: the run's (compile, run, the
# PyTorch import), and triage's, whose many candidate compiles of a reduced program must
# fail fast. pytest options and Settings take their defaults from here.
BOUNDS = {
    "compile": Bounds(timeout_s=300, memory_mb=8192),
    "run": Bounds(timeout_s=120, memory_mb=8192),
    "import": Bounds(timeout_s=300, memory_mb=8192),
    "triage-compile": Bounds(timeout_s=120, memory_mb=8192),
    "triage-run": Bounds(timeout_s=60, memory_mb=8192),
}


def display(argv) -> str:
    """The command as a person would paste it into a shell."""
    return shlex.join(str(a) for a in argv)


def _rss_mb(pids: list[int]) -> float:
    total_kb = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status", "rb") as f:
                for line in f:
                    if line.startswith(b"VmRSS:"):
                        total_kb += int(line.split()[1])
                        break
        except (FileNotFoundError, ProcessLookupError, ValueError):
            pass
    return total_kb / 1024.0


def _exit_signal(pid: int) -> int | None:
    """A file descriptor that becomes readable when `pid` exits (Linux's pidfd), or None
    where there is none: the wait then sleeps between memory samples."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _group_pids(pgid: int) -> list[int]:
    """Processes in the tool's process group (iree-compile may start iree-lld). Each is
    this process's descendant: the tool's, or one re-parented here (a subreaper)."""
    pids = []
    for pid in descendants(os.getpid()):
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            if int(fields[2]) == pgid:  # field 5 of stat: pgrp
                pids.append(pid)
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            pass
    return pids


def run_bounded(argv, bounds: Bounds = Bounds(), stdout_path: Path | None = None,
                cwd: Path | None = None, stderr_copy: Path | None = None, writable=None,
                devices: bool = False, sandbox: Sandbox | None = None, wrapped: bool = False,
                readable=()) -> ProcessResult:
    """Run argv (a list, never a shell string) under `bounds`, in the tools' sandbox
    (sandbox.for_tools(), or `sandbox`) with only `writable` writable (default: the
    folders its `-o`/`--output=@` name). `wrapped`: argv is already `sandbox`'s command
    (case code, made by Sandbox.wrap with case code's own environment). `readable`: what it
    may read besides the paths its words name.

    stdout goes to `stdout_path` when given (large IR), else is captured. All of stderr
    is also written to `stderr_copy` when given (IR printed after each pass).
    """
    argv = tuple(str(a) for a in argv)
    before = descendants(os.getpid())
    env = tool_env()  # the allowlist: no tokens, keys or secrets reach a tool
    env.update(bounds.env)
    sandbox = sandbox or for_tools()
    sandboxed = bool(sandbox.bwrap)
    tool_argv = argv  # what the result names: the tool's command, not the sandbox's
    if shutil.which(argv[0]) is None:  # said as the harness would say it, not as bwrap's execvp
        return ProcessResult(argv, 127, b"", f"cannot start {argv[0]}: no such program", 0.0, 0.0)
    writable = writable_for(argv, writable)
    if not wrapped:
        argv = confine(argv, env, sandbox, writable, cwd, devices, readable)
    out_file = open(stdout_path, "wb") if stdout_path else subprocess.PIPE
    start = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdout=out_file, stderr=subprocess.PIPE, cwd=cwd,
                                env=env, start_new_session=True)
    except OSError as e:
        if stdout_path:
            out_file.close()
        return ProcessResult(argv, 127, b"", f"cannot start {argv[0]}: {e}", 0.0, 0.0)

    # Drain pipes on threads so a chatty tool cannot block on a full pipe while we poll;
    # only a bounded head and tail of each is kept.
    kept = {"out": _HeadTail(STDOUT_MAX_BYTES, 0),
            "err": _HeadTail(STDERR_HEAD_CHARS, STDERR_TAIL_CHARS)}

    err_copy = open(stderr_copy, "wb") if stderr_copy else None

    def drain(stream, key):
        for block in iter(lambda: stream.read(65536), b""):
            kept[key].add(block)
            if key == "err" and err_copy:
                err_copy.write(block)

    threads = [threading.Thread(target=drain, args=(proc.stderr, "err"), daemon=True)]
    if proc.stdout is not None:
        threads.append(threading.Thread(target=drain, args=(proc.stdout, "out"), daemon=True))
    for t in threads:
        t.start()

    peak = 0.0
    timed_out = oom = False
    poll = 0.002  # start fast: most tool calls here finish in well under a second
    polls = 0
    watched = [proc.pid]
    exited = _exit_signal(proc.pid)
    while proc.poll() is None:
        elapsed = time.monotonic() - start
        # Reading all of /proc is costly; the group is found again every few polls (in
        # the sandbox the tool is bwrap's grandchild: found on the first polls).
        if polls % 8 == 7 or (sandboxed and polls in (1, 3)):
            watched = _group_pids(proc.pid)
        peak = max(peak, _rss_mb(watched))
        if peak > bounds.memory_mb:
            oom = True
        elif elapsed > bounds.timeout_s:
            timed_out = True
        if oom or timed_out:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            break
        if exited is None:
            time.sleep(poll)
        else:  # between memory samples, woken the moment the tool exits (not up to 50 ms later)
            select.select([exited], [], [], poll)
        poll = min(poll * 1.5, 0.05)
        polls += 1
    if exited is not None:
        os.close(exited)
    seconds = time.monotonic() - start
    # Catch up with any grandchildren still holding the group (and its pipes) after the
    # tool exited, before waiting for the pipes to close.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    # And those that left the group (setsid): as a subreaper this process inherited them.
    kill_descendants(keep=before)
    for t in threads:
        t.join(timeout=5)
    if stdout_path:
        out_file.close()
    if err_copy:
        err_copy.close()

    rc = proc.returncode
    if sandboxed and rc is not None and rc > 128:  # bwrap passes a signal's death on as 128 + N
        rc = 128 - rc
    sig = None
    if rc is not None and rc < 0 and not (timed_out or oom):
        try:
            sig = signal.Signals(-rc).name
        except ValueError:  # real-time signals have no name in the enum
            sig = f"signal {-rc}"
    stderr = kept["err"].bytes().decode("utf-8", errors="replace")
    return ProcessResult(
        argv=tool_argv,
        returncode=None if (timed_out or oom) else rc,
        stdout=kept["out"].bytes(),
        stderr=stderr,
        seconds=seconds,
        peak_rss_mb=peak,
        timed_out=timed_out,
        out_of_memory=oom,
        signal_name=sig,
        sandboxed=sandboxed,
        refused=(refused_write(stderr, writable) or kept_from_writing(tool_argv, writable)) if sandboxed else "",
    )


# ------------------------------------------------- what a tool said as it failed

# The machine's own trouble: a tool (or the harness) that hit one of these in its own I/O
# says nothing about the program it was given. Tools print them as the C library's
# strerror does (LLVM's raw_ostream too). ENFILE before EMFILE: its text holds EMFILE's.
MACHINE_ERRNOS = ("ENOSPC", "EDQUOT", "EROFS", "EIO", "ENFILE", "EMFILE", "ENOMEM")


def machine_trouble(text: str, not_the_machine: tuple[str, ...] = ()) -> str:
    """'ENOSPC: <the line that says it>' when `text` reports machine trouble, else ''.
    `not_the_machine`: conditions that are a policy where the tool ran (a sandbox's
    read-only root refuses a write with EROFS: the program's doing)."""
    for name in MACHINE_ERRNOS:
        phrase = os.strerror(getattr(errno, name))
        line = next((l for l in text.splitlines() if phrase in l), None) if name not in not_the_machine else None
        if line is not None:
            return f"{name}: {line.strip()[:300]}"
    return ""


def last_diagnostic(stderr: str) -> str:
    """The most telling line of a tool's stderr: its first 'error:' or assertion."""
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    for marker in ("Assertion `", "error:", "LLVM ERROR:", "ERROR", "Error"):
        for line in lines:
            if marker in line:
                return line[:300]
    return lines[-1][:300] if lines else ""


_FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-fA-F]+ (.+?)(?: \(/[^)]*\)| [\w./-]+:\d+(?::\d+)?)?$")
# Frames of the crash machinery itself, not of the code that crashed.
_MACHINERY = ("PrintStackTrace", "RunSignalHandlers", "SignalHandler", "report_fatal_error",
              "llvm_unreachable", "__restore_rt", "raise", "abort", "__assert_fail", "_start",
              "__libc_start", "clone3", "start_thread", "SmallVectorBase", "grow_pod")


def frames(stderr: str) -> list[str]:
    """The stack frames in the compiler's own code (not the crash machinery's), top first,
    each without its address and library: '(anonymous namespace)::X::matchAndRewrite(...) const'."""
    found = []
    for line in stderr.splitlines():
        m = _FRAME.match(line)
        name = m.group(1) if m else ""
        is_function = "::" in name or "(" in name
        if is_function and not name.startswith("(/") and not any(w in name for w in _MACHINERY):
            found.append(name)
    return found


def first_frame(stderr: str) -> str:
    """The first stack frame in the compiler's own code (frames())."""
    return next(iter(frames(stderr)), "")[:200]


def crash_message(stderr: str) -> str:
    """What the tool said as it died: an assertion or an LLVM ERROR line."""
    for line in stderr.splitlines():
        if "Assertion `" in line or "LLVM ERROR:" in line:
            return line.strip()[:200]
    return ""


_PATH = re.compile(r"(?:/[^\s:'\"()/]+)+/([^\s:'\"()/]+)")


def strip_paths(text: str) -> str:
    """Paths cut to their file names: what is kept or pasted names no machine's folders."""
    return _PATH.sub(r"\1", text)
