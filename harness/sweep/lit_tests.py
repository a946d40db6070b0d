"""IREE's lit tests of the passes where the families' bugs live, as programs run for numbers.

A lit test file (compiler/src/iree/compiler/<pass area>/**/test/*.mlir of a pinned
iree-org/iree revision) is split at `// -----`; each function in it whose arguments and
results are tensors becomes a program of its own: the function renamed `@main`
(`util.func` / `util.return` written as `func.func` / `return`), the chunk's attribute and
type aliases kept, everything else in the chunk left out. Its inputs are seeded draws
fitting its types (dynamic dims given sizes); its golden is the function's numpy
evaluation (harness/sweep/lit_numpy.py), written when the catalog is made and run again
in the sandbox for every golden. The sizes and draws are the first, in a fixed order,
under which that evaluation is defined: every loop bounded consistently, no division by
zero, no index out of range, no overflow, finite results.

A function whose numpy evaluation the writer cannot give (LinalgExt ops, packs, forms it
does not read) is still a program, without a golden: the iree-lit-differ sweep judges it by
compiling it several ways that must agree (static shapes only: nothing would check a drawn
size against the shapes it assumes). What cannot be run at all is counted by reason in the
catalog (and docs/own-tests.md), never dropped silently: ops of IREE's own dialects (flow,
hal, util, encodings: the IR of a later phase), a function calling another, a scalar
argument, a read of an uninitialized tensor, an element type numpy cannot hold.

`iree-regress sweep own-tests --lit --mirror CLONE --rev TAG --write` writes the catalog
sweeps/own/lit-<tag>.json.gz and the iree-lit sweep's `test` axis; reading a function
needs the MLIR Python bindings of the installed iree-base-compiler (at catalog time only).
"""

from __future__ import annotations

import functools
import gzip
import json
import re
from dataclasses import dataclass

from .lit_numpy import HELPERS, Undefined, Untranslatable, numpy_type, translate
from .mlir_text import NotRunnable, balanced, strip_comments

AREAS = ("GlobalOptimization", "DispatchCreation", "InputConversion", "Preprocessing", "Dialect/LinalgExt")
ROOT = "compiler/src/iree/compiler/"
FUNC = re.compile(r"^[ \t]*(func\.func|util\.func)\s+(?:(public|private|nested)\s+)?@([\w$.-]+)\s*\(", re.M)
ALIAS = re.compile(r"^[ \t]*([#!][\w$.-]+)\s*=", re.M)
# Ops a lit program may hold: upstream dialects and LinalgExt; the rest is a later phase's IR.
DIALECTS = ("arith", "math", "tensor", "linalg", "func", "iree_linalg_ext", "scf", "affine", "complex")
SIZES = (4, 3, 8, 2, 16, 1)  # what a dynamic dim is tried at, in order
DRAWS = ("signed", "nonnegative", "small")  # what inputs are tried as, in order
# The golden sums in the loop order the IR states; a release may reassociate a reduction
# (CPU reductions reassociate by default), so f32 is compared a step looser than a
# PyTorch golden's 1e-5 (measured on 3.13.0: sums over 1,000-element rows differ by up to
# 9e-5 at 0.7).
LIT_TOLERANCE = {"f32": (1e-4, 1e-4), "f16": (1e-2, 1e-2)}
MAX_ELEMENTS = 1 << 21  # per input: a larger static shape is a program for a bigger machine than numpy here


@dataclass
class LitProgram:
    file: str
    function: str
    id: str
    mlir: str
    arguments: list[tuple[str, tuple[int, ...]]]  # (numpy type, shape) per input, sizes chosen
    body: list[str] | None  # the numpy evaluation: lines of `reference`, ending in its return
    params: list[str]
    draw: str
    results: list[str]  # the numpy type of each result
    # Why numpy does not evaluate it ("" when `body` is its evaluation): such a program has
    # no golden, and the iree-lit-differ sweep judges it by its differential items.
    unevaluated: str = ""


def chunks(text: str) -> list[str]:
    """A lit file's `// -----` parts, as written."""
    return re.split(r"(?m)^[ \t]*// -----.*$", text)


def functions(chunk: str) -> list[tuple[str, str]]:
    """(name, text) of each top-level function of a chunk (func.func or util.func); a
    declaration's text is empty."""
    found, at = [], 0
    for m in FUNC.finditer(chunk):
        if m.start() < at:
            continue
        sig_end = balanced(chunk, m.end() - 1, "(", ")")
        # The body: the first `{` that opens a region, past result types and attributes.
        body = _body_start(chunk, sig_end)
        if body is None:  # a declaration: counted by the reader, nothing to run
            found.append((m.group(3), ""))
            continue
        end = balanced(chunk, body, "{", "}")
        found.append((m.group(3), chunk[m.start():end]))
        at = end
    return found


def _body_start(text: str, at: int) -> int | None:
    """The `{` of a function's body: past `-> types` and an `attributes {...}` clause."""
    i = at
    while i < len(text):
        rest = text[i:]
        stripped = rest.lstrip()
        i += len(rest) - len(stripped)
        if stripped.startswith("attributes"):
            j = text.index("{", i)
            i = balanced(text, j, "{", "}")
            continue
        if stripped.startswith("{"):
            return i
        if stripped.startswith("func.func") or stripped.startswith("util.func") or not stripped:
            return None
        depth = 0
        while i < len(text):  # skip a type or arrow, nested <>() held together
            ch = text[i]
            if ch in "<(":
                depth += 1
            elif ch in ">)" and not (ch == ">" and text[i - 1] == "-"):
                depth -= 1
            elif ch == "{" and depth == 0:
                break
            elif ch == "\n" and depth == 0 and text[i + 1:].lstrip().startswith(("func.func", "util.func")):
                return None
            i += 1
    return None


def aliases(chunk: str) -> str:
    """The chunk's top-level `#name = ...` and `!name = ...` definitions, as written."""
    out = []
    for m in ALIAS.finditer(chunk):
        line_end = chunk.find("\n", m.end())
        text = chunk[m.start():line_end if line_end >= 0 else len(chunk)]
        # A definition may span lines: take until its brackets close.
        end = m.start() + len(text)
        while text.count("<") > text.count(">") or text.count("(") > text.count(")"):
            nxt = chunk.find("\n", end + 1)
            end = nxt if nxt >= 0 else len(chunk)
            text = chunk[m.start():end]
        out.append(text.strip())
    return "\n".join(out)


def module_text(chunk: str, name: str, func: str) -> str:
    """The program: the chunk's aliases and the function as `@main` in upstream func."""
    func = re.sub(r"^(\s*)util\.func\s+(?:(?:public|private|nested)\s+)?@[\w$.-]+", r"\1func.func @main", func, count=1)
    func = re.sub(r"^(\s*)func\.func\s+(?:(?:public|private|nested)\s+)?@[\w$.-]+", r"\1func.func @main", func, count=1)
    func = re.sub(r"\butil\.return\b", "return", func)
    return "\n\n".join(p for p in [aliases(chunk), func.strip()] if p) + "\n"


def _walk(op):
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner
                yield from _walk(inner)


def read_function(mlir: str):
    """The parsed @main (the context kept alive with it): NotRunnable where it does not parse
    alone, or is no tensor function of upstream ops."""
    from iree.compiler import ir

    ctx = ir.Context()
    try:
        module = ir.Module.parse(mlir, ctx)
    except Exception as e:  # the parser's diagnostics
        first = str(e).splitlines()
        raise NotRunnable("does not parse alone (it needs what its chunk defines elsewhere, or a newer parser): "
                          + (first[1].strip() if len(first) > 1 else first[0])[:120]) from None
    func = module.body.operations[0]
    for op in _walk(func):
        dialect = op.operation.name.split(".")[0]
        if dialect not in DIALECTS:
            raise NotRunnable(f"uses {dialect} ops (a later phase's IR)")
        if op.operation.name in ("func.call", "func.call_indirect"):
            raise NotRunnable("calls another function")
    ftype = func.attributes["function_type"].value
    for kind, types in (("argument", ftype.inputs), ("result", ftype.results)):
        for t in types:
            if not str(t).startswith("tensor<"):
                raise NotRunnable(f"a non-tensor {kind} ({str(t)[:20]})")
            if t.encoding is not None:
                raise NotRunnable("a tensor with an encoding")
    if not ftype.results:
        raise NotRunnable("returns nothing")
    return ctx, module, func


def _candidate_shapes(arg_types, sizes: int) -> list[tuple[int, ...]]:
    """The inputs' shapes with each dynamic dim at `sizes` (NotRunnable: too big to draw)."""
    shapes = [tuple(sizes if d < 0 else d for d in t.shape) for t in arg_types]
    biggest = max((_count(s) for s in shapes), default=0)
    if biggest > MAX_ELEMENTS:
        raise NotRunnable(f"an input of {biggest} elements (more than numpy evaluates here)")
    return shapes


def draw_source(arguments, draw: str, seed: int) -> str:
    """example_inputs(): seeded numpy draws of the chosen shapes."""
    lines = ["def example_inputs():", f"    rng = np.random.default_rng({seed})", "    return ("]
    for dtype, shape in arguments:
        lines.append(f"        draw(rng, {list(shape)}, {dtype}, {draw!r}),")
    lines.append("    )")
    return "\n".join(lines)


DRAW_HELPER = '''
def draw(rng, shape, dtype, kind):
    """Seeded inputs: normal floats (positive ones for `nonnegative`/`small`), integers in
    [-3, 3] (`signed`), [0, 3] (`nonnegative`) or [0, 1] (`small`), so sums and products
    of the test's sizes stay exact."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind == "f":
        x = rng.standard_normal(size=shape) if kind == "signed" else rng.uniform(0.5, 2.0, size=shape)
        return x.astype(dtype)
    lo, hi = {"signed": (-3, 3), "nonnegative": (0, 3), "small": (0, 1)}[kind]
    return rng.integers(lo, hi + 1, size=shape).astype(dtype)
'''


def reference_source(doc: str, arguments, draw: str, params: list[str], body: list[str] | None,
                     seed: int = 0) -> str:
    """reference.py: the seeded inputs and the numpy evaluation (body None: inputs only,
    `reference` returns no golden)."""
    lines = [f'"""{doc}"""', "import numpy as np" if body is None else HELPERS.strip(), "", "import torch", "",
             DRAW_HELPER.strip(), "", "", draw_source(arguments, draw, seed), "", ""]
    if body is None:
        return "\n".join(lines + ["def reference(*inputs):",
                                   "    return ()  # no golden: the program's differential items judge it", ""])
    lines += ["def reference(*inputs):",
             f"    {''.join(p + ', ' for p in params)}= (x.numpy() for x in inputs)" if params else "    del inputs",
             "    with np.errstate(divide='raise', over='raise', invalid='raise', under='ignore'):",
             "        results = evaluate(" + ", ".join(params) + ")",
             "    return tuple(torch.from_numpy(np.array(r)) for r in results)",  # np.array keeps a 0-d result 0-d "", "",
             f"def evaluate({', '.join(params)}):"]
    lines += [f"    {line}" for line in body]
    return "\n".join(lines) + "\n"


def _defined(source: str, name: str) -> tuple[bool, str]:
    """Whether the reference's evaluation is defined on its own inputs (run here, numpy only)."""
    import numpy as np

    scope: dict = {"__name__": f"lit_check_{name}"}
    try:
        exec(compile(source, f"<{name}>", "exec"), scope)
        inputs = scope["example_inputs"]()
        with np.errstate(divide="raise", over="raise", invalid="raise", under="ignore"):
            results = scope["evaluate"](*[np.array(x) for x in inputs])
        for r in results:
            r = np.asarray(r)
            if r.dtype.kind == "f" and not np.all(np.isfinite(r)):
                return False, "a result that is not finite"
        return True, ""
    except Exception as e:  # numpy's own: shapes, bounds, division by zero, overflow
        return False, f"{type(e).__name__}: {str(e)[:80]}"


def program_of(path: str, chunk: str, name: str, func_text: str, pid: str, expects_diagnostic=False) -> LitProgram:
    if expects_diagnostic:
        raise NotRunnable("a test of invalid IR (its chunk expects a diagnostic)")
    mlir = module_text(chunk, name, func_text)
    ctx, module, func = read_function(mlir)
    with ctx:
        ftype = func.attributes["function_type"].value
        arg_types = list(ftype.inputs)
        try:  # inputs are drawn and outputs read back as numpy arrays, whatever the oracle
            dtypes = [numpy_type(t.element_type) for t in arg_types]
            results = [numpy_type(t.element_type) for t in ftype.results]
        except Untranslatable as e:
            raise NotRunnable(str(e)) from None
        unevaluated = ""
        try:
            params, body = translate(func)
        except Undefined as e:
            raise NotRunnable(str(e)) from None
        except Untranslatable as e:  # the writer's limit: run it all the same, judged differentially
            unevaluated = str(e)
        except Exception as e:  # a form the writer does not know: counted, never a crash
            unevaluated = f"not read by the numpy writer ({type(e).__name__})"
        has_dynamic = any(d < 0 for t in arg_types for d in t.shape)
    if unevaluated:
        if has_dynamic:  # a size the program's shapes reject is undefined behaviour, never a verdict
            raise NotRunnable("a dynamic dim, and no numpy evaluation to check a drawn size against "
                              "(judged differentially, static shapes only)")
        return _differential(path, name, pid, mlir, dtypes, _candidate_shapes(arg_types, SIZES[0]), results,
                             unevaluated)
    last = ""
    for size in (SIZES if has_dynamic else SIZES[:1]):
        shapes = _candidate_shapes(arg_types, size)
        arguments = list(zip(dtypes, shapes))
        for draw in DRAWS:
            source = reference_source("check", arguments, draw, params, body)
            ok, why = _defined(source, pid)
            if ok:
                return LitProgram(path, name, pid, mlir, arguments, body, params, draw, results)
            last = why
    raise NotRunnable(f"no sizes and draw found under which its evaluation is defined (last: {last})")


def _differential(path, name, pid, mlir, dtypes, shapes, results, unevaluated) -> LitProgram:
    """A function numpy does not evaluate here: no golden, so no draw can be checked for a
    defined result; the first sizes, and the draw that keeps integers in [0, 1] (an index
    then fits any dim of two or more) and floats in [0.5, 2] (no cancellation near zero to
    tell two summation orders apart)."""
    return LitProgram(path, name, pid, mlir, list(zip(dtypes, shapes)), None, [], "small", results, unevaluated)


def _count(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def stem_of(path: str) -> str:
    """DispatchCreation/test/sink_reshapes.mlir -> DispatchCreation.sink_reshapes."""
    rel = path.removeprefix(ROOT).removesuffix(".mlir").replace("/test/", "/")
    return rel.replace("/", ".")


def read_corpus(files: dict[str, str]) -> tuple[list[LitProgram], dict[str, list[str]]]:
    programs, refused = [], {}
    for path, text in sorted(files.items()):
        seen: dict[str, int] = {}
        for k, raw in enumerate(chunks(text)):
            chunk = strip_comments(raw)
            diagnostic = "expected-error" in raw or "expected-warning" in raw
            try:
                funcs = functions(chunk)
            except NotRunnable as e:
                refused.setdefault(f"a chunk whose functions are not read ({e})", []).append(f"{stem_of(path)}#{k}")
                continue
            for name, func_text in funcs:
                seen[name] = seen.get(name, 0) + 1
                pid = f"{stem_of(path)}.{name}" + (f"~{seen[name]}" if seen[name] > 1 else "")
                try:
                    if not func_text:
                        raise NotRunnable("a declaration (no body to run)")
                    programs.append(program_of(path, chunk, name, func_text, pid, diagnostic))
                except NotRunnable as e:
                    refused.setdefault(_reason_key(str(e)), []).append(pid)
    return programs, refused


def _reason_key(text: str) -> str:
    """A refusal grouped by its kind: the op named, not the message's details."""
    for prefix in ("does not parse alone", "an input of", "no sizes and draw found", "a non-tensor argument",
                   "a non-tensor result"):
        if text.startswith(prefix):
            return prefix
    return text


# --- the catalog the iree-lit sweep reads (pure: the builder runs it in the sandbox) ---------

@dataclass(frozen=True)
class Snapshot:
    sweep: str  # the sweep of its functions numpy evaluates (the golden's)
    differential_sweep: str  # the sweep of the rest, judged by their differential items
    release: str  # whose parser reads it: the first with the tag's dialects


SNAPSHOTS = {"v3.9.0": Snapshot("iree_lit.toml", "iree_lit_differ.toml", "3.9.0")}


def catalog_path(revision: str):
    from .spec import SWEEPS_DIR
    return SWEEPS_DIR / "own" / f"lit-{revision}.json.gz"


def catalog_entry(p: LitProgram, added: str) -> dict:
    return {"file": p.file, "function": p.function, "added": added, "mlir": p.mlir,
            "arguments": [[t, list(s)] for t, s in p.arguments], "draw": p.draw, "params": p.params,
            "body": p.body, "results": p.results, "unevaluated": p.unevaluated}


@functools.lru_cache(maxsize=None)
def _catalog(path) -> dict:
    return json.loads(gzip.decompress(path.read_bytes()))


def lit_program(revision: str, test: str):
    """The iree-lit sweep's program of one lit function (Program: reference.py and MLIR)."""
    from .program import Program

    entry = _catalog(catalog_path(revision))["tests"][test]
    oracle = (f"no golden ({entry['unevaluated']}): judged by its differential items" if entry.get("unevaluated")
              else "its numpy evaluation as the golden")
    doc = (f"{test}: @{entry['function']} of {entry['file']} at iree-org/iree {revision} (added by "
           f"{entry['added'] or 'a commit not found'}), seeded inputs, {oracle}")
    source = reference_source(doc, [(t, tuple(s)) for t, s in entry["arguments"]], entry["draw"],
                              entry["params"], entry["body"])
    dtype = "f16" if "np.float16" in entry["results"] else "f32"  # the tolerance of the loosest result
    # IREE demotes f64 to f32 at its input by default: the module would then want f32
    # arrays where the function states f64. The program is the function as written.
    boundary = [t for t, _ in entry["arguments"]] + entry["results"]
    flags = ("--iree-input-demote-f64-to-f32=false",) if "np.float64" in boundary else ()
    return Program(source, dtype=dtype, traits=(f"dir={test.split('.')[0]}", f"draw={entry['draw']}"),
                   mlir=entry["mlir"], tolerance=LIT_TOLERANCE[dtype], flags=flags, results=len(entry["results"]))


def read_revision(mirror, revision: str) -> dict[str, str]:
    """{path: text} of the lit test files of the pass areas at a revision of a git mirror."""
    import subprocess
    listing = subprocess.run(["git", "-C", str(mirror), "ls-tree", "-r", "--name-only", revision,
                              *[ROOT + a for a in AREAS]], capture_output=True, text=True, check=True).stdout.split()
    return {p: subprocess.run(["git", "-C", str(mirror), "show", f"{revision}:{p}"], capture_output=True,
                              text=True, check=True).stdout
            for p in listing if p.endswith(".mlir") and "/test/" in p}


def read_snapshot(mirror, revision: str) -> tuple[list[LitProgram], dict[str, list[str]]]:
    """The revision's lit functions, read by the snapshot's own release (its Python
    bindings, in a process of its own): a test written for that tree's dialects parses there."""
    import os
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    from ..history.releases import ensure, install_dir

    if revision not in SNAPSHOTS:
        raise ValueError(f"--rev {revision}: no lit sweep holds it; the snapshots: {', '.join(SNAPSHOTS)}")
    release = SNAPSHOTS[revision].release
    ensure(release)
    repo = Path(__file__).resolve().parent.parent.parent
    with tempfile.TemporaryDirectory(prefix="iree-regress-lit-") as scratch:
        files, out = Path(scratch) / "files.json", Path(scratch) / "read.json"
        files.write_text(json.dumps(read_revision(mirror, revision)))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(install_dir(release)), str(repo)]))
        subprocess.run([sys.executable, "-m", "harness.sweep.lit_tests", str(files), str(out)], env=env, check=True)
        read = json.loads(out.read_text())
    return [LitProgram(**p) for p in read["programs"]], read["refused"]


def write_catalog(mirror, revision: str) -> tuple[int, dict[str, list[str]]]:
    """The revision's lit catalog and the iree-lit sweep's `test` axis. (programs, refused)."""
    from .own_tests import added_by_name, rewrite_axis
    from .spec import SWEEPS_DIR

    programs, refused = read_snapshot(mirror, revision)
    snapshot = SNAPSHOTS[revision]
    entries = {p.id: catalog_entry(p, added_by_name(mirror, revision, p.file, p.function))
               for p in programs}
    path = catalog_path(revision)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"revision": revision, "release": snapshot.release, "refused": refused, "tests": entries},
                      indent=0, sort_keys=True)
    path.write_bytes(gzip.compress(text.encode() + b"\n", mtime=0))
    rewrite_axis(SWEEPS_DIR / snapshot.sweep, sorted(p.id for p in programs if not p.unevaluated))
    rewrite_axis(SWEEPS_DIR / snapshot.differential_sweep, sorted(p.id for p in programs if p.unevaluated))
    return len(programs), refused


if __name__ == "__main__":  # FILES.json OUT.json: read the functions with this process's compiler
    import dataclasses
    import sys

    corpus, why_not = read_corpus(json.loads(open(sys.argv[1]).read()))
    with open(sys.argv[2], "w") as f:
        json.dump({"programs": [dataclasses.asdict(p) for p in corpus], "refused": why_not}, f)
