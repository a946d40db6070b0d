"""`iree-regress harvest THREAD`: an upstream report, as pasted, read into what a case needs.

THREAD is an issue's text: the markdown body saved from the browser, or what
`gh issue view N -R owner/repo --comments` prints (fetch_thread runs that for
`--issue owner/repo#N` alone, where gh and the network are there). From it:

    the title and the issue     a `# ` heading or gh's `title:`; a github.com issue URL or
                                gh's `number:` with --issue's repository
    the program                 a fenced MLIR block (func.func / util.func / module); when
                                the thread holds several, the one its command names, else
                                the caller is asked to choose (never guessed)
    the command                 an `iree-compile ...` line: its target and the flags that
                                are about the bug (output, dump and path flags dropped); or,
                                with none, an `iree-opt ...` line: its passes become the
                                case's [[ir]] check (an IR case)
    the version                 the release or candidate the reporter ran, when said
    a PyTorch snippet           with no MLIR block: a fenced Python block defining an
                                nn.Module and exporting it (aot.export, torch.export.export)
                                becomes model.py: its code up to the export, then `Model`
                                and `example_inputs()` naming what the export was given
    a run                       an `iree-run-module ...` line: its `--input=` values become
                                inputs/ and the case runs with no golden (kind "run"), the
                                bug being how the run fails
    stated results              `check.expect_eq_const` / `check.expect_almost_eq_const` in
                                the program (an iree-check-module test, which PyPI's runtime
                                lacks): the program returns the checked values instead, and
                                the stated values, with the check's atol, become the golden
    the quoted failure          the first `error:` line outside the program
    links                       attachments and gists: a program only linked is asked for
                                with --attach, never fetched or guessed

Nothing here writes anything: commands/cases.py makes the case (scaffold.new_case) and
scans the releases (prove --scan --write) in a scratch folder, and moves it into cases/
only when the releases show a bug.
"""

from __future__ import annotations

import ast
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .case import ISSUE_REF
from .outcomes import CRASHED, FAILED, WRONG_NUMBERS, stage_outcome
from .targets import target_of_flags

_FENCE = re.compile(r"^(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*\n(.*?)^\1[ \t]*$", re.M | re.S)
_PROGRAM = re.compile(r'^\s*(func\.func|util\.func|module\b|builtin\.module|hal\.executable|"builtin\.module"\(\)'
                      r'|"func\.func"\(\))', re.M)
_ISSUE_URL = re.compile(r"https://github\.com/([\w.-]+/[\w.-]+)/issues/(\d+)")
_LINK = re.compile(r"https://(?:github\.com/(?:user-attachments/files|[\w.-]+/[\w.-]+/files)/\S+?"
                   r"|gist\.github\.com/\S+?)(?=[)\s\]>]|$)")
# What the reporter ran: "IREE version 3.1.0", "iree-base-compiler==3.4.0rc2025...",
# "iree-compile --version" output, or a candidate build's tag.
_VERSION = re.compile(r"\bIREE(?:\s+compiler)?\s+version[:\s]+v?(\d+\.\d+\.\d+\S*)"
                      r"|iree-base-compiler(?:==|\s+)v?(\d+\.\d+\.\d+\S*)"
                      r"|\b(candidate-\d{8}\.\d+)"
                      r"|Version information\W*\[?([0-9a-f]{40})\b"
                      r"|Version information\W*v?(\d+\.\d+\.\d+(?:rc\d+)?)\b", re.I)
_TORCH_MODULE = re.compile(r"^import torch|^from torch|^class \w+\((?:torch\.)?nn\.Module\)", re.M)
_WRONG = re.compile(r"\b(?:wrong|incorrect|mismatch\w*|inaccurate|differ\w*)\b.{0,40}?\b(?:results?|outputs?|values?|"
                    r"numbers?|numerics?)\b|numerical(?:ly)? (?:mismatch|differen\w+|error)", re.I)
_MLIR_NAME = re.compile(r"([\w.-]+\.mlir)\b")
_NAMED_WITHIN = 300  # characters before a block where its file name may be said
_DIAGNOSTIC = re.compile(r"^\S+:\d+:\d+: (?:error|warning|note):", re.M)
_STATUS = re.compile(r"\b([A-Z][A-Z_]{3,}; [^`\n]+)")  # iree-run-module's "INVALID_ARGUMENT; ..."
_ERROR = re.compile(r"(?:^`?|:\s)error:\s*(.+?)`?$", re.M)
# A thread that reports the compiler dying, not diagnosing.
_CRASH = re.compile(r"\bcrash|Stack dump|Assertion .* failed|Segmentation fault|SIG(?:SEGV|FPE|ABRT|BUS)", re.I)
# Flags that are about where output goes or what is printed, not about the bug.
_DROPPED = ("--output", "--mlir-print", "--mlir-elide", "--dump", "--iree-hal-dump",
            "--mlir-pass-pipeline-crash-reproducer", "--mlir-disable-threading",
            "--iree-hal-target-backends", "--iree-hal-target-device", "--iree-hal-local-target-device-backends",
            "--compile-to", "--output-format", "--iree-vm-bytecode-module-output-format")


class HarvestError(ValueError):
    """The thread cannot become a case as it is: the message says what to give."""


@dataclass
class Thread:
    title: str = ""
    issue: str = ""  # owner/repo#N
    programs: list[str] = field(default_factory=list)  # MLIR blocks, in order
    program_names: list[set[str]] = field(default_factory=list)  # file names said just before each
    commands: list[list[str]] = field(default_factory=list)  # iree-compile argv, tokenized
    opt_commands: list[list[str]] = field(default_factory=list)  # iree-opt argv, tokenized
    run_commands: list[list[str]] = field(default_factory=list)  # iree-run-module argv, tokenized
    version: str = ""  # the release or candidate the reporter ran, when the text says
    quoted: str = ""  # the first error line the thread quotes
    crash: bool = False  # it reports a compiler crash (the scan looks for compile-crash)
    links: list[str] = field(default_factory=list)  # attachments and gists
    torch_snippets: list[str] = field(default_factory=list)  # Python blocks defining an nn.Module
    wrong_numbers: bool = False  # it says the results are wrong (mismatch, incorrect, ...)
    compiler_failed: bool = False  # a diagnostic of the program's file, or iree-compile's stack dump


def read_thread(text: str, repo: str = "") -> Thread:
    """What the thread says; `repo` (owner/repo) completes gh's bare `number:`."""
    t = Thread()
    heading = re.search(r"^#\s+(.+)$", text, re.M)
    gh_title = re.search(r"^title:\s+(.+)$", text, re.M)
    t.title = (gh_title or heading).group(1).strip() if (gh_title or heading) else ""
    url = _ISSUE_URL.search(text)
    number = re.search(r"^number:\s+(\d+)$", text, re.M)
    if url:
        t.issue = f"{url.group(1)}#{url.group(2)}"
    elif number and repo:
        t.issue = f"{repo}#{number.group(1)}"
    prose = text
    for m in _FENCE.finditer(text):
        body = m.group(3)
        # A tool's output echoes the program's lines under its diagnostics: not a program.
        if _PROGRAM.search(body) and "iree-compile" not in body and not _DIAGNOSTIC.search(body):
            t.programs.append(body.rstrip() + "\n")
            # "Compile the following IR (matmul_int32.mlir)": the name the command then uses
            before = text[max(0, m.start() - _NAMED_WITHIN):m.start()].splitlines()[-3:]
            t.program_names.append(set(_MLIR_NAME.findall("\n".join(before) + m.group(0).split("\n", 1)[0])))
            prose = prose.replace(body, "")
        elif _TORCH_MODULE.search(body):
            t.torch_snippets.append(body.rstrip() + "\n")
            prose = prose.replace(body, "")
    # A command has flags; "running iree-compile on a model" in prose is not one.
    t.commands, t.opt_commands, t.run_commands = (
        [argv for argv in map(_argv, _command_lines(prose, tool)) if any(a.startswith("-") and len(a) > 1
                                                                         for a in argv[1:])]
        for tool in ("iree-compile", "iree-opt", "iree-run-module"))
    version = _VERSION.search(text)
    t.version = next(g for g in version.groups() if g).rstrip(".,)") if version else ""
    if re.fullmatch(r"[0-9a-f]{40}", t.version):
        t.version = f"iree-org/iree@{t.version[:12]}"
    error = _ERROR.search(prose) or _STATUS.search(prose)  # a diagnostic, else a runtime status
    t.quoted = error.group(1).strip() if error else ""
    t.crash = bool(_CRASH.search(t.title + "\n" + prose))
    t.wrong_numbers = bool(_WRONG.search(t.title + "\n" + prose))
    t.compiler_failed = bool(re.search(r"\.mlir:\d+:\d+: error:|Program arguments:\s*\S*iree-(?:compile|opt)", prose))
    t.links = list(dict.fromkeys(_LINK.findall(text)))
    return t


def _command_lines(text: str, tool: str) -> list[str]:
    """Each `TOOL ...` command (a path before the tool's name is fine), backslash
    continuations joined, up to the next command of its line (`&&`, `;`, `|`)."""
    joined = re.sub(r"\\\n\s*", " ", text)
    found = (re.search(rf"(?<![\w-]){re.escape(tool)} ", line) for line in joined.splitlines())
    # A command quoted inline in prose (`iree-compile ... x.mlir`) ends at its backtick.
    lines = [m.string[m.start():].split("`")[0] if m.string[:m.start()].endswith("`") else m.string[m.start():]
             for m in found if m]
    return [re.split(r"\s(?:&&|\|\||;|\|)\s", line, maxsplit=1)[0] for line in lines]


def _argv(line: str) -> list[str]:
    line = line.strip().strip("`")
    try:
        return shlex.split(line)
    except ValueError:  # an unbalanced quote in prose: words are enough to read flags
        return line.split()


def target_and_flags(command: list[str]) -> tuple[str, list[str], str]:
    """(target row, the flags that are about the bug, what was guessed) from a command:
    the target as an [[ir]] check's flags name it (targets.target_of_flags)."""
    words = command[1:]
    target = target_of_flags(words)
    # The host CPU is the cpu profile's own; another CPU (`generic`, `znver4`) may be the bug's.
    kept = [w for w in words if w.startswith("--") and not w.split("=", 1)[0].startswith(_DROPPED)
            and w != "--iree-llvmcpu-target-cpu=host"]
    return target or "cpu", kept, "" if target else "no target the harness runs is named: cpu"


def pass_args(command: list[str]) -> list[str]:
    """The passes an `iree-opt` command runs (its flags, output and print flags dropped):
    the args of the case's [[ir]] check."""
    return [w for w in command[1:] if w.startswith("-") and len(w) > 1
            and not w.lstrip("-").split("=", 1)[0].startswith(tuple(d.lstrip("-") for d in _DROPPED))
            and w not in ("-o",)]


def choose_program(t: Thread, attached: dict[str, str]) -> tuple[str, str]:
    """(program text, where it came from), or HarvestError saying what to give."""
    if attached:
        name, text = next(iter(attached.items()))
        return text, f"--attach {name}"
    if len(t.programs) == 1:
        return t.programs[0], "the thread's MLIR block"
    # Several: the one named as the file the thread's command compiles (or runs its passes on).
    inputs = {Path(w).name for argv in t.commands + t.opt_commands for w in argv[1:] if w.endswith(".mlir")}
    named = [j for j, names in enumerate(t.program_names) if names & inputs]
    if len(named) == 1:
        j = named[0]
        name = ", ".join(sorted(t.program_names[j] & inputs))
        return t.programs[j], f"MLIR block {j + 1} of {len(t.programs)}, named {name} as the command's input"
    if not t.programs:
        if t.links:
            raise HarvestError("the program is only linked, not in the text: "
                               + ", ".join(t.links) + "; download it and give --attach NAME=FILE")
        raise HarvestError("the thread holds no MLIR program (a fenced block with func.func, util.func or "
                           "module) and no PyTorch snippet that exports its module; give --attach NAME=FILE")
    raise HarvestError(f"the thread holds {len(t.programs)} MLIR blocks and its command does not say which it "
                       "compiles; save the one that reproduces and give --attach NAME=FILE")


def fails_at_run_time(t: Thread) -> bool:
    """A thread that runs its module and whose failure is not the compiler's (no diagnostic
    of the program's file, no compiler stack dump): the bug is how the run fails."""
    return bool(t.run_commands) and not t.compiler_failed


def run_inputs(command: list[str]) -> list:
    """The `--input=` values of an iree-run-module command as numpy arrays, in order
    (`2x3xf32=1 2 3 4 5 6`, `4xi32=[1 2 3 4]`, one value filling its shape, `4xf32` zeros).
    HarvestError for a value read from a file (the thread names it only) or with no type."""
    import numpy as np

    arrays = []
    for word in command[1:]:
        if not word.startswith("--input="):
            continue
        value = word[len("--input="):]
        if value.startswith("@"):
            raise HarvestError(f"the run reads {value[1:]}, which the thread only names: give the values "
                               "(--input=SHAPExTYPE=...) or write the case by hand")
        spec, _, data = value.partition("=")
        *dims, element = spec.split("x")
        if element not in _DTYPES or not all(d.isdigit() for d in dims):
            raise HarvestError(f"--input={value}: harvest reads SHAPExTYPE=VALUES of {', '.join(_DTYPES)}")
        shape = [int(d) for d in dims]
        numbers = re.findall(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan|true|false)", data)
        dtype = np.dtype(_DTYPES[element]) if element != "bf16" else np.dtype("float32")
        values = [v == "true" if v in ("true", "false") else float(v) for v in numbers] or [0]
        count = int(np.prod(shape)) if shape else 1
        if len(values) not in (1, count):
            raise HarvestError(f"--input={value}: {len(values)} values for shape {shape}")
        arrays.append(np.full(shape, values[0], dtype) if len(values) == 1 else
                      np.array(values, dtype).reshape(shape))
    return arrays


def torch_program(t: Thread) -> tuple[str, str]:
    """(model.py, where it came from) from the first PyTorch snippet that exports its
    module, or HarvestError saying why none does."""
    problem = None
    for j, snippet in enumerate(t.torch_snippets):
        try:
            return torch_model(snippet), f"the thread's PyTorch snippet {j + 1} of {len(t.torch_snippets)} (model.py)"
        except HarvestError as e:
            problem = e
    raise problem or HarvestError("the thread holds no PyTorch snippet")


def bug_outcome(t: Thread) -> str | None:
    """The outcome the thread reports: a crash, a diagnostic, wrong numbers (a PyTorch
    snippet whose thread says its results are wrong), or None (the scan infers it); of the
    IR check for an iree-opt thread, else of the compile."""
    stage = "ir" if t.opt_commands and not t.commands else "run" if fails_at_run_time(t) else "compile"
    if t.crash:
        return stage_outcome(stage, CRASHED)
    if t.quoted:
        return stage_outcome(stage, FAILED)
    return WRONG_NUMBERS if t.torch_snippets and t.wrong_numbers else None


def quoted_match(quoted: str) -> str | None:
    """The thread's quoted failure as a bug message to scan for (its text, escaped; the
    releases must print it for it to count), or None."""
    return re.escape(quoted).replace("\\ ", " ") if quoted else None


def slug_of(title: str) -> str:
    words = re.findall(r"[a-z0-9]+", title.lower())
    stop = {"the", "a", "an", "of", "in", "on", "for", "to", "with", "and", "is", "when", "that"}
    return "-".join([w for w in words if w not in stop][:7]) or "harvested-case"


def fetch_thread(issue: str) -> str:
    """The text of owner/repo#N as `gh issue view N -R owner/repo --comments` prints it;
    HarvestError when there is no gh, no network or no login (then save the text by hand)."""
    if not ISSUE_REF.fullmatch(issue or ""):
        raise HarvestError("without THREAD, --issue owner/repo#N names the issue to fetch")
    repo, number = issue.split("#")
    gh = shutil.which("gh")
    if gh is None:
        raise HarvestError("fetching an issue needs gh (the GitHub CLI); or save its text and give it as THREAD")
    try:
        proc = subprocess.run([gh, "issue", "view", number, "-R", repo, "--comments"], capture_output=True,
                              text=True, timeout=120)
    except subprocess.TimeoutExpired:
        raise HarvestError(f"gh issue view {number} -R {repo}: no answer in 120 s") from None
    if proc.returncode != 0:
        said = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        raise HarvestError(f"gh issue view {number} -R {repo}: {said}")
    return proc.stdout


def check_issue(issue: str) -> str:
    if not ISSUE_REF.fullmatch(issue or ""):
        raise HarvestError("the thread names no issue (a github.com/OWNER/REPO/issues/N link or gh's "
                           "`number:`): give --issue owner/repo#N")
    return issue


def torch_model(snippet: str) -> str:
    """model.py from a thread's PyTorch snippet: its code up to the statement that exports
    the module (iree-turbine's `aot.export(model, *args)` or `torch.export.export(model,
    args)`), then `Model()` giving that module and `example_inputs()` the arguments it was
    given, both as the snippet spells them. HarvestError when the snippet is not Python or
    exports nothing (a module compiled some other way is for the author to write)."""
    try:
        tree = ast.parse(snippet)
    except SyntaxError as e:
        raise HarvestError(f"the PyTorch snippet is not Python as pasted (line {e.lineno}: {e.msg})") from None
    for stmt in tree.body:
        call = next((n for n in ast.walk(stmt) if isinstance(n, ast.Call) and _is_export(n.func)), None)
        if call is not None and call.args:
            break
    else:
        modules = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
        raise HarvestError(f"the PyTorch snippet defines {', '.join(modules) or 'no module'} but exports nothing "
                           "(aot.export(model, *inputs) or torch.export.export(model, inputs)), so its inputs "
                           "are not said; write model.py (Model, example_inputs()) and use new-case --from-torch")
    model = ast.unparse(call.args[0])
    keyword = [kw.value for kw in call.keywords if kw.arg == "args"]
    given = keyword or call.args[1:]
    if len(given) == 1 and isinstance(given[0], ast.Tuple) and (keyword or _name(call.func) == "torch.export.export"):
        given = given[0].elts  # torch.export.export(model, (x, y)), aot.export(model, args=(x, y))
    inputs = ", ".join(ast.unparse(a) for a in given)
    head = "\n".join(snippet.splitlines()[: stmt.lineno - 1]).rstrip()
    return ("import torch\n\ntorch.manual_seed(0)  # the snippet's random inputs, the same at every golden\n\n"
            f"{head}\n\n\n# What the thread's snippet exported (written by iree-regress harvest).\n"
            f"def Model():\n    return {model}\n\n\n"
            f"def example_inputs():\n    return ({inputs}{',' if inputs else ''})\n")


_EXPORTS = ("aot.export", "export", "torch.export.export", "iree.turbine.aot.export")


def _name(func: ast.expr) -> str:
    return ast.unparse(func)


def _is_export(func: ast.expr) -> bool:
    return _name(func) in _EXPORTS


@dataclass
class Stated:
    """What a check op says a value must be: the thread's own statement of the correct result."""
    value: str  # the SSA value checked
    type: str  # its tensor type
    literal: str  # the dense<...> contents
    atol: float  # 0 for expect_eq_const


_CHECK = re.compile(r"^[ \t]*check\.(expect_eq_const|expect_almost_eq_const)\((%[\w.$-]+),\s*dense<(.+?)>\s*:"
                    r"\s*(tensor<[^>]+>)(?:,\s*atol\s*([\d.eE+-]+))?\)\s*:\s*tensor<[^>]+>[ \t]*\n", re.M)
_NO_RESULTS = re.compile(r"(func\.func\s+@[\w$.-]+\(\s*\))\s*(?:->\s*\(\s*\))?\s*\{")
_BARE_RETURN = re.compile(r"^([ \t]*)return[ \t]*$", re.M)


def stated_results(program: str) -> tuple[str, list[Stated]]:
    """(the program returning what its check ops checked, what they say it must be); the
    program unchanged and [] when it holds no check op. HarvestError for a form this does
    not rewrite (arguments, several functions, checks of something else)."""
    checks = list(_CHECK.finditer(program))
    if not checks:
        if "check.expect" in program:
            raise HarvestError("the program checks its results with check ops in a form harvest does not read "
                               "(only check.expect_eq_const / expect_almost_eq_const of a dense constant)")
        return program, []
    if len(_NO_RESULTS.findall(program)) != 1 or len(_BARE_RETURN.findall(program)) != 1:
        raise HarvestError("the program's check ops are not in one function without arguments or results: "
                           "rewrite it to return the checked values and give --attach NAME=FILE")
    stated = [Stated(m.group(2), m.group(4), m.group(3), float(m.group(5) or (1e-4 if "almost" in m.group(1) else 0)))
              for m in checks]
    body = _CHECK.sub("", program)
    types = ", ".join(s.type for s in stated)
    body = _NO_RESULTS.sub(lambda m: f"{m.group(1)} -> ({types}) {{", body, count=1)
    body = _BARE_RETURN.sub(lambda m: f"{m.group(1)}return {', '.join(s.value for s in stated)} : {types}", body,
                            count=1)
    return body, stated


def stated_reference(stated: list[Stated]) -> str:
    """reference.py whose reference() is the values the thread's check ops state (torch
    tensors of the checked types): the golden iree-regress golden writes, never IREE's."""
    lines = ["# The values the thread's check ops state as correct (written by iree-regress harvest);",
             "# the program takes no inputs.", "import torch", "", "", "def example_inputs():", "    return ()",
             "", "", "def reference():"]
    outs = []
    for j, s in enumerate(stated):
        shape, dtype = _tensor_type(s.type)
        lines.append(f"    out{j} = torch.tensor({_literal(s.literal)}, dtype=torch.{dtype})"
                     f".expand({shape}).clone()" if shape else
                     f"    out{j} = torch.tensor({_literal(s.literal)}, dtype=torch.{dtype})")
        outs.append(f"out{j}")
    lines.append(f"    return {', '.join(outs)}" + ("," if len(outs) == 1 else ""))
    return "\n".join(lines) + "\n"


_DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "i8": "int8", "i16": "int16",
           "i32": "int32", "i64": "int64", "i1": "bool", "ui8": "uint8"}


def _tensor_type(text: str) -> tuple[list[int], str]:
    *dims, element = text[len("tensor<"):-1].split("x")
    if element not in _DTYPES or not all(d.isdigit() for d in dims):
        raise HarvestError(f"a checked value of type {text}: harvest reads static tensors of "
                           f"{', '.join(_DTYPES)}")
    return [int(d) for d in dims], _DTYPES[element]


def _literal(text: str) -> str:
    """A dense<...> literal as Python (a splat stays a scalar, expanded to the shape)."""
    text = text.strip()
    if re.search(r"0x[0-9A-Fa-f]|\"", text):
        raise HarvestError(f"dense<{text}>: hex or string literals are not read; give --attach NAME=FILE")
    return text.replace("true", "True").replace("false", "False")

