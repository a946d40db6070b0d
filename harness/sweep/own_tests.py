"""IREE's own e2e check programs (tests/e2e/**.mlir of a pinned iree-org/iree revision) as
items: each test function made a program of its own whose results are the values its
checks look at, and whose golden is what the checks state.

A test function (`func.func @f()`, no arguments, no results) ends in `check.expect_*` ops.
`program_of` rewrites it: the function becomes the module's `@main`, returning each checked
value; the module keeps what the file declares besides its functions (aliases, globals)
and the private helpers; the other tests are left out. The expected values are the
checks' own constants, read here (never what a release computes): `expect_eq_const` is
exact, `expect_almost_eq_const` within atol 1e-4 (the check's default from the release
that gave it tolerances). What cannot be run that way is counted by reason, never
dropped silently: a check against a computed value (`expect_eq(%a, %b)`), a check inside a
helper or a region, an element type numpy has no dtype for (bf16, i4, f8), an aliased type.

`read_corpus(files)` takes {path: text} (the catalog command reads them from a git
mirror with `git show`); `reference_source` writes the golden as a reference.py.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from dataclasses import dataclass, field

from .mlir_text import NotRunnable, balanced, split_top, strip_comments

CHECK = re.compile(r"check\.(expect_eq_const|expect_almost_eq_const|expect_eq|expect_almost_eq|"
                   r"expect_true|expect_false|expect_all_true)\s*\(")
FUNC = re.compile(r"^\s*func\.func\s+(?:(private|public)\s+)?@([\w$.-]+)\s*\(", re.M)
DTYPES = {"i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
          "f16": "float16", "f32": "float32", "f64": "float64"}
ALMOST_ATOL = 1e-4  # expect_almost_eq_const's default atol (rtol 0), as the check module has it


@dataclass
class Expected:
    dtype: str  # numpy's name
    shape: tuple[int, ...]
    literal: str  # Python: a nested list, or one value for a splat
    splat: bool
    exact: bool  # expect_eq_const: exact; expect_almost_eq_const: within ALMOST_ATOL


@dataclass
class TestProgram:
    file: str  # path in the iree-org/iree tree
    function: str
    mlir: str  # the rewritten module: @main returns the checked values
    expected: list[Expected] = field(default_factory=list)

    @property
    def id(self) -> str:
        """<dir>.<file>.<function>: stable while the file and the function keep their names."""
        stem = self.file.removeprefix("tests/e2e/").removesuffix(".mlir").replace("/", ".")
        return f"{stem}.{self.function}"


def functions(text: str) -> tuple[str, list[tuple[str, str, str]]]:
    """(what the file holds outside its functions, [(visibility, name, whole text)])."""
    found, rest, at = [], [], 0
    for m in FUNC.finditer(text):
        if m.start() < at:
            continue  # a func.func inside an earlier one's region: none in e2e files
        body = text.index("{", balanced(text, m.end() - 1, "(", ")"))
        end = balanced(text, body, "{", "}")
        rest.append(text[at:m.start()])
        found.append((m.group(1) or "public", m.group(2), text[m.start():end]))
        at = end
    rest.append(text[at:])
    return "".join(rest), found


def _type_of(text: str) -> tuple[str, tuple[int, ...]]:
    """(numpy dtype, shape) of `tensor<2x3xi32>` / `tensor<i32>`."""
    m = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", text.strip())
    if not m:
        raise NotRunnable(f"a checked type the harness cannot read: {text.strip()}")
    element = m.group(2)
    if element not in DTYPES:
        raise NotRunnable(f"an element type numpy has no dtype for: {element}")
    return DTYPES[element], tuple(int(d) for d in m.group(1).split("x") if d)


def _literal(text: str, dtype: str) -> tuple[str, bool]:
    """(a Python literal, splat?) of a dense<...> attribute's body."""
    body = text.strip()
    if body.startswith('"'):
        raise NotRunnable("an expected value as a hex blob")
    if re.search(r"0x[0-9A-Fa-f]+", body) and dtype.startswith("float"):
        raise NotRunnable("an expected float written as its bits")
    python = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", body))
    python = re.sub(r"0x[0-9A-Fa-f]+", lambda h: str(int(h.group(0), 16)), python)
    python = re.sub(r"(\d)\.(?=[\s,\]])", r"\1.0", python)  # `1.` is MLIR's, `1.0` Python's
    try:
        ast.literal_eval(python)
    except (ValueError, SyntaxError):
        raise NotRunnable(f"an expected value the harness cannot read: {body[:40]}") from None
    return python, not body.startswith("[")


def _checks(body: str) -> list[tuple[int, int, str, list[str], str]]:
    """Each check op in a function's text: (start, end, kind, operands, type)."""
    out = []
    for m in CHECK.finditer(body):
        close = balanced(body, m.end() - 1, "(", ")")
        inner = body[m.end():close - 1]
        tail = re.match(r"\s*:\s*([^\n]+)", body[close:])
        if not tail:
            raise NotRunnable("a check op without its type")
        operands = [o.strip() for o in split_top(inner)]
        out.append((m.start(), close + tail.end(), m.group(1), operands, tail.group(1).strip()))
    return out


def program_of(path: str, text: str, name: str) -> TestProgram:
    """The test function `name` of the file as a program (NotRunnable: why not)."""
    text = strip_comments(text)
    outside, funcs = functions(text)
    mine = next((f for f in funcs if f[1] == name), None)
    if mine is None:
        raise NotRunnable(f"no function @{name}")
    _, _, func = mine
    head = func[:func.index("{", balanced(func, func.index("("), "(", ")"))]
    if not re.search(r"@[\w$.-]+\s*\(\s*\)\s*(?:->\s*\(\s*\)\s*)?(?:attributes\s*\{[^}]*\}\s*)?$", head.strip()):
        raise NotRunnable("a function with arguments or results")
    checks = _checks(func)
    if not checks:
        raise NotRunnable("no check op")
    body_start = func.index("{", len(head) - 1)
    values, types, expected, replacements = [], [], [], []
    for i, (start, end, kind, operands, type_) in enumerate(checks):
        if _region_depth(func, body_start, start) > 1:
            raise NotRunnable("a check inside a region")
        if kind not in ("expect_eq_const", "expect_almost_eq_const", "expect_eq", "expect_almost_eq"):
            raise NotRunnable(f"a check of another kind ({kind})")
        if len(operands) != 2:
            raise NotRunnable(f"{kind} with a tolerance of its own")
        if kind in ("expect_eq", "expect_almost_eq"):
            # Two computed values: compared in the program, where the check stood; the
            # result is a tensor of i1 whose golden is all true.
            dtype, shape = _type_of(type_)
            compare, value = _in_program_compare(i, kind, operands, type_, dtype)
            replacements.append(compare)
            values.append(value)
            types.append(re.sub(r"^tensor<((?:\d+x)*)\w+>$", r"tensor<\1i1>", type_.strip()))
            expected.append(Expected("bool", shape, "True", True, True))
            continue
        dense = re.fullmatch(r"dense<(.*)>\s*:\s*(\S.*)", operands[1], re.S)
        if not dense:
            raise NotRunnable(f"an expected value that is not dense<...>: {operands[1][:40]}")
        dtype, shape = _type_of(dense.group(2))
        literal, splat = _literal(dense.group(1), dtype)
        values.append(operands[0])
        types.append(type_)
        expected.append(Expected(dtype, shape, literal, splat, kind == "expect_eq_const"))
        replacements.append("")
    for (start, end, *_), text in reversed(list(zip(checks, replacements))):
        func = func[:start] + text + func[end:]
    returns = list(re.finditer(r"^\s*return\s*$", func, re.M))
    if len(returns) != 1:
        raise NotRunnable("a test function without exactly one bare return")
    r = returns[0]
    func = (func[:r.start()] + f"\n    return {', '.join(values)} : {', '.join(types)}" + func[r.end():])
    func = re.sub(r"@[\w$.-]+\s*\(\s*\)\s*(?:->\s*\(\s*\)\s*)?", f"@main() -> ({', '.join(types)}) ", func, count=1)
    helpers = [f for vis, n, f in funcs if n != name and vis == "private"]
    others = [f for vis, n, f in funcs if n != name and vis != "private"]
    called = [f for f in others if re.search(rf"@{re.escape(_name(f))}\b", func)]
    if called:  # a public test function the test calls: kept, as a private one
        helpers += [re.sub(r"func\.func\s+(?:public\s+)?@", "func.func private @", f, count=1) for f in called]
    module = "\n\n".join(p for p in [outside.strip(), *helpers, func] if p)
    return TestProgram(path, name, module + "\n", expected)


def _in_program_compare(i: int, kind: str, operands: list[str], type_: str, dtype: str) -> tuple[str, str]:
    """(the ops that compare two computed values as the check would, the i1 value): exact
    for expect_eq, |a - b| <= ALMOST_ATOL for expect_almost_eq."""
    a, b = operands
    if not (a.startswith("%") and b.startswith("%")):
        raise NotRunnable(f"{kind} of an operand that is not a value")
    floating = dtype.startswith("float")
    ok = f"%__check_ok{i}"
    if kind == "expect_eq":
        op = f"arith.cmpf oeq, {a}, {b}" if floating else f"arith.cmpi eq, {a}, {b}"
        return f"{ok} = {op} : {type_}", ok
    if not floating:
        raise NotRunnable("expect_almost_eq of integers")
    return (f"%__check_d{i} = arith.subf {a}, {b} : {type_}\n"
            f"  %__check_abs{i} = math.absf %__check_d{i} : {type_}\n"
            f"  %__check_tol{i} = arith.constant dense<{ALMOST_ATOL:e}> : {type_}\n"
            f"  {ok} = arith.cmpf ole, %__check_abs{i}, %__check_tol{i} : {type_}"), ok


def _name(func_text: str) -> str:
    return FUNC.match(func_text).group(2)


def _region_depth(text: str, body_start: int, at: int) -> int:
    """How many braces are open at `at`, counted from the function body's own."""
    depth = 0
    for ch in text[body_start:at]:
        depth += ch == "{"
        depth -= ch == "}"
    return depth


def test_functions(text: str) -> list[str]:
    """The names of a file's test functions: public, and holding a check op."""
    _, funcs = functions(strip_comments(text))
    return [n for vis, n, f in funcs if vis != "private" and CHECK.search(f)]


def read_corpus(files: dict[str, str]) -> tuple[list[TestProgram], dict[str, list[str]]]:
    """Every test function of the files: (the runnable ones, {why not: [ids]})."""
    programs, refused = [], {}
    for path, text in sorted(files.items()):
        if not path.endswith(".mlir"):
            continue  # a BUILD.bazel: where upstream runs the files (upstream_of)
        for name in test_functions(text):
            try:
                programs.append(program_of(path, text, name))
            except NotRunnable as e:
                stem = path.removeprefix("tests/e2e/").removesuffix(".mlir").replace("/", ".")
                refused.setdefault(str(e).split(":")[0], []).append(f"{stem}.{name}")
    return programs, refused


def reference_source(program: TestProgram, doc: str) -> str:
    """reference.py: no inputs; the outputs are the checks' constants."""
    lines = [f'"""{doc}"""', "import torch", "", "", "def example_inputs():", "    return ()", "", "",
             "def reference():", "    return ("]
    for e in program.expected:
        dtype = f"torch.{e.dtype}"
        if e.splat and e.dtype.startswith("int"):  # signless: 128 in an i8 is -128
            lines.append(f"        torch.full({list(e.shape)}, {e.literal}, dtype=torch.int64).to({dtype}),")
        elif e.splat:
            lines.append(f"        torch.full({list(e.shape)}, {e.literal}, dtype={dtype}),")
        elif e.dtype.startswith("int"):  # MLIR's ints are signless: 255 in an i8 is -1
            lines.append(f"        torch.tensor({e.literal}, dtype=torch.int64).to({dtype}).reshape({list(e.shape)}),")
        else:
            lines.append(f"        torch.tensor({e.literal}, dtype={dtype}).reshape({list(e.shape)}),")
    lines.append("    )")
    return "\n".join(lines) + "\n"


# --- the catalog the iree-e2e sweep reads (pure: the builder runs it in the sandbox) ---------

# The snapshots the e2e sweeps hold: a tag of iree-org/iree and the sweep of its tests.
# Each runs on its own release and the ones after (a test as of a tag: what existed then).
SNAPSHOTS = {"iree-3.0.0": "iree_e2e_3_0.toml", "v3.5.0": "iree_e2e_3_5.toml", "v3.9.0": "iree_e2e.toml"}


def catalog_path(revision: str):
    from .spec import SWEEPS_DIR
    return SWEEPS_DIR / "own" / f"e2e-{revision}.json"


def catalog_entry(program: TestProgram, revision: str, added: str,
                  upstream: tuple[list[str], tuple[str, ...]] = ([], ())) -> dict:
    exact = all(e.exact for e in program.expected)
    doc = (f"{program.id}: @{program.function} of {program.file} at iree-org/iree {revision} (added by "
           f"{added or 'a commit not found'}), its checks' constants as the golden")
    backends, flags = upstream
    return {"file": program.file, "function": program.function, "added": added, "mlir": program.mlir,
            "upstream": backends, "flags": list(flags),
            "reference": reference_source(program, doc),
            "tolerance": [0.0, 0.0] if exact else [ALMOST_ATOL, 0.0],
            "traits": [f"dir={program.file.split('/')[2] if program.file.count('/') > 2 else 'e2e'}",
                       f"checks={len(program.expected)}", *sorted({f"dtype={e.dtype}" for e in program.expected}),
                       "upstream=" + ("llvm-cpu" if "llvm-cpu" in backends else "not-cpu")]}


@functools.lru_cache(maxsize=None)
def _catalog(path) -> dict:
    return json.loads(path.read_text())


def e2e_program(revision: str, test: str):
    """The iree-e2e sweep's program of one test function (Program: its reference.py, MLIR)."""
    from .program import Program

    entry = _catalog(catalog_path(revision))["tests"][test]
    return Program(entry["reference"], dtype="f32", traits=tuple(entry["traits"]), mlir=entry["mlir"],
                   tolerance=tuple(entry["tolerance"]), flags=tuple(entry.get("flags", ())))


def read_revision(mirror, revision: str) -> dict[str, str]:
    """{path: text} of every tests/e2e .mlir and BUILD.bazel file of a revision of a git
    mirror of iree-org/iree."""
    import subprocess
    listing = subprocess.run(["git", "-C", str(mirror), "ls-tree", "-r", "--name-only", revision, "tests/e2e"],
                             capture_output=True, text=True, check=True).stdout.split()
    return {p: subprocess.run(["git", "-C", str(mirror), "show", f"{revision}:{p}"], capture_output=True,
                              text=True, check=True).stdout
            for p in listing if p.endswith(".mlir") or p.endswith("/BUILD.bazel")}


# --- where upstream runs a test file: its folder's BUILD.bazel ------------------------------

SUITE = re.compile(r"iree_check_single_backend_test_suite\s*\(")
# What our items set themselves (the target CPU: the host, as every item's).
OWN_FLAGS = re.compile(r"--iree-llvmcpu-target-cpu(?:-features)?=")


@dataclass(frozen=True)
class Suite:
    name: str
    backend: str  # target_backend: llvm-cpu, vmvx, vulkan-spirv, cuda, rocm, ...
    flags: tuple[str, ...]
    srcs: tuple[str, ...]  # file names in the suite's folder


def _strings(text: str) -> list[str]:
    return re.findall(r'"([^"]*)"', text)


def _list_value(expr: str, lists: dict[str, list[str]]) -> list[str]:
    """A srcs expression: list literals, enforce_glob([...], ...) (its explicit list), names
    of lists defined earlier, joined by +."""
    out = []
    for part in split_top(expr, "+", "[(", "])"):
        part = part.strip()
        glob = re.match(r"enforce_glob\s*\(", part)
        if glob:  # its first argument: the files it names
            args = part[glob.end():balanced(part, glob.end() - 1, "(", ")") - 1]
            out += _list_value(split_top(args, ",", "[(", "])")[0], lists)
        elif part.startswith("["):
            out += _strings(part)
        elif re.fullmatch(r"\w+", part):
            out += lists.get(part, [])
    return out


def _call_args(text: str, start: int) -> dict[str, str]:
    """keyword = value pairs of the call whose `(` is at text[start]."""
    args = {}
    for part in split_top(text[start + 1:balanced(text, start, "(", ")") - 1], ",", "[(", "])"):
        m = re.match(r"\s*(\w+)\s*=(.*)", part, re.S)
        if m:
            args[m.group(1)] = m.group(2).strip()
    return args


def suites(build_text: str) -> list[Suite]:
    """The check suites a BUILD.bazel declares."""
    text = "\n".join(line.split("#", 1)[0] for line in build_text.splitlines())
    lists: dict[str, list[str]] = {}
    for m in re.finditer(r"^(\w+)\s*=\s*", text, re.M):
        first_line = text.find("\n", m.end()) + 1 or len(text)  # the value ends where a line
        end = re.search(r"^[^\s)]", text[first_line:], re.M)  # starts anew at column 0
        lists[m.group(1)] = _list_value(text[m.end():first_line + (end.start() if end else len(text))], lists)
    found = []
    for m in SUITE.finditer(text):
        args = _call_args(text, m.end() - 1)
        found.append(Suite(_strings(args.get("name", '""'))[0] if "name" in args else "",
                           (_strings(args.get("target_backend", "")) or [""])[0],
                           tuple(_list_value(args.get("compiler_flags", "[]"), lists)),
                           tuple(_list_value(args.get("srcs", "[]"), lists))))
    return found


def upstream_of(path: str, files: dict[str, str]) -> tuple[list[str], tuple[str, ...]]:
    """(the backends upstream runs the file on, the flags of its llvm-cpu suite less what
    our items set themselves). A file in two llvm-cpu suites takes the one with more flags
    (a suite of its own, e.g. with packed i1 storage, is why the file is there twice)."""
    folder, name = path.rsplit("/", 1)
    build = files.get(f"{folder}/BUILD.bazel", "")
    mine = [s for s in suites(build) if name in s.srcs]
    cpu = sorted((s for s in mine if s.backend == "llvm-cpu"), key=lambda s: -len(s.flags))
    # Bazel's strings escape a pipeline's parentheses for the shell; the items pass argv.
    flags = tuple(f.replace("\\", "") for f in cpu[0].flags if not OWN_FLAGS.match(f)) if cpu else ()
    return sorted({s.backend for s in mine}), flags


def added_by_name(mirror, revision: str, file: str, function: str) -> str:
    """The commit (short hash and date) that first wrote the function's name in its file,
    as of the revision; a file moved since shows its move."""
    import subprocess
    out = subprocess.run(["git", "-C", str(mirror), "log", "--reverse", "--format=%h %ad", "--date=short",
                          f"-S@{function}(", revision, "--", file],
                         capture_output=True, text=True).stdout.splitlines()
    return out[0] if out else ""


def rewrite_axis(sweep, ids) -> None:
    """Set a sweep file's `test = [...]` axis to `ids`, the rest of the file as it is."""
    axis = "test = [\n" + "".join(f'    "{i}",\n' for i in ids) + "]"
    text, n = re.subn(r"(?ms)^test = \[.*?^\]", lambda _: axis, sweep.read_text())
    if n != 1:
        raise ValueError(f"{sweep}: field 'axes.test': expected one `test = [...]` list to rewrite")
    sweep.write_text(text)


def write_catalog(mirror, revision: str) -> tuple[int, dict[str, list[str]]]:
    """The revision's catalog and the iree-e2e sweep's `test` axis. (programs, refused)."""
    from .spec import SWEEPS_DIR
    files = read_revision(mirror, revision)
    programs, refused = read_corpus({p: t for p, t in files.items() if p.endswith(".mlir")})
    entries = {p.id: catalog_entry(p, revision, added_by_name(mirror, revision, p.file, p.function),
                                   upstream_of(p.file, files))
               for p in programs}
    path = catalog_path(revision)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"revision": revision, "refused": refused, "tests": entries}, indent=0,
                               sort_keys=True) + "\n")
    if revision not in SNAPSHOTS:
        raise ValueError(f"--rev {revision}: no sweep holds it; the snapshots: {', '.join(SNAPSHOTS)}")
    rewrite_axis(SWEEPS_DIR / SNAPSHOTS[revision], sorted(entries))
    return len(programs), refused
