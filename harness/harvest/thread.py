"""What an upstream report says, read from its text as pasted (harvest's first half).

THREAD is an issue's text: the markdown body saved from the browser, what
`gh issue view N -R owner/repo --comments` prints (fetch_thread runs that for
`--issue owner/repo#N` alone, where gh and the network are there), or gh's
`--json title,url,body,comments`; a saved web page (HTML) is refused. From it:

    the title and the issue     a `# ` heading or gh's `title:`; a github.com issue URL or
                                gh's `number:` with --issue's repository
    the program                 a fenced MLIR block (func.func / util.func / module); when
                                the thread holds several, the one its command names, else
                                each is scanned and the one that reproduces is taken
                                (blocks_to_try; never guessed); or, with none, a PyTorch
                                snippet (program.torch_program)
    the commands                an `iree-compile ...` line: its target and the flags that
                                are about the bug (output, dump and path flags dropped); an
                                `iree-opt ...` line alone: its passes (an IR case); an
                                `iree-run-module ...` line: the run and its --input= values
    the version                 the release, candidate or commit the reporter ran, when said
    the quoted failure          the first `error:` line outside the program, else a runtime
                                status (`INVALID_ARGUMENT; ...`)
    links                       attachments and gists: a program only linked is asked for
                                with --attach, never fetched or guessed
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .. import path_options
from ..case import ISSUE_REF
from ..outcomes import CRASHED, FAILED, WRONG_NUMBERS, stage_outcome
from ..targets import target_of_flags

_FENCE = re.compile(r"^(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*\n(.*?)^\1[ \t]*$", re.M | re.S)
# A fence left open at the end (a thread cut short): read only for an ONNX script, whose
# statements up to its model can be taken (program.onnx_program); a program cut short is
# no program.
_OPEN_FENCE = re.compile(r"^(`{3,}|~{3,})[ \t]*[\w+-]*[^\n]*\n((?:(?!^\1).)*)\Z", re.M | re.S)
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
_ONNX_SCRIPT = re.compile(r"\bmake_graph\s*\(")  # a model built with onnx.helper
_TORCH_MODULE = re.compile(r"^import torch|^from torch|^class \w+\((?:torch\.)?nn\.Module\)", re.M)
_WRONG = re.compile(r"\b(?:wrong|incorrect|mismatch\w*|inaccurate|differ\w*)\b.{0,40}?\b(?:results?|outputs?|values?|"
                    r"numbers?|numerics?)\b|numerical(?:ly)? (?:mismatch|differen\w+|error|incorrect|wrong)", re.I)
_TORCH_FUNC = re.compile(r"func\.func\s+@[\w$.\"-]+\(([^)]*)\)")
_VTENSOR = re.compile(r":\s*!torch\.vtensor<\[([\d,]*)\],(\w+)>\s*$")
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
    onnx_scripts: list[str] = field(default_factory=list)  # Python blocks building an ONNX model
    wrong_numbers: bool = False  # it says the results are wrong (mismatch, incorrect, ...)
    compiler_failed: bool = False  # a diagnostic of the program's file, or iree-compile's stack dump
    # The argument types of each torch-dialect function the thread prints (an export's IR),
    # as (shape, element) pairs: the shapes a snippet that exports nothing was run on.
    torch_signatures: list[list[tuple[tuple[int, ...], str]]] = field(default_factory=list)
    text: str = ""  # the whole thread, as markdown: where stated values are read (stated.py)


def read_thread(text: str, repo: str = "") -> Thread:
    """What the thread says; `repo` (owner/repo) completes gh's bare `number:`."""
    text = _as_markdown(text)
    t = Thread(text=text)
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
        elif _ONNX_SCRIPT.search(body):
            t.onnx_scripts.append(body.rstrip() + "\n")
            prose = prose.replace(body, "")
        elif _TORCH_MODULE.search(body):
            t.torch_snippets.append(body.rstrip() + "\n")
            prose = prose.replace(body, "")
    closed_end = max((m.end() for m in _FENCE.finditer(text)), default=0)
    left_open = _OPEN_FENCE.search(text, closed_end)
    if left_open and _ONNX_SCRIPT.search(left_open.group(2)):
        t.onnx_scripts.append(left_open.group(2).rstrip() + "\n")
        prose = prose.replace(left_open.group(2), "")
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
    # Read from the whole text: a printed export is often cut short after its signature.
    for m in _TORCH_FUNC.finditer(text):
        args = [a for a in re.split(r",\s*(?=%)", m.group(1)) if a.strip()]
        types = [_VTENSOR.search(a) for a in args]
        if args and all(types):
            t.torch_signatures.append([(tuple(int(d) for d in v.group(1).split(",") if d), v.group(2))
                                       for v in types])
    return t


def _as_markdown(text: str) -> str:
    """The thread as markdown: as given, or from `gh issue view N --json title,url,body,
    comments`; HarvestError for a saved web page, whose code blocks are HTML, not text."""
    head = text.lstrip()[:200].lower()
    if head.startswith(("<!doctype html", "<html")):
        raise HarvestError("the thread is a saved web page (HTML), not the issue's text: give its markdown "
                           "(`gh issue view N -R owner/repo --comments`, or the issue's body copied from its "
                           "Edit view)")
    if head.startswith("{"):
        import json

        try:
            issue = json.loads(text)
        except ValueError:
            return text
        if isinstance(issue, dict) and isinstance(issue.get("body"), str):
            comments = [c.get("body", "") for c in issue.get("comments") or [] if isinstance(c, dict)]
            return "\n\n".join([f"# {issue.get('title', '')}", str(issue.get("url", "")), issue["body"], *comments])
    return text


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


def target_and_flags(command: list[str]) -> tuple[str, list[str], str, list[str]]:
    """(target row, the flags that are about the bug, what was guessed, the flags dropped
    for naming a file or a program, each with why) from a command: the target as an
    [[ir]] check's flags name it (targets.target_of_flags)."""
    words = command[1:]
    target = target_of_flags(words)
    # The host CPU is the cpu profile's own; another CPU (`generic`, `znver4`) may be the bug's.
    kept = [w for w in words if w.startswith("--") and not w.split("=", 1)[0].startswith(_DROPPED)
            and w != "--iree-llvmcpu-target-cpu=host"]
    kept, dropped = _without_path_options(kept)
    return target or "cpu", kept, "" if target else "no target the harness runs is named: cpu", dropped


def pass_args(command: list[str]) -> tuple[list[str], list[str]]:
    """The passes an `iree-opt` command runs (its flags, output and print flags dropped):
    the args of the case's [[ir]] check; and the flags dropped for naming a file or a program."""
    return _without_path_options(
        [w for w in command[1:] if w.startswith("-") and len(w) > 1
         and not w.lstrip("-").split("=", 1)[0].startswith(tuple(d.lstrip("-") for d in _DROPPED))
         and w not in ("-o",)])


def _without_path_options(flags: list[str]) -> tuple[list[str], list[str]]:
    """(flags a case may carry, 'flag: why' of each dropped): a thread's command may make
    the compiler run a program, write or read where it says, directly or through a pass
    of a pipeline (path_options.py); the case has none of the thread's files, so any such
    flag is dropped."""
    return path_options.screened(flags)


def choose_program(t: Thread, attached: dict[str, str], block: int | None = None) -> tuple[str, str]:
    """(program text, where it came from), or HarvestError saying what to give. `block`
    takes that MLIR block of several (one of blocks_to_try)."""
    if attached:
        name, text = next(iter(attached.items()))
        return text, f"--attach {name}"
    if len(t.programs) == 1:
        return t.programs[0], "the thread's MLIR block"
    if block is not None:
        return t.programs[block], f"MLIR block {block + 1} of {len(t.programs)}"
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


def blocks_to_try(t: Thread, attached: dict[str, str]) -> list[int]:
    """The MLIR blocks each to be scanned when the thread holds several and its command
    names none of them (the one that reproduces is the program); [] when choose_program
    knows (one block, one named, or an attachment). A block repeated is tried once."""
    if attached or len(t.programs) < 2:
        return []
    try:
        choose_program(t, attached)
        return []
    except HarvestError:
        first = {}
        for j, program in enumerate(t.programs):
            first.setdefault(program.strip(), j)
        return sorted(first.values())


def fails_at_run_time(t: Thread) -> bool:
    """A thread that runs its module and whose failure is not the compiler's (no diagnostic
    of the program's file, no compiler stack dump): the bug is how the run fails."""
    return bool(t.run_commands) and not t.compiler_failed


def compared_commands(t: Thread) -> tuple[list[str], list[str]] | None:
    """The two iree-compile commands a thread compares, when its bug is their difference
    ("with --iree-opt-data-tiling the results differ"): its first two commands, which
    compile for other targets or with other flags, in a thread that says the results
    differ or are wrong. None otherwise."""
    if not t.wrong_numbers or len(t.commands) < 2:
        return None
    a, b = t.commands[:2]
    return (a, b) if target_and_flags(a)[:2] != target_and_flags(b)[:2] else None


def bug_outcome(t: Thread) -> str | None:
    """The outcome the thread reports: a crash, a diagnostic, wrong numbers (a PyTorch
    snippet whose thread says its results are wrong), or None (the scan infers it); of the
    IR check for an iree-opt thread, else of the compile."""
    stage = "ir" if t.opt_commands and not t.commands else "run" if fails_at_run_time(t) else "compile"
    if t.crash:
        return stage_outcome(stage, CRASHED)
    if t.quoted:
        return stage_outcome(stage, FAILED)
    return WRONG_NUMBERS if (t.torch_snippets or t.onnx_scripts) and t.wrong_numbers else None


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
