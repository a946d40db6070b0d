"""What a thread's program becomes as a case's files (harvest's second half).

    a PyTorch snippet           with no MLIR block: a fenced Python block defining an
                                nn.Module and exporting it (aot.export, torch.export.export)
                                becomes model.py: its code up to the export, then `Model`
                                and `example_inputs()` naming what the export was given; a
                                module alone, with the thread's printed export of it, runs
                                on seeded inputs of the shapes that export states
    a run                       an `iree-run-module ...` command's `--input=` values become
                                inputs/ and the case runs with no golden (kind "run"), the
                                bug being how the run fails
    stated results              `check.expect_eq_const` / `check.expect_almost_eq_const` in
                                the program (an iree-check-module test, which PyPI's runtime
                                lacks): the program returns the checked values instead, and
                                the stated values, with the check's atol, become the golden

Nothing here writes anything: commands/harvest.py makes the case (scaffold.new_case) and
scans the releases (prove --scan --write) in a scratch folder, and moves it into cases/
only when the releases show a bug.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .thread import HarvestError, Thread


SEED = 0  # inputs a thread only names are drawn from this seed, per argument


def only_named(command: list[str]) -> list[str]:
    """The files an iree-run-module command reads its inputs from (`--input=@x.npy`)."""
    return [w[len("--input=@"):] for w in command[1:] if w.startswith("--input=@")]


def run_inputs(command: list[str], program: str | None = None, function: str | None = None) -> list:
    """The `--input=` values of an iree-run-module command as numpy arrays, in order
    (`2x3xf32=1 2 3 4 5 6`, `4xi32=[1 2 3 4]`, one value filling its shape, `4xf32` zeros).
    A value read from a file the thread only names (`--input=@x.npy`) is seeded (SEED) of
    the type of that argument of `program`'s entry function; HarvestError where there is no
    program, or that argument's type is not static, or a value has no type."""
    import numpy as np

    from .stated import argument_types

    arrays = []
    types = argument_types(program, function) if program else None
    for word in command[1:]:
        if not word.startswith("--input="):
            continue
        value = word[len("--input="):]
        if value.startswith("@"):
            position = len(arrays)
            if types is None or position >= len(types):
                raise HarvestError(f"the run reads {value[1:]}, which the thread only names, and the program's "
                                   "signature does not give its static type: give the values "
                                   "(--input=SHAPExTYPE=...) or write the case by hand")
            arrays.append(_seeded(types[position], position))
            continue
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


def _seeded(t, position: int):
    """A deterministic input of type `t` (stated.Result) for argument `position`: small
    integers for integer types (valid as indices into short dims), normal floats else."""
    import numpy as np

    rng = np.random.default_rng([SEED, position])
    dtype = np.dtype(t.dtype) if t.dtype != "bfloat16" else np.dtype("float32")
    if dtype == np.bool_:
        return rng.integers(0, 2, t.shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 4, t.shape).astype(dtype)
    return rng.standard_normal(t.shape).astype(dtype)


def torch_program(t: Thread) -> tuple[str, str]:
    """(model.py, where it came from) from the first PyTorch snippet that exports its
    module, or that defines one module the thread's printed IR gives the input shapes of;
    else HarvestError saying why none does."""
    problem = None
    for j, snippet in enumerate(t.torch_snippets):
        where = f"the thread's PyTorch snippet {j + 1} of {len(t.torch_snippets)} (model.py"
        try:
            return torch_model(snippet), where + ")"
        except HarvestError as e:
            problem = e
        for signature in t.torch_signatures:
            try:
                model, shapes = seeded_torch_model(snippet, signature)
            except HarvestError:
                continue
            return model, where + f"; it exports nothing: its inputs are seeded, of the shapes {shapes} the " \
                                  "thread's exported IR states)"
    raise problem or HarvestError("the thread holds no PyTorch snippet")


def onnx_script_program(t: Thread) -> tuple[str, str]:
    """(model.py, where it came from) from the first of the thread's ONNX scripts that
    makes a model; else HarvestError saying why none does."""
    problem = None
    for j, script in enumerate(t.onnx_scripts):
        try:
            return onnx_program(script), (f"the thread's ONNX script {j + 1} of {len(t.onnx_scripts)} (model.py: "
                                          "its model through iree-import-onnx, ONNX Runtime the golden)")
        except HarvestError as e:
            problem = e
    raise problem or HarvestError("the thread holds no ONNX script")


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
    if len(given) == 1 and isinstance(given[0], ast.Tuple) and (keyword or ast.unparse(call.func) == "torch.export.export"):
        given = given[0].elts  # torch.export.export(model, (x, y)), aot.export(model, args=(x, y))
    inputs = ", ".join(ast.unparse(a) for a in given)
    head = "\n".join(snippet.splitlines()[: stmt.lineno - 1]).rstrip()
    return ("import torch\n\ntorch.manual_seed(0)  # the snippet's random inputs, the same at every golden\n\n"
            f"{head}\n\n\n# What the thread's snippet exported (written by iree-regress harvest).\n"
            f"def Model():\n    return {model}\n\n\n"
            f"def example_inputs():\n    return ({inputs}{',' if inputs else ''})\n")


# Modules an ONNX script imports to run its model, which model.py leaves out: the
# harness imports, runs and compares it (harness/onnx_frontend.py).
_RUNNERS = ("iree", "subprocess", "onnxruntime", "os", "sys", "shutil", "tempfile")


def onnx_program(script: str) -> str:
    """model.py from a thread's script that builds an ONNX model with onnx.helper: its code
    up to the model (the variable make_model assigns, and the statements right after that
    reassign it, as shape inference does), then `onnx_model()` giving it and
    `example_inputs()`: the arrays the script feeds ONNX Runtime (`.run(None, {"X": x})`),
    else values seeded (SEED) of the graph inputs' types. HarvestError when the script is
    not Python or makes no model."""
    tree = _parsed_prefix(script, "the ONNX script")
    body = tree.body

    def assigns(stmt, name=None) -> str | None:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            return stmt.targets[0].id if name in (None, stmt.targets[0].id) else None
        return None

    made = next((i for i, stmt in enumerate(body) if assigns(stmt) and isinstance(stmt.value, ast.Call)
                 and ast.unparse(stmt.value.func).split(".")[-1] == "make_model"), None)
    if made is None:
        raise HarvestError("the ONNX script makes no model (helper.make_model): write model.py with "
                           "onnx_model() and example_inputs(), and use new-case --from-torch")
    name, end = assigns(body[made]), made
    while end + 1 < len(body) and assigns(body[end + 1], name):
        end += 1
    kept = [stmt for stmt in body[: end + 1] if not _runs_the_model(stmt)]
    bound = {n.id for stmt in kept for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {a.asname or a.name.split(".")[0] for stmt in kept if isinstance(stmt, (ast.Import, ast.ImportFrom))
              for a in stmt.names}
    feed = next((call.args[1] for call in ast.walk(tree) if isinstance(call, ast.Call)
                 and isinstance(call.func, ast.Attribute) and call.func.attr == "run" and len(call.args) == 2
                 and isinstance(call.args[1], ast.Dict)
                 and {n.id for n in ast.walk(call.args[1]) if isinstance(n, ast.Name)} <= bound), None)
    if feed is not None:
        inputs = (f"    feed = {ast.unparse(feed)}\n"
                  f"    return tuple(np.asarray(feed[i.name]) for i in {name}.graph.input)\n")
    else:
        inputs = _SEEDED_ONNX_INPUTS.format(model=name, seed=SEED)
    head = "\n".join(ast.unparse(stmt) for stmt in kept)
    numpy = "" if "np" in bound else "import numpy as np\n"
    return (numpy + head + "\n\n\n"
            "# What the thread's script built and fed it (written by iree-regress harvest).\n"
            f"def onnx_model():\n    return {name}\n\n\n"
            f"def example_inputs():\n{inputs}")


_SEEDED_ONNX_INPUTS = '''    # The script feeds nothing the harness can read: values seeded of the inputs' types.
    from onnx import helper

    rng = np.random.default_rng({seed})
    given = {{t.name for t in {model}.graph.initializer}}
    arrays = []
    for i in {model}.graph.input:
        if i.name in given:
            continue
        t = i.type.tensor_type
        if any(not d.dim_value for d in t.shape.dim):
            raise ValueError(f"input {{i.name}} has a dynamic dim: give its values")
        shape = [d.dim_value for d in t.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(t.elem_type)
        if np.issubdtype(dtype, np.floating):
            arrays.append((rng.standard_normal(shape) * 4).astype(dtype))
        else:
            arrays.append(rng.integers(-3, 4, shape).astype(dtype))
    return tuple(arrays)
'''


def _parsed_prefix(script: str, what: str) -> ast.Module:
    """The script as far as it is Python: a thread cut short (or a paste that ends
    mid-line) still gives the statements before the cut. HarvestError when not even its
    first line parses."""
    lines = script.splitlines()
    end = len(lines)
    while True:
        try:
            return ast.parse("\n".join(lines[:end]))
        except SyntaxError as e:
            cut = min(end, (e.lineno or end)) - 1
            if cut < 1:
                raise HarvestError(f"{what} is not Python as pasted (line {e.lineno}: {e.msg})") from None
            end = cut


def _runs_the_model(stmt: ast.stmt) -> bool:
    """An import of what runs or compiles the model, or a bare call (print, a save)."""
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        modules = [stmt.module or ""] if isinstance(stmt, ast.ImportFrom) else [a.name for a in stmt.names]
        return any(m.split(".")[0] in _RUNNERS for m in modules)
    return isinstance(stmt, ast.Expr)


def seeded_torch_model(snippet: str, signature: list[tuple[tuple[int, ...], str]]) -> tuple[str, str]:
    """(model.py, the shapes in words) for a snippet that defines one nn.Module and exports
    nothing (imports, classes and functions only), run on seeded inputs of the shapes and
    element types a printed export of it states (`signature`, one per forward argument).
    HarvestError when the snippet is not that, or the signature does not fit its forward."""
    try:
        tree = ast.parse(snippet)
    except SyntaxError as e:
        raise HarvestError(f"the PyTorch snippet is not Python as pasted (line {e.lineno}: {e.msg})") from None
    allowed = (ast.Import, ast.ImportFrom, ast.ClassDef, ast.FunctionDef)
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    if len(classes) != 1 or not all(isinstance(n, allowed) for n in tree.body):
        raise HarvestError("the snippet is not one module definition alone")
    forward = next((f for f in classes[0].body if isinstance(f, ast.FunctionDef) and f.name == "forward"), None)
    if forward is None or len(forward.args.args) - 1 != len(signature) or forward.args.vararg:
        raise HarvestError(f"{classes[0].name}.forward does not take the {len(signature)} argument(s) stated")
    inputs = []
    for shape, element in signature:
        dtype = _TORCH_ELEMENTS.get(element)
        if dtype is None:
            raise HarvestError(f"an input of element type {element}: harvest seeds {', '.join(_TORCH_ELEMENTS)}")
        dims = ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "")
        inputs.append(f"torch.randn(({dims}), generator=g).to(torch.{dtype})" if dtype.startswith(("float", "bfl"))
                      else f"torch.randint(-8, 8, ({dims}), generator=g).to(torch.{dtype})")
    shapes = ", ".join("x".join(map(str, shape)) + f"x{element}" for shape, element in signature)
    imports = "" if re.search(r"^import torch$", snippet, re.M) else "import torch\n\n"
    return (imports + snippet.rstrip() + "\n\n\n"
            f"# The thread's snippet exports nothing: its inputs are seeded, of the shapes its printed\n"
            f"# export states ({shapes}) (written by iree-regress harvest).\n"
            f"def Model():\n    return {classes[0].name}()\n\n\n"
            "def example_inputs():\n    g = torch.Generator().manual_seed(0)\n"
            f"    return ({', '.join(inputs)},)\n"), shapes


_TORCH_ELEMENTS = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "si64": "int64",
                   "si32": "int32", "si8": "int8", "ui8": "uint8", "i1": "bool"}


_EXPORTS = ("aot.export", "export", "torch.export.export", "iree.turbine.aot.export")


def _is_export(func: ast.expr) -> bool:
    return ast.unparse(func) in _EXPORTS


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
             "", "", "def reference(*inputs):  # the stated values: the same whatever the inputs"]
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
