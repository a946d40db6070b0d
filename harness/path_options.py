"""Compiler options that name a file, a folder or a program, and which of them a case may give.

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
from pathlib import Path

RUNS = frozenset({
    "--iree-llvmcpu-embedded-linker-path", "--iree-llvmcpu-system-linker-path",
    "--iree-llvmcpu-wasm-linker-path", "--iree-hal-preprocess-executables-with", "--iree-load-plugin",
    "--iree-cuda-use-ptxas-from", "--iree-hal-cuda-use-ptxas-from", "--print-changed-diff-path",
    "--print-changed-dot-path", "--x86-lvi-load-opt-plugin", "--load-pass-plugin", "--load-dialect-plugin",
    "--load", "--pass-plugin", "--iree-hip-pass-plugin-path",
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
# A name that says the option takes a file, a folder or a program.
_FILE_NAME = re.compile(r"(?:^|-)(?:files?|filename|path|paths|dir|directory|folder|prefix|library|plugin|"
                        r"linker|reproducer|replay|bitcode)(?:-|$)|-(?:to|from|with)$")
# A value that looks like a path: a separator, a home or a relative start.
_PATH_VALUE = re.compile(r"^(?:[~.]|.*/)")
# An iree-hal-preprocess-executables-with value that is a pass pipeline, not a command.
_PIPELINE = re.compile(r"^builtin\.module\(")


def split(flag: str) -> tuple[str, str | None]:
    """('--option', value or None) of one flag word."""
    option, eq, value = flag.partition("=")
    return option, (value if eq else None)


def kind_of(option: str) -> str | None:
    """'runs' | 'writes' | 'reads' | 'names a file' for an option that names a file or a
    program, None for one that does not."""
    option = "--" + option.lstrip("-") if option != "-o" else option
    if option in RUNS:
        return "runs"
    if option in WRITES:
        return "writes"
    if option in READS:
        return "reads"
    if option not in NOT_PATHS and _FILE_NAME.search(option.lstrip("-")):
        return "names a file"
    return None


_WHY = {"runs": "makes the compiler start a program or load native code",
        "writes": "makes the compiler write where it says, outside the item",
        "names a file": "names a file or folder, and is not one a case may give"}


def refusal(flag: str, case_dir: Path | None) -> str | None:
    """Why one flag word is refused in a case whose folder is `case_dir` (None: no folder,
    so no file may be named), or None where it may stay."""
    if flag.startswith("@"):
        return f"{flag!r} is a response file: the compiler would read more options from {flag[1:]!r}"
    option, value = split(flag)
    kind = kind_of(option)
    if kind == "runs" and value is not None and _PIPELINE.match(value):
        return None  # a pass pipeline run inside the compiler, not a command
    if kind == "reads":
        return _outside(option, value, case_dir)
    if kind is not None:
        return f"{option} {_WHY[kind]}"
    if value is not None and _PATH_VALUE.match(value):
        return f"{option}={value} looks like a path, and {option} is not an option known to read a case's file"
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
    """Why each refused flag is refused, in order (the next word of a two-word option such
    as `-o out` counts as its value)."""
    words = list(flags)
    found = []
    for i, word in enumerate(words):
        if word in ("-o", "--output") and i + 1 < len(words):
            word = f"{word}={words[i + 1]}"
        why = refusal(word, case_dir)
        if why:
            found.append(why)
    return found


def resolved(flags, case_dir: Path) -> tuple[str, ...]:
    """Flags with each allowed read option's relative paths made absolute inside the case's
    folder: the tools run from another folder. Call only on flags `refusals` accepts."""
    out = []
    for flag in flags:
        option, value = split(flag)
        if kind_of(option) == "reads" and value:
            value = ",".join(_absolute(entry, case_dir) for entry in value.split(","))
            flag = f"{option}={value}"
        out.append(flag)
    return tuple(out)


def _absolute(entry: str, case_dir: Path) -> str:
    name, eq, rest = entry.rpartition("=") if "=" in entry else ("", "", entry)
    path, at, symbol = rest.partition("@")
    return f"{name}{eq}{Path(case_dir, path).resolve()}{at}{symbol}"
