"""Where phase swaps cannot: the bad release run with the good release's option choices.

Two releases that cannot read each other's IR (a phase output naming an attribute the
other release does not know) can still be told apart by what each of them runs. A
release's pipeline switches (data tiling, fusion modes, opt levels, the codegen choices
the compiler's session options hold) have defaults that can be read from its own
library (`ireeCompilerSessionGetFlags`, in every release 2.9.0-3.13.0). Between the good
and the bad release:

    changed   an option both know, whose default differs: the bad release is compiled
              with the good release's value, and the good release with the bad one's
    arrived   a switch the good release lacks that the bad release turns on by default:
              the bad release is compiled with it off (the other way cannot be asked)

An option whose change takes the bug away on the bad release (and, for a changed
default, brings it to the good release) is what the bug follows. First all the changes
at once (one compile): when the bug survives them, no option default explains it.

Global LLVM/MLIR options (`--help-hidden`) print no defaults, so only the session's
options are read; a release built without the library (a tools folder lacking
libIREECompiler.so) says so.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..process import Bounds, run_bounded
from ..toolchain import Toolchain

# Run in the sandbox by the interpreter: the release's own library lists its options.
_READ_FLAGS = r"""
import ctypes, json, sys
lib = ctypes.CDLL(sys.argv[1])
lib.ireeCompilerGlobalInitialize.restype = None
lib.ireeCompilerSessionCreate.restype = ctypes.c_void_p
CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
lib.ireeCompilerSessionGetFlags.argtypes = [ctypes.c_void_p, ctypes.c_bool, CALLBACK, ctypes.c_void_p]
lib.ireeCompilerSessionGetFlags.restype = None
lib.ireeCompilerGlobalInitialize()
session = lib.ireeCompilerSessionCreate()
flags = []
keep = CALLBACK(lambda p, n, _: flags.append(ctypes.string_at(p, n).decode("utf-8", "replace")))
lib.ireeCompilerSessionGetFlags(session, False, keep, None)
print(json.dumps(flags))
"""

LIBRARY = "libIREECompiler.so"
# Values that are no choice of the pipeline: paths into the release, unset, unprintable.
_NOT_A_CHOICE = ("/", "<unknown>")
# Options that only name files, dumps and hosts: never what a program computes.
_NOT_PIPELINE = ("dump", "path", "file", "-dir", "parameter", "list-targets", "linker", "debug", "source-listing")


def library(toolchain: Toolchain) -> Path | None:
    """The compiler library beside iree-compile (a wheel's _mlir_libs) or in ../lib (a build)."""
    for folder in (toolchain.compile.parent, toolchain.compile.parent.parent / "lib"):
        if (folder / LIBRARY).is_file():
            return folder / LIBRARY
    return None


@lru_cache(maxsize=None)
def _read(lib: Path) -> tuple[tuple[str, str], ...]:
    done = run_bounded([sys.executable, "-c", _READ_FLAGS, lib], Bounds(timeout_s=120))
    if not done.ok:
        raise RuntimeError(f"reading {lib.name}'s options ended {done.status()}: {done.stderr_tail()[-300:]}")
    pairs = []
    for flag in json.loads(done.stdout):
        name, _, value = flag.partition("=")
        pairs.append((name, value))
    return tuple(pairs)


def session_defaults(toolchain: Toolchain) -> dict[str, str]:
    """The release's session options and their defaults, e.g. {'--iree-opt-data-tiling': 'false'}."""
    lib = library(toolchain)
    if lib is None:
        raise RuntimeError(f"no {LIBRARY} beside {toolchain.compile.name} to read the options from")
    return dict(_read(lib))


@dataclass(frozen=True)
class OptionChange:
    flag: str
    good: str | None  # the good release's default; None: the good release has no such option
    bad: str | None  # the bad release's default; None: the bad release has no such option

    @property
    def for_bad(self) -> str | None:
        """The bad release's compile given the good release's choice (a switch the good
        release lacks: off); None where the bad release has no such option."""
        if self.bad is None:
            return None
        return f"{self.flag}={self.good if self.good is not None else 'false'}"

    @property
    def for_good(self) -> str | None:
        if self.good is None:
            return None
        return f"{self.flag}={self.bad if self.bad is not None else 'false'}"

    def describe(self, good_v: str, bad_v: str) -> str:
        if self.good is None:
            return f"`{self.flag}` (new in {bad_v}, on by default; {good_v} has no such option)"
        if self.bad is None:
            return f"`{self.flag}` (on by default in {good_v}; {bad_v} has no such option)"
        return f"`{self.flag}` (default {self.good} in {good_v}, {self.bad} in {bad_v})"


def _is_choice(flag: str, value: str) -> bool:
    return value != "" and not value.startswith(_NOT_A_CHOICE) and \
        not any(word in flag for word in _NOT_PIPELINE)


# The words that put an option on one target's path: an option of another target than the
# item's changes nothing the item compiles.
TARGET_WORDS = {"cpu": ("llvmcpu",), "vulkan": ("vulkan", "spirv"), "hip": ("hip", "rocm"),
                "cuda": ("cuda",), "metal": ("metal",), "vmvx": ("vmvx",)}


def _other_target(flag: str, target: str | None) -> bool:
    words = flag.split("-")
    return any(w in words for t, ws in TARGET_WORDS.items() if t != target for w in ws)


def changes(good: dict[str, str], bad: dict[str, str], given: tuple[str, ...] = (),
            target: str | None = None) -> list[OptionChange]:
    """What one release chooses otherwise than the other: a default that differs, or a
    switch only one of them has and turns on. Without what the item's own flags set
    (the same on both sides already) and other targets' options."""
    set_by_item = {f.partition("=")[0] for f in given}
    found = []
    for flag in sorted(set(good) | set(bad)):
        if flag in set_by_item or _other_target(flag, target):
            continue
        g, b = good.get(flag), bad.get(flag)
        if g is not None and b is not None:
            if g != b and _is_choice(flag, g) and _is_choice(flag, b):
                found.append(OptionChange(flag, g, b))
        elif "true" in (g, b) and _is_choice(flag, "true") and not _renamed(flag, bad if g is not None else good):
            found.append(OptionChange(flag, g, b))  # a switch that arrived turned on
    return found


def _renamed(flag: str, other: dict[str, str]) -> bool:
    """The same switch under another target's name (--iree-hip-x became --iree-rocm-x)."""
    tail = flag.split("-", 4)[-1]
    return any(o.split("-", 4)[-1] == tail for o in other)


@dataclass
class OptionsResult:
    changes: list[OptionChange]
    lines: list[str]  # each experiment and what it gave
    found: OptionChange | None = None  # the option the bug follows
    on_bad: bool = False  # the bad release is right with the good release's choice
    on_good: bool = False  # the good release shows the bug with the bad release's choice
    why_none: str = ""

    def said(self, good_v: str, bad_v: str) -> str:
        if self.found is None:
            return ""
        how = [f"with `{self.found.for_bad}` IREE {bad_v} is right" if self.on_bad else "",
               f"with `{self.found.for_good}` IREE {good_v} shows the bug" if self.on_good else ""]
        return f"the release option {self.found.describe(good_v, bad_v)}: {'; '.join(h for h in how if h)}"


def localize(q, program: Path, reference, say) -> OptionsResult:
    """The experiments on the question's releases (oracle.Question `q`): the bad release
    with all the good release's choices at once, then each alone; the same the other way
    (the good release with the bad one's). The bug gone (or come) with one option names it."""
    from .oracle import shows_bug

    try:
        good, bad = session_defaults(q.good.toolchain), session_defaults(q.bad.toolchain)
    except (RuntimeError, ValueError) as e:
        return OptionsResult([], [], why_none=f"the releases' options could not be read: {e}")
    found = changes(good, bad, q.bad.flags, q.target)
    result = OptionsResult(found, [])
    if not found:
        result.why_none = "no option default differs between the releases"
        return result

    def ask(side, flags: tuple[str, ...], label: str) -> bool | None:
        shown, detail = shows_bug(q, side, program, flags, reference)
        verdict = "shows the bug" if shown else "no bug" if shown is False else "undecided"
        result.lines.append(f"{label}: {verdict} ({detail[:140]})")
        say("where: options: " + result.lines[-1])
        return shown

    # (side, its release's name, what to give it, the answer that names the option)
    batteries = ((q.bad, "the bad release", "good", lambda c: c.for_bad, False),
                 (q.good, "the good release", "bad", lambda c: c.for_good, True))
    named: dict[str, set[str]] = {}
    for side, name, other, flag_of, wanted in batteries:
        given = [(c, flag_of(c)) for c in found if flag_of(c)]
        if not given:
            continue
        every = tuple(f for _, f in given)
        if ask(side, every, f"{name} with the {other} release's choices ({', '.join(every)})") is not wanted:
            continue
        for change, flag in given:
            if len(given) == 1 or ask(side, (flag,), f"{name} with `{flag}` alone") is wanted:
                named.setdefault(change.flag, set()).add(other)
                break
    if not named:
        result.why_none = ("no release's choice, given to the other release, moves the bug (or it moved only "
                           "with several together, or could not be decided)")
        return result
    flag = max(named, key=lambda f: len(named[f]))  # one named both ways first
    result.found = next(c for c in found if c.flag == flag)
    result.on_bad, result.on_good = "good" in named[flag], "bad" in named[flag]
    return result
