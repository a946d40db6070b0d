"""Compiler options that name a file, a folder or a program, and which of them a case may give.

A flag list is read the way iree-compile's command line (LLVM's cl::opt) reads it (`read`):
`--opt=value`, `-opt=value`, an option that takes a value given its value as the next word
(`--opt value`), a response file `@file` in any place, a bare word (an input file to the
compiler). Every option whose value is a pass pipeline has the pipeline parsed
(pass_pipeline.py) and each pass option that names a file, a folder or a command judged as
the top-level option of the same kind would be. What the reader cannot read is refused,
never trusted. The same reader serves the loader and lint (case.py), harvest,
`--iree-compile-flag`, repro scripts and ISSUE.md steps.

A case's flags (matrix.flags, matrix.target_flags, an [[ir]] check's args, a sweep's flag
sets, a harvested thread's command) come from strangers and reach iree-compile / iree-opt
as written. Some options make the compiler run a program (a linker, a preprocessing
command, a plugin), write where they say (dumps, reproducers, statistics) or read what
they name. The tables below come from the `--help-hidden` of the releases 2.9.0-3.13.0
(tests/test_path_options.py checks every installed release's options against them):

    RUNS     starts a program or loads native code           refused always
    WRITES   writes a file or folder                         refused always
    READS    reads a data file or folder                     allowed only inside the case's folder
    @file    a response file: more options, read from a file  refused always

Any other option whose name says it takes a file (`..-file`, `..-path`, `..-dir`, ...) or
whose value looks like a path is refused as well: an option no table knows is never
trusted with a path. The sandbox (sandbox.py) contains the tools whatever a flag says;
this check says, at load and lint time, which option is the trouble.

The harness's own dump options (the configurations dump, the phase dumps of triage) are
added by the harness to its own commands, never read from a case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .pass_pipeline import PipelineError, unquoted
from .pass_pipeline import parse as parse_pipeline

RUNS = frozenset({
    "--iree-llvmcpu-embedded-linker-path", "--iree-llvmcpu-system-linker-path",
    "--iree-llvmcpu-wasm-linker-path", "--iree-hal-preprocess-executables-with", "--iree-load-plugin",
    "--iree-cuda-use-ptxas-from", "--iree-hal-cuda-use-ptxas-from", "--print-changed-diff-path",
    "--print-changed-dot-path", "--x86-lvi-load-opt-plugin", "--load-pass-plugin", "--load-dialect-plugin",
    "--load", "--pass-plugin", "--iree-hip-pass-plugin-path", "--exec-on-ir-change", "--iree-cuda-use-ptxas",
    "--iree-cuda-use-ptxas-params", "--iree-hal-cuda-use-ptxas", "--iree-hal-cuda-use-ptxas-params",
})
WRITES = frozenset({
    "-o", "--output", "--dump-compilation-phases-to", "--mlir-print-ir-tree-dir",
    "--mlir-pass-pipeline-crash-reproducer", "--crash-diagnostics-dir", "--info-output-file",
    "--stack-usage-file", "--remarks-output-file", "--ir-dump-directory", "--dot-cfg-dir",
    "--print-on-crash-path", "--opt-bisect-print-ir-path", "--module-summary-dot-file",
    "--iree-hal-dump-executable-files-to", "--iree-hal-dump-executable-sources-to",
    "--iree-hal-dump-executable-configurations-to", "--iree-hal-dump-executable-benchmarks-to",
    "--iree-hal-dump-executable-binaries-to", "--iree-hal-dump-executable-intermediates-to",
    "--iree-codegen-dump-tuning-specs-to", "--iree-flow-dump-dispatch-graph-output-file",
    "--iree-util-hoist-into-globals-print-constexpr-dotgraph-to", "--iree-llvmcpu-static-library-output-path",
    "--iree-parameter-encoder-output-file", "--iree-scheduling-dump-statistics-file",
    "--iree-opt-splat-parameter-archive-export-file", "--iree-opt-export-parameters",
    "--iree-vm-target-index-bits-file", "--instrumentor-write-config-file", "--dag-file-location",
    "--attributor-depgraph-dot-filename-prefix", "--callgraph-dot-filename-prefix",
    "--cfg-dot-filename-prefix", "--dot-ddg-filename-prefix", "--mcfg-dot-filename-prefix",
    "--memprof-dot-file-path-prefix", "--dot-cfg-mssa", "--amdgpu-module-splitting-print-module-dotcfg",
    "--amdgpu-module-splitting-print-partition-summaries", "--lowertypetests-write-summary",
    "--wholeprogramdevirt-write-summary", "--iree-opt-splat-parameters", "--iree-parameter-export",
    "--iree-parameter-splat", "--iree-vm-bytecode-source-listing", "--inliner-interactive-channel-base",
    "--regalloc-evict-interactive-channel-base", "--regalloc-priority-interactive-channel-base",
})
READS = frozenset({
    "--iree-codegen-tuning-spec-path", "--iree-codegen-transform-dialect-library",
    "--iree-preprocessing-transform-spec-filename", "--iree-preprocessing-pdl-spec-filename",
    "--iree-codegen-debug-patched-func-ops-file-name", "--iree-link-bitcode", "--iree-rocm-bc-dir",
    "--iree-hip-bc-dir", "--iree-hal-executable-object-search-path",
    "--iree-hal-substitute-executable-source", "--iree-hal-substitute-executable-sources-from",
    "--iree-hal-substitute-executable-object", "--iree-hal-substitute-executable-objects-from",
    "--iree-hal-substitute-executable-configuration", "--iree-hal-substitute-executable-configurations-from",
    "--iree-opt-import-parameters", "--iree-parameter-import", "--iree-dispatch-creation-dispatch-use-transform-dialect",
    "--chr-function-list", "--chr-module-list", "--dfsan-abilist", "--lowertypetests-read-summary",
    "--wholeprogramdevirt-read-summary", "--thinlto-workload-def", "--use-ctx-profile",
})
# Options whose names look like a file's but take a phase, a format or a number.
NOT_PATHS = frozenset({"--compile-from", "--compile-to", "--output-format", "--iree-vm-bytecode-module-output-format",
                       "--iree-vm-c-module-output-format", "--mlir-output-format", "--cfg-hide-cold-paths",
                       "--dfa-max-num-paths", "--dfa-max-num-visited-paths", "--dfa-max-path-length",
                       "--dse-memoryssa-path-check-limit", "--static-func-strip-dirname-prefix",
                       "--alloc-token-prefix", "--asan-memory-access-callback-prefix",
                       "--hwasan-memory-access-callback-prefix", "--memprof-memory-access-callback-prefix",
                       "--x86-pad-max-prefix-size", "--bbsections-cold-text-prefix", "--iree-plugin",
                       "--cgscc-inline-replay-format", "--cgscc-inline-replay-scope",
                       "--cgscc-inline-replay-fallback", "--sample-profile-inline-replay-format",
                       "--sample-profile-inline-replay-scope", "--sample-profile-inline-replay-fallback",
                       "--cold-operand-threshold", "--gvn-hoist-max-bbs", "--iree-dispatch-creation-pad-factor",
                       "--iree-hal-benchmark-dispatch-repeat-count", "--iree-llvmcpu-enable-llvm-ukernels",
                       "--iree-llvmgpu-prefetch-num-stages", "--iree-opt-export-parameter-minimum-size",
                       "--machine-sink-load-instrs-threshold", "--max-deopt-or-unreachable-succ-check-depth",
                       "--max-sched-reorder", "--optimize-existing-hot-cold-new", "--profile-correlate",
                       "--slp-runtime-alias-checks-max-scalar-cost-percent", "--filter-print-source-locs",
                       "--filter-save-modules", "--iree-llvmcpu-keep-linker-artifacts",
                       "--mlir-pass-pipeline-local-reproducer"})
# Options whose whole value is a pass pipeline, and the one whose value is a pipeline or a
# command (IREE takes a value starting `builtin.module(` as a pipeline, anything else as a
# command to start).
PIPELINES = frozenset({"--iree-preprocessing-pass-pipeline", "--pass-pipeline"})
PIPELINE_OR_COMMAND = "--iree-hal-preprocess-executables-with"
_PIPELINE = re.compile(r"^\s*builtin\.module\s*\(")

# Pass options (`pass{key=value}`) that name a program, a file or a folder, from the
# `iree-opt --help` of the releases (tests/test_tool_sandbox.py checks them against it);
# a pass option these tables do not know whose name says file is refused like an option.
PASS_RUNS = frozenset({"command", "cmd-options", "ptxas-cmd-options", "opts", "toolkit"})
PASS_WRITES = frozenset({"path", "file", "filename", "output-file", "prefix", "dump-statistics-file",
                         "dump-intermediates-path", "dump-binaries-path", "parameter-encoder-output-file",
                         "parameter-export-path", "parameter-splat-path", "snapshot-filename"})
PASS_READS = frozenset({"tuning-spec-path", "transform-spec-path", "transform-library-paths",
                        "transform-file-name", "library-file-name", "patterns-file", "extra-library",
                        "substitutions", "search-path", "library-path", "link-module", "paths",
                        "parameter-import-paths"})
PASS_PIPELINES = frozenset({"pipeline", "op-pipelines", "default-pipeline"})
# Pass options whose names look like a file's but are not.
PASS_NOT_PATHS = frozenset({"section", "output-scope", "output-format", "parameter-encoder-output-scope"})

# A name that says the option takes a file, a folder or a program.
_FILE_NAME = re.compile(r"(?:^|-)(?:files?|filename|path|paths|dir|directory|folder|prefix|library|plugin|"
                        r"linker|reproducer|replay|bitcode|command|cmd)(?:-|$)|-(?:to|from|with)$")
# A value that looks like a path: a separator, a home or a relative start.
_PATH_VALUE = re.compile(r"^(?:[~.]|.*/)")


@dataclass(frozen=True)
class Given:
    """One option as the compiler reads it from the command line."""
    option: str  # '--name' as written ('-o' too); '' for a word that is no option
    value: str | None  # None: no value given
    words: tuple[str, ...]  # as written: one word, or an option and the next word

    @property
    def flag(self) -> str:
        """The one-word spelling the compiler reads the same."""
        if not self.option:
            return self.words[0]
        return self.option if self.value is None else f"{self.option}={self.value}"


def split(flag: str) -> tuple[str, str | None]:
    """('--option', value or None) of one flag word."""
    option, eq, value = flag.partition("=")
    return option, (value if eq else None)


def _normal(option: str) -> str:
    return "--" + option.lstrip("-") if option != "-o" else option


def kind_of(option: str) -> str | None:
    """'runs' | 'writes' | 'reads' | 'names a file' for an option that names a file or a
    program, None for one that does not."""
    option = _normal(option)
    if option in RUNS:
        return "runs"
    if option in WRITES:
        return "writes"
    if option in READS:
        return "reads"
    if option not in NOT_PATHS and _FILE_NAME.search(option.lstrip("-")):
        return "names a file"
    return None


def pass_option_kind(key: str) -> str | None:
    """The same for a pass's option (`pass{key=value}`); 'pipeline' for one whose value is
    a pass pipeline itself."""
    if key in PASS_PIPELINES:
        return "pipeline"
    for kind, table in (("runs", PASS_RUNS), ("writes", PASS_WRITES), ("reads", PASS_READS)):
        if key in table:
            return kind
    if key not in PASS_NOT_PATHS and _FILE_NAME.search(key):
        return "names a file"
    return None


def _is_pipeline(option: str, value: str | None) -> bool:
    """Whether the compiler reads this option's value as a pass pipeline."""
    option = _normal(option)
    return option in PIPELINES or (option == PIPELINE_OR_COMMAND and value is not None
                                   and bool(_PIPELINE.match(value)))


def _takes_value(option: str) -> bool:
    """Whether the compiler gives this option the next word when it has no `=value`: an
    option that takes a file, a program or a pipeline (LLVM's ValueRequired)."""
    option = _normal(option)
    return kind_of(option) is not None or option in PIPELINES or option == PIPELINE_OR_COMMAND


def read(words) -> list[Given]:
    """The options of a flag list as iree-compile's parser takes them."""
    words = [str(w) for w in words]
    found, i = [], 0
    while i < len(words):
        word = words[i]
        if word.startswith("-") and word != "--":
            option, value = split(word)
            if value is None and _takes_value(option) and i + 1 < len(words):
                found.append(Given(option, words[i + 1], (word, words[i + 1])))
                i += 2
                continue
            found.append(Given(option, value, (word,)))
        else:
            found.append(Given("", None, (word,)))
        i += 1
    return found


_WHY = {"runs": "makes the compiler start a program or load native code",
        "writes": "makes the compiler write where it says, outside the item",
        "names a file": "names a file or folder, and is not one a case may give"}


def refusal(given: Given | str, case_dir: Path | None) -> str | None:
    """Why one option (a Given, or one flag word) is refused in a case whose folder is
    `case_dir` (None: no folder, so no file may be named), or None where it may stay."""
    if isinstance(given, str):
        given = read([given])[0]
    response = next((w for w in given.words if w.startswith("@")), None)
    if response:
        return f"{response!r} is a response file: the compiler would read more options from {response[1:]!r}"
    if not given.option:
        word = given.words[0]
        if word == "--":
            return "'--' ends the options: the compiler reads every word after it as an input file"
        return (f"{word!r} is not an option: the compiler reads a bare word as another input file; "
                f"give an option's value as --option=value")
    option, value = _normal(given.option), given.value
    if _is_pipeline(option, value):
        return _pipeline_refusal(given.option, value, case_dir)
    kind = kind_of(option)
    if kind == "reads":
        if value is None:
            return f"{given.option} reads the file its value names, and has no value"
        return _outside(given.option, value, case_dir)
    if kind is not None:
        return f"{given.option} {_WHY[kind]}"
    if value is not None and _PATH_VALUE.match(value):
        return f"{given.option}={value} looks like a path, and {given.option} is not an option known to read a case's file"
    return None


def _pipeline_refusal(option: str, pipeline: str | None, case_dir: Path | None) -> str | None:
    """Why a pass pipeline is refused: it cannot be read, or one of its passes' options
    would run, write or read outside the case as a top-level option of that kind would."""
    try:
        passes = parse_pipeline(pipeline or "")
    except PipelineError as e:
        return f"{option}={pipeline!r} is not a pass pipeline this reader can parse ({e}); it is not trusted"
    for outer in passes:
        for p in outer.walk():
            for key, value in p.options:
                said = f"{option}: pass {p.name} option {key}"
                kind = pass_option_kind(key)
                if kind == "pipeline":
                    why = _pipeline_refusal(said, unquoted(value or ""), case_dir)
                elif kind == "reads":
                    why = _outside(said, unquoted(value or ""), case_dir) if value else None
                elif kind is not None:
                    why = f"{said} {_WHY[kind]}"
                elif value is not None and _PATH_VALUE.match(unquoted(value)):
                    why = f"{said}={value} looks like a path, and {key} is not an option known to read a case's file"
                else:
                    why = None
                if why:
                    return why
    return None


def _outside(option: str, value: str | None, case_dir: Path | None) -> str | None:
    """None when every path `value` names is an existing file or folder inside the case."""
    if case_dir is None:
        return f"{option} reads a file, and only a case's own files may be named"
    for part in _paths_of(value or ""):
        path = Path(case_dir, part)
        if Path(part).is_absolute() or not path.resolve().is_relative_to(Path(case_dir).resolve()):
            return f"{option} names {part!r}, which is outside the case's folder"
        if not path.exists():
            return f"{option} names {part!r}, which is not in the case's folder"
    return None


def _paths_of(value: str) -> list[str]:
    """The paths an option's value names: comma-separated lists, `name=path` pairs and
    the `@entry` suffix of a transform library."""
    parts = [p.split("=", 1)[-1] for p in value.split(",") if p]
    return [p.split("@", 1)[0] for p in parts if p.split("@", 1)[0]]


def refusals(flags, case_dir: Path | None) -> list[str]:
    """Why each refused option of a flag list is refused, in order, the list read as the
    compiler reads it (`read`)."""
    return [why for given in read(flags) if (why := refusal(given, case_dir))]


def screened(flags, case_dir: Path | None = None) -> tuple[list[str], list[str]]:
    """(the flags that may stay, one word each, 'flag: why' of each refused one): for a
    list that drops what it cannot keep (harvest), where a case refuses as a whole."""
    kept, dropped = [], []
    for given in read(flags):
        why = refusal(given, case_dir)
        if why:
            dropped.append(f"{' '.join(given.words)}: {why}")
        else:
            kept.append(given.flag)
    return kept, dropped


class Refused(ValueError):
    pass


def vetted(flags) -> tuple[str, ...]:
    """The flags, one word each, for a script a person will run (run.sh, ISSUE.md): every
    one accepted by the reader with no folder to read from, else Refused saying why."""
    kept, dropped = screened(flags)
    if dropped:
        raise Refused("; ".join(dropped))
    return tuple(kept)


# The case files the loader vetted and gave as absolute paths: the only paths in a tool's
# read options that the sandbox binds for it to read (sandbox.paths_in).
_VOUCHED: set[str] = set()


def vouched(path: str) -> bool:
    return path in _VOUCHED


def resolved(flags, case_dir: Path) -> tuple[str, ...]:
    """Flags as one word each, with the case's own files that options (and pass options)
    read made absolute: the tools run from another folder. Call only on flags `refusals`
    accepts."""

    def absolute(value: str) -> str:
        return ",".join(_absolute(entry, case_dir) for entry in value.split(","))

    def pass_value(key: str, value: str) -> str:
        if pass_option_kind(key) == "reads" and value:
            quote = value[0] if value[0] in "\"'" else ""
            return f"{quote}{absolute(unquoted(value))}{quote}"
        return value

    out = []
    for given in read(flags):
        option, value = _normal(given.option), given.value
        if kind_of(option) == "reads" and value:
            out.append(f"{given.option}={absolute(value)}")
        elif value and _is_pipeline(option, value):
            out.append(f"{given.option}=" + ",".join(p.text(pass_value) for p in parse_pipeline(value)))
        else:
            out.append(given.flag)
    return tuple(out)


def _absolute(entry: str, case_dir: Path) -> str:
    name, eq, rest = entry.rpartition("=") if "=" in entry else ("", "", entry)
    path, at, symbol = rest.partition("@")
    real = Path(case_dir, path).resolve()
    _VOUCHED.add(str(real))
    return f"{name}{eq}{real}{at}{symbol}"
