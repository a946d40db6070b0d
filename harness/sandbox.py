"""Where a case's own Python runs: a bubblewrap sandbox, and the environment every tool gets.

Cases come from strangers. Their model.py / reference.py (the iree-turbine import, the
eager reference, a sweep variant's golden) run under `bwrap` with:

    reads contained             an empty root with only what the job needs bound in,
                                read-only: the system's programs and libraries (SYSTEM),
                                of /etc only what the loaders read, /sys, the interpreter
                                and its packages, the harness's own code, the program it
                                runs, and the paths the job names (its inputs); nothing of
                                home folders, other cases or the cache's other entries
    --tmpfs /tmp, HOME=/tmp     a private /tmp that vanishes with the job
    one writable folder         the job's scratch folder in the cache, nothing else
    --unshare-net               its own network namespace: no network, not even the host's
                                loopback
    credential files masked     ~/.ssh, ~/.netrc, ~/.config/gh, ... read as empty
    a scrubbed environment      the allowlist below, nothing named like a secret

Where no sandbox can be made (no bwrap, no user namespaces), `probe()` says why once
and the run records `case code: not sandboxed (why)` in its environment and report
header; `--no-sandbox` turns it off for debugging.

Every tool (iree-compile, iree-opt, iree-run-module, ...) runs in the same sandbox
(process.run_bounded wraps it): only the folder its outputs go to is writable, its /tmp is
private, and it gets the scrubbed environment with the variables the GPU and Vulkan drivers
read added to the allowlist; a tool that runs a device's module sees the host's /dev. A
flag that makes the compiler start a program (a linker, a plugin) starts it in there too.
`for_tools()` is the sandbox tools run in: this machine's, unless the run chose none.
"""

from __future__ import annotations

import os
import re
import select
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import path_options

# What case code may see of the environment: by exact name, or by prefix.
CASE_NAMES = ("PATH", "LANG", "LANGUAGE", "TZ", "PYTHONPATH", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE",
              "PYTHONUNBUFFERED", "VIRTUAL_ENV", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
              "OPENBLAS_NUM_THREADS", "CUDA_VISIBLE_DEVICES", "TERM")
CASE_PREFIXES = ("LC_", "IREE_REGRESS_")
# And tools, besides: what the runtimes' drivers and the loaders read.
TOOL_NAMES = ("HOME", "TMPDIR", "USER", "LD_LIBRARY_PATH", "XDG_RUNTIME_DIR", "XDG_CACHE_HOME")
TOOL_PREFIXES = ("IREE_", "VK_", "MESA_", "LP_", "GALLIUM_", "LIBGL_", "CUDA_", "NVIDIA_", "HIP_", "ROCM_",
                 "HSA_", "ROCR_", "AMD_", "TORCH_", "PYENV_")
# Never passed, whatever the prefix: anything named like a credential.
SECRET = re.compile(r"TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|COOKIE|SESSION|AUTH|(?:^|_)KEYS?(?:_|$)|APIKEY",
                    re.I)
# Files and folders in HOME that hold credentials: masked (empty) inside the sandbox.
CREDENTIALS = (".ssh", ".netrc", ".git-credentials", ".pypirc", ".aws", ".docker", ".kube", ".gnupg",
               ".config/gh", ".config/gcloud", ".azure", ".npmrc")


def _allowed(name: str, names: tuple[str, ...], prefixes: tuple[str, ...]) -> bool:
    return (name in names or name.startswith(prefixes)) and not SECRET.search(name)


def tool_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a tool runs with: the allowlist, no secrets."""
    environ = os.environ if environ is None else environ
    return {k: v for k, v in environ.items()
            if _allowed(k, CASE_NAMES + TOOL_NAMES, CASE_PREFIXES + TOOL_PREFIXES)}


def case_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment case code runs with: the narrower allowlist, HOME and TMPDIR in
    its private /tmp."""
    environ = os.environ if environ is None else environ
    env = {k: v for k, v in environ.items() if _allowed(k, CASE_NAMES, CASE_PREFIXES)}
    env.update(HOME="/tmp", TMPDIR="/tmp")
    return env


@dataclass(frozen=True)
class Sandbox:
    bwrap: str | None  # the bwrap to run case code with; None: not sandboxed
    why: str  # what it does, or why there is none

    @property
    def description(self) -> str:
        return f"sandboxed ({self.why})" if self.bwrap else f"not sandboxed ({self.why})"

    def wrap(self, argv: list, writable: list[Path], cwd: Path | None = None,
             readable: list[Path] = (), devices: bool = False, env: dict[str, str] | None = None) -> list[str]:
        """argv as run in the sandbox, with only `writable` folders writable. The root is
        readable; `readable` paths, `cwd` and the interpreter's own are bound again over
        the private /tmp, in case they live there. `devices`: the host's /dev (a GPU's
        nodes, for a bundle's module), else a minimal one. `env`: what the job sees (default:
        case code's allowlist)."""
        argv = [str(a) for a in argv]
        if not self.bwrap:
            return argv
        outer = [self.bwrap, "--die-with-parent", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-pid",
                 *_system_binds(), *(["--dev-bind", "/dev", "/dev"] if devices else ["--dev", "/dev"]),
                 "--proc", "/proc", "--tmpfs", "/tmp"]
        home = Path.home()
        for name in CREDENTIALS:
            path = home / name
            if path.is_dir() and not path.is_symlink():
                outer += ["--tmpfs", str(path)]
            elif path.exists():
                outer += ["--ro-bind", "/dev/null", str(path)]
        # Nothing of the host is there but SYSTEM: what the job runs and reads is bound in.
        program = [Path(argv[0]).parent] if Path(argv[0]).is_absolute() else []  # what runs must be seen
        base = _interpreter_paths_bound()
        own = [p for p in fewest([*readable, *program, *([cwd] if cwd else [])])
               if not any(p == b or p.startswith(b + os.sep) for b in base)]
        for real in (*base, *own):
            outer += ["--ro-bind", real, real]
        for folder in writable:
            real = str(Path(folder).resolve())
            outer += ["--bind", real, real]
        if cwd is not None:
            outer += ["--chdir", str(Path(cwd).resolve())]
        outer += ["--clearenv"]
        for key, value in (case_env() if env is None else env).items():
            outer += ["--setenv", key, value]
        return [*outer, "--", *argv]


# ------------------------------------------------------------ a tool in the sandbox

EXTRA_WRITABLE = "IREE_REGRESS_TOOL_WRITABLE"

# Where a tool writes its outputs: `-o FILE`, `--output=@FILE` (iree-run-module).
_OUTPUT_OPTIONS = ("-o",)
_OUTPUT_PREFIXES = ("--output=@", "-o=")


def outputs_of(argv) -> list[Path]:
    """The folders a tool's own output options name: what it may write, by default."""
    words = [str(a) for a in argv]
    found = [words[i + 1] for i, w in enumerate(words[:-1]) if w in _OUTPUT_OPTIONS]
    found += [w.split("@", 1)[1] if "@" in w else w.split("=", 1)[1] for w in words if w.startswith(_OUTPUT_PREFIXES)]
    return sorted({Path(f).resolve().parent for f in found})


def paths_in(words) -> list[Path]:
    """Existing absolute paths the words name (`PATH`, `--x=PATH`, `--x=@PATH`, `A:B` lists):
    what a tool in the sandbox must be able to read. The words are read as the compiler
    reads them (path_options.read); a data file that an option a case may give reads
    (path_options.READS) is bound only where the loader vouched for it as the case's own,
    so a flag that names any other file finds nothing there."""
    found = []
    for given in path_options.read(str(w) for w in words):
        value = given.value if given.option else given.words[0]
        if value is None:
            continue
        case_read = given.option and path_options.kind_of(given.option) == "reads"
        for part in [value, value.lstrip("@"), *value.split(os.pathsep),
                     *(p.split("@", 1)[0] for p in value.split(","))]:
            if part.startswith("/") and os.path.exists(part) and (not case_read or path_options.vouched(part)):
                found.append(Path(part))
    return found


# What a write outside the writable folders gets in the sandbox: the read-only root's own
# error, or a tool's "cannot open output file" once its mkdir there failed quietly.
_WRITE_ERRORS = ("Read-only file system", "cannot open output file", "cannot create", "Permission denied",
                 "No such file or directory")
_ABSOLUTE = re.compile(r"(?<![\w.])(/[^\s:'\"()]+)")


def refused_write(stderr: str, writable) -> str:
    """The line of `stderr` where a write outside `writable` (and the private /tmp) failed,
    else ''."""
    allowed = [Path(w).resolve() for w in writable] + [Path("/tmp")]
    for line in stderr.splitlines():
        if "Read-only file system" in line:
            return line.strip()
        if any(e in line for e in _WRITE_ERRORS):
            for path in _ABSOLUTE.findall(line):
                if not any(Path(path).is_relative_to(a) for a in allowed) and not os.path.exists(path):
                    return line.strip()
    return ""


def kept_from_writing(argv, writable) -> str:
    """What the sandbox kept a tool from writing, said where the tool says nothing: an
    option that writes (path_options.WRITES) naming a place outside `writable`. Some dump
    options fail to make their folder without a word and the compile exits 0; '' when none."""
    allowed = [Path(w).resolve() for w in writable]
    for given in path_options.read(str(a) for a in argv):
        if given.value and path_options.kind_of(given.option) == "writes":
            target = Path(given.value.lstrip("@")).resolve()
            if not any(target.is_relative_to(a) for a in allowed):
                return f"{given.option} names {given.value}, outside the folders this step may write"
    return ""


def writable_for(argv, writable=None) -> list[Path]:
    """What a tool may write: `writable` (default: the folders of its outputs), and the
    folders the user's own wrappers around the tools may write (a compile log: set by
    whoever runs the suite, never by a case)."""
    folders = outputs_of(argv) if writable is None else [Path(w) for w in writable]
    return folders + [Path(p) for p in os.environ.get(EXTRA_WRITABLE, "").split(os.pathsep)
                      if p and os.path.isdir(p)]


def confine(argv: tuple[str, ...], env: dict[str, str], sandbox: Sandbox, writable: list[Path],
            cwd: Path | None, devices: bool, readable=()) -> tuple[str, ...]:
    """argv as run in `sandbox`: only `writable` writable, its own private /tmp (TMPDIR
    and HOME too: a linker's temporaries, a driver's cache), what it names readable, the
    host's /dev only for a device's run."""
    if not sandbox.bwrap:
        return argv
    # Its HOME and caches in its private /tmp: a driver's shader cache is written there.
    inside = {**env, "TMPDIR": "/tmp", "HOME": "/tmp", "XDG_CACHE_HOME": "/tmp/.cache"}
    return tuple(sandbox.wrap(list(argv), writable, cwd=cwd, readable=[*readable, *paths_in([*argv, *env.values()])],
                              devices=devices, env=inside))


NONE_ASKED = Sandbox(None, "--no-sandbox")
_chosen_for_tools: Sandbox | None = None


def use_for_tools(sandbox: Sandbox | None) -> None:
    """The sandbox every tool of this process runs in (the run's --no-sandbox); None:
    this machine's."""
    global _chosen_for_tools
    _chosen_for_tools = sandbox


def for_tools() -> Sandbox:
    return _chosen_for_tools or probe()


# What a command killed for its time returns (coreutils' `timeout` code); bundle/run.py,
# carried alone as run_bundle.py, reads the same number as a run-timeout.
TIMED_OUT_CODE = 124


class SandboxShell:
    """Many commands in one sandbox: a shell inside it runs each command sent to it, so
    the sandbox starts once, not once per command (a bundle's module runs in a few ms;
    bwrap takes about as long). Commands are quoted here, so nothing a bundle holds is
    ever read as shell; each one's output goes to a folder under the scratch folder."""

    SCRIPT = 'while IFS= read -r line; do eval "$line"; echo "$?"; done'

    def __init__(self, sandbox: Sandbox, readable: list[Path], devices: bool, env: dict[str, str]):
        self.scratch = Path(tempfile.mkdtemp(prefix="iree-regress-sandbox-"))
        self.argv = sandbox.wrap(["/bin/sh", "-c", self.SCRIPT], [self.scratch], readable=readable,
                                 devices=devices, env=env)
        self._start()

    def _start(self) -> None:
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        if self._send("true") != 0:  # the sandbox could not be made: said before any bundle runs
            why = self.proc.stderr.read().strip().splitlines()
            self.close()
            raise OSError(f"the sandbox did not start: {why[-1] if why else 'its shell ended'}")

    def _send(self, line: str, timeout_s: float | None = None) -> int | None:
        """The exit code of one command line; TIMED_OUT_CODE when it is still running after
        `timeout_s`: then the whole sandbox is killed (its pid namespace with it) and a
        fresh one started. Bounding here, not with coreutils' `timeout` in front of every
        command, keeps a sandboxed module run as cheap as an unsandboxed one."""
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):  # the shell ended, or a failed restart closed it
            return None
        if timeout_s is not None and not select.select([self.proc.stdout], [], [], timeout_s)[0]:
            self._stop(kill=True)
            self._start()
            return TIMED_OUT_CODE
        said = self.proc.stdout.readline()
        return int(said) if said.strip().lstrip("-").isdigit() else None

    def folder(self) -> Path:
        """A fresh folder the next command may write into."""
        return Path(tempfile.mkdtemp(dir=self.scratch))

    def run(self, argv: list, out: Path, timeout_s: float) -> tuple[int, str]:
        """(return code, stderr) of argv run in the sandbox, killed after `timeout_s`
        (TIMED_OUT); a signal's death as -signal. No argument may hold a newline: one line
        is one command."""
        words = [str(a) for a in argv]
        if any("\n" in w for w in words):
            raise ValueError("a command word holds a newline")
        err = out / ".stderr"
        code = self._send(f"{shlex.join(words)} </dev/null >/dev/null 2>{shlex.quote(str(err))}", timeout_s)
        if code == TIMED_OUT_CODE:
            return code, f"killed after {timeout_s:.0f} s"
        if code is None:
            raise OSError(f"the sandbox's shell ended (exit {self.proc.wait()})")
        return (128 - code if code > 128 else code), \
            err.read_text(errors="replace") if err.exists() else ""

    def _stop(self, kill: bool) -> None:
        """End the sandbox's shell (killed: with whatever it was running) and its pipes."""
        if kill:
            self.proc.kill()
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                pipe.close()
            except OSError:  # a killed shell's stdin may refuse the last flush
                pass
        self.proc.wait()

    def close(self) -> None:
        self._stop(kill=False)
        shutil.rmtree(self.scratch, ignore_errors=True)

    def __enter__(self) -> "SandboxShell":
        return self

    def __exit__(self, *_) -> None:
        self.close()


def fewest(paths: list) -> list[str]:
    """The existing `paths`, resolved, as few binds as show the same: a folder whose every
    entry is given is bound once, and a path inside another is dropped (each bind costs
    bwrap about half a millisecond: 190 bundles took 105 ms, their folder 4 ms)."""
    found = {Path(p).resolve() for p in paths if p and Path(p).exists()}
    while True:
        by_parent: dict[Path, set[Path]] = {}
        for p in found:
            by_parent.setdefault(p.parent, set()).add(p)
        whole = [parent for parent, kids in by_parent.items()
                 if len(kids) > 1 and parent != parent.parent and set(parent.iterdir()) <= kids]
        if not whole:
            break
        for parent in whole:
            found = (found - by_parent[parent]) | {parent}
    return sorted(str(p) for p in found if not any(q != p and p.is_relative_to(q) for q in found))


# What every job may read of the host besides what it names: the system's programs and
# libraries; of /etc only what the dynamic loader, the Vulkan loader and time zones read;
# /sys (the CPU's topology, read by LLVM, torch and Mesa: the kernel's, no one's files).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/ld.so.cache", "/etc/ld.so.conf",
          "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/vulkan", "/etc/localtime", "/sys")
HARNESS = Path(__file__).resolve().parent  # the harness's own code: the jobs it starts import it


@lru_cache(maxsize=1)
def _system_binds() -> tuple[str, ...]:
    """bwrap's words for SYSTEM: a symlink (/bin -> usr/bin on merged-/usr systems) made
    as a symlink, a folder or file bound read-only, what this machine lacks left out."""
    words = []
    for path in SYSTEM:
        if os.path.islink(path):
            words += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            words += ["--ro-bind", path, path]
    return tuple(words)


def _interpreter_paths_bound() -> tuple[str, ...]:
    """The interpreter's folders and packages, the tools on PATH and the harness, as few
    binds as show them: worked out once per sys.path and PATH (resolving them for every
    tool call cost about 1 ms a call)."""
    return _bound_for(tuple(sys.path), os.environ.get("PATH", ""))


@lru_cache(maxsize=16)
def _bound_for(path: tuple[str, ...], env_path: str) -> tuple[str, ...]:
    """The absolute interpreter paths not already inside a SYSTEM folder, fewest binds."""
    system = [Path(s).resolve() for s in SYSTEM if os.path.isdir(s)]
    return tuple(fewest([p for p in _interpreter_paths() if p and os.path.isabs(p)
                         and not any(Path(p).resolve().is_relative_to(s) for s in system)]))


def _interpreter_paths() -> list[str]:
    """Where Python, its packages and the tools on PATH live, and the harness. Nothing else
    of the checkout the harness sits in (sys.path may hold it): that holds every case."""
    checkout = HARNESS.parent
    return [sys.prefix, sys.base_prefix, sys.executable, str(HARNESS),
            *(p for p in [*sys.path, *os.environ.get("PATH", "").split(os.pathsep)]
              if os.path.isdir(p) and not Path(p).resolve().is_relative_to(checkout))]


@lru_cache(maxsize=None)
def probe() -> Sandbox:
    """The sandbox this machine can make, tried once: bwrap must start a process in it."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Sandbox(None, "bwrap is not installed (apt-get install bubblewrap)")
    trial = Sandbox(bwrap, "")
    try:
        proc = subprocess.run(trial.wrap(["/bin/true"], []), capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return Sandbox(None, f"bwrap could not run: {e}")
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        return Sandbox(None, f"bwrap cannot make a sandbox here: {last[:200]}")
    return Sandbox(bwrap, "bwrap: read-only root, no network, private /tmp, scratch folder writable, "
                          "scrubbed environment")
