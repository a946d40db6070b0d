"""The bug's message as a scan measured it: a regex specific enough to tell this bug
from other failures with the same outcome (harness/bug.py matches it).

  wrong numbers   which outputs differ, every mismatch count measured and the decade
                  of the largest error: "output 0: (12|16)/64 elements differ...; max abs
                  err (0\\.[1-9]\\d*)" (a golden moved by a new miscompile does not match)
  a diagnostic    its first error line without locations, its numbers and SSA names
                  matched by class, quoted op names kept, and the program's op it points at
  FileCheck       the check file and line that failed
  a crash         its signal and the class (or function) it died in
Results with several outcomes (wrong numbers on the matrix, a failing IR check) give
one alternative each.
"""

from __future__ import annotations

import re
from collections import Counter

from ..outcomes import NUMBERS_OUTCOMES
from ..process import frames, strip_paths
from ..record import COMPILE_WARNED

_DIFF = re.compile(r"output (\d+)(?: \(indices[^)]*\))?: (\d+)/(\d+) elements differ[^;]*; max abs err (\S+?)[,;]")


def _decade(number: str) -> str:
    """A regex for numbers of the same decade as `number`, as compare.py prints them
    (%.6g): 0.8317 -> 0\\.[1-9]\\d*, 64 -> [1-9]\\d(?:\\.\\d*)?, 6.3e+307 -> [1-9](?:\\.\\d*)?e\\+307;
    inf and nan as written."""
    m = re.fullmatch(r"(\d)(?:\.\d*)?e([+-]\d+)", number)
    if m:
        return "[1-9](?:\\.\\d*)?e" + re.escape(m.group(2))
    m = re.fullmatch(r"0\.(0*)[1-9]\d*", number)
    if m:
        return "0\\." + m.group(1) + "[1-9]\\d*"
    m = re.fullmatch(r"([1-9]\d*)(?:\.\d*)?", number)
    if m:
        return "[1-9]" + "\\d" * (len(m.group(1)) - 1) + "(?:\\.\\d*)?"
    return re.escape(number)


def derive_match(results) -> str | None:
    """A regex for the failing text the bug showed, specific enough to tell it from
    other failures with the same outcome: wrong numbers give which outputs differ and
    how many elements (the measured counts); a diagnostic gives its first error line."""
    if not results:
        return None
    by_outcome: dict[str, list] = {}
    for r in results:
        by_outcome.setdefault(r.outcome, []).append(r)
    if len(by_outcome) > 1:  # e.g. wrong numbers on the matrix and a failing IR check
        parts = [derive_match(rs) for _, rs in sorted(by_outcome.items())]
        return None if None in parts else "|".join(f"(?:{p})" for p in parts)
    if all(r.outcome in NUMBERS_OUTCOMES for r in results):
        # Results that differ in the same outputs share a pattern: per output, every
        # mismatch count measured and the decade of the largest error, so that a golden
        # moved by a new miscompile (all elements, or errors of another size) fails.
        shapes: dict[tuple, dict[tuple[int, str], tuple[set[str], set[str]]]] = {}
        for r in results:
            found = _DIFF.findall(r.failing_stage.detail)
            if not found:
                return None
            outputs = shapes.setdefault(tuple((int(o), t) for o, _, t, _ in found), {})
            for out, n, total, err in found:
                counts, sizes = outputs.setdefault((int(out), total), (set(), set()))
                counts.add(n)
                sizes.add(_decade(err))
        patterns = [".*".join(f"output {out}(?: \\(indices[^)]*\\))?: ({'|'.join(sorted(ns, key=int))})/{total} elements differ"
                              f"[^;]*; max abs err ({'|'.join(sorted(errs))})"
                              for (out, total), (ns, errs) in sorted(outputs.items()))
                    for outputs in shapes.values()]
        return patterns[0] if len(patterns) == 1 else "|".join(f"(?:{p})" for p in sorted(patterns))
    lines = [_error_line(r.failure_text()) for r in results]
    common = lines[0]
    if common and all(common == line for line in lines):
        return common
    return None


# What stages.stage_from_process says of a tool killed at a bound (time or memory).
_BOUND = re.compile(r"^killed (?:at \d+ MB resident \(memory bound\)|after \d+ s \(time bound\))")
_FILECHECK = re.compile(r"([\w.-]+\.mlir:\d+): error: ([^\"(]*)")
_SIGNAL = re.compile(r"crashed \((SIG[A-Z]+)\)(?:: at (.+))?")


def signal_only(text: str) -> bool:
    """Whether a failure printed its signal and nothing else (a run crash: no frame, no
    message): no match can tell it from another such crash."""
    m = _SIGNAL.fullmatch(text.strip())
    return bool(m) and not m.group(2)
# What a crash without a frame still says of itself: an assertion (builds with them), or
# LLVM's fatal error.
_CRASH_WORDS = re.compile(r"Assertion [`'](.+?)' failed|LLVM ERROR: ([^\n]+)")


def _error_line(text: str) -> str:
    """The diagnostic itself, as a regex: after 'error: ', without locations; quoted op
    and pass names kept (the most specific part), numbers, SSA values and symbols
    matched by class; cut before type and attribute dumps. A FileCheck failure by its
    check file and line; a crash by its signal."""
    bound = _BOUND.search(text)
    if bound:  # a resource bound has no diagnostic: its own words, the measure by class
        return re.sub(r"\\d\+|\d+", r"\\d+", _escape(bound.group(0)))
    if text.startswith("FileCheck:"):
        m = _FILECHECK.search(text)
        return _escape(f"{m.group(1)}: error: {m.group(2).strip()}") if m else ""
    m = _SIGNAL.match(text)
    if m:  # the signal and, where the crash names one, the class (or function) it died in:
        # the frame's own method varies between runs of one memory corruption
        signal = _escape(f"crashed ({m.group(1)})")
        recurring = _recurring_frame(text)
        if recurring:  # a stack overflow: the top frame is wherever the stack ran out
            return f"{signal}(?s:.*){_escape(_where(recurring))}"
        where = _where(m.group(2) or "")
        if where:  # the name whole: Type:: is not ValueTensorType::
            return f"{signal}: at .*\\b{_escape(where)}"
        said = _CRASH_WORDS.search(text)
        if said:  # the signal alone is any crash: the assertion or fatal error is this one
            words = said.group(1) or said.group(2)
            return f"{signal}(?s:.*){_escape(words[:_MAX_LITERAL].strip())}"
        return signal
    for line in text.splitlines():
        status = _RUNTIME_STATUS.search(line)
        if "error:" in line or "Assertion" in line or "LLVM ERROR" in line or status:
            message = line.split("error:", 1)[-1].strip() if not status else status.group(0)
            message = re.sub(r"^<[\w-]+>:\s*", "", message)  # "<Pass-Options-Parser>: no such option x"
            message = re.split(r"[<(\"]", message, maxsplit=1)[0]
            # trailing variable parts say nothing about the bug
            message = re.sub(r"(?:\s*(?:%[\w.$-]+|@[\w.$-]+|#?\d+|[:,;=]))+\s*$", "", message).strip()
            if len(re.sub(_VARIABLE, "", message)) < 12:
                return ""
            pattern = _pattern(message)
            op = _OPERATOR_NAME.search(line)  # an op torch-mlir left unlowered: name it
            if op:
                return f"{pattern}.*{_escape(op.group(1))}"
            # The program's op the diagnostic points at (the source line under it): one
            # message of llvm-cpu's stack limit is many bugs; with its op, one.
            source = _SOURCE_OP.search(text, text.find(line) + len(line))
            if source and source.start() - (text.find(line) + len(line)) < 400:
                return f"{pattern}(?s:.*){_escape(source.group(1))}"
            return pattern
    return ""


def _where(frame: str) -> str:
    """A method: its class (CamelCase); a free function (its qualifier a lower-case
    namespace, as mlir::iree_compiler::limitVectorTileSizes): the function itself."""
    names = re.split(r"[(<\s]", re.sub(r"\(anonymous namespace\)::", "", frame), maxsplit=1)[0].split("::")
    return f"{names[-2]}::" if len(names) >= 2 and names[-2][:1].isupper() else names[-1]


def _recurring_frame(text: str) -> str:
    """The function a crash's stack dump is a third or more of (recursion until the stack
    ran out), or ""."""
    frames = _DUMP_FRAME.findall(text)
    if len(frames) < 8:
        return ""
    name, count = Counter(frames).most_common(1)[0]
    return name if count >= 8 and 3 * count >= len(frames) else ""


# A stack dump's frame: "#12 0x00007efe7c7b01fe ns::Class::method(args) file.cpp:0:0".
_DUMP_FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ (.+?)\(", re.M)
# An IREE runtime status: "c/runtime/src/iree/hal/buffer.c:123: PERMISSION_DENIED; ..."
_RUNTIME_STATUS = re.compile(r"\b[A-Z][A-Z_]{3,}; .*")
_OPERATOR_NAME = re.compile(r'name = "(torch\.[\w.]+)"')
_SOURCE_OP = re.compile(r"^\s+%[\w:#]+(?:, %[\w:#]+)* = "
                        r"((?:torch|stablehlo|tosa|linalg|tensor|iree_linalg_ext)\.[\w.]+)", re.M)
_MAX_LITERAL = 100  # characters of the diagnostic's own words kept


def _pattern(message: str) -> str:
    """The message as a regex: its words literal (the first _MAX_LITERAL characters, cut
    at a word), its variable parts by class; lengths of numbers never move the cut."""
    out, length = [], 0
    for literal, kind in _tokens(message):
        if kind:
            out.append(_VARIABLE_PATTERNS[kind])
            continue
        if length + len(literal) > _MAX_LITERAL:
            out.append(_escape(literal[: _MAX_LITERAL - length].rsplit(" ", 1)[0]))
            break
        out.append(_escape(literal))
        length += len(literal)
    return "".join(out).rstrip()


# What varies between runs of one bug: SSA values, symbols, numbers.
_VARIABLE = re.compile(r"%[\w.$-]+|@[\w.$-]+|\d+")
_VARIABLE_PATTERNS = {"%": r"%[\w.$-]+", "@": r"@[\w.$-]+", "n": r"\d+"}


def _tokens(message: str):
    """(text, kind) pieces: kind '' for literal text, else the variable's kind."""
    at = 0
    for m in _VARIABLE.finditer(message):
        yield message[at:m.start()], ""
        yield m.group(), m.group()[0] if m.group()[0] in "%@" else "n"
        at = m.end()
    yield message[at:], ""


def _escape(text: str) -> str:
    """re.escape for people: only the characters that mean something in a regex."""
    return re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", text)


# ------------------------------------------------------------ what the bug printed

_SAMPLE_LINE = 500  # characters kept of each line
_DIFF_SEGMENT = re.compile(r"output \d+[^:]*: \d+/\d+ elements differ[^;]*; max abs err [^,;]+(?:, max rel err [^;]+)?")
_DISPATCH = re.compile(r'sym_name = "[^"]*dispatch[^"]*"')
# What every failing compile adds after the diagnostic (with the host's CPU features):
# nothing of the bug.
_GENERIC_ERRORS = ("failed to run translation of source executable", "failed to translate executables",
                   "failed to serialize executable")


_FRAMES_KEPT = 10  # of a crash's backtrace: a bug's match can name the pass under its top frame


def sample_of(text: str) -> str:
    """A verbatim excerpt of a failure, kept in the case as what the bug printed (lint
    tests other cases' matches against it, and its own bad_match must take it): the first
    line (the outcome's own: 'crashed (SIGSEGV): at ...', 'exit code 1: ...: error: ...'),
    for wrong numbers each output's diagnosis, the diagnostics with the program line under
    the first, and the dispatch they are about; paths cut to their file names."""
    code_frames = frames(text)[:_FRAMES_KEPT]  # read before the paths that mark a library go
    text = strip_paths(text)
    lines = [l.rstrip() for l in text.splitlines() if l.strip()]
    if not lines:
        return ""
    diffs = _DIFF_SEGMENT.findall(lines[0])
    keep = ["; ".join(diffs) if diffs else lines[0][:_SAMPLE_LINE]]
    errors = [i for i, l in enumerate(lines)
              if ("error:" in l or "Assertion `" in l or "LLVM ERROR" in l or _RUNTIME_STATUS.search(l))
              and not any(g in l for g in _GENERIC_ERRORS)]
    for i in errors[:2]:
        if lines[i].strip() not in keep[0]:  # the first line often is the first error already
            keep.append(lines[i][:_SAMPLE_LINE])
    if errors:
        first = errors[0]
        source = next((i for i in range(first + 1, min(first + 4, len(lines))) if _SOURCE_OP.match(lines[i])), None)
        if source is not None:
            keep.append(lines[source][:_SAMPLE_LINE])
    dispatch = _DISPATCH.search(text)
    if dispatch:
        keep.append(dispatch.group(0))
    if _SIGNAL.match(lines[0]):  # the top frame is often a container's: the frames under it say where
        keep += [strip_paths(f)[:_SAMPLE_LINE] for f in code_frames]
    if COMPILE_WARNED in lines[1:]:  # a later stage's failure: what the compile warned first
        warned = lines.index(COMPILE_WARNED, 1)
        keep += [COMPILE_WARNED, *lines[warned + 1:warned + 2]]
    return "\n".join(dict.fromkeys(keep))
