"""Windows of real models: every family op and contraction of a model of the models table
(harness/sweep/models.py), cut out with 2 to 8 of its neighbours as a standalone program.

A window keeps what the model gave it: the ops as torch.export wrote them (ATen, with their
own arguments), the dims, dtypes and dynamic sizes of the values it reads, the weights as
the module's own (seeded draws with the real weights' mean and spread), and inputs drawn
in the ranges the real values had (token ids below the vocabulary, masks as full as the
model's). Sizes the ops take from outside the window (a view's batch x sequence) are
recomputed from the window's own inputs, so no dynamic dim is fixed by the cut.

`cut(arch)` returns the windows of one architecture, deduplicated by structure (repeated
layers give one window), each checked: PyTorch runs it, and torch.export of it keeps every
dim dynamic that the model had dynamic (a cut that fixed one is refused, not kept).
`write_catalog()` writes them to sweeps/windows/<family>.json.gz and the axis of each
`<family>-windows` sweep; the builders read the catalog (window_catalog.py) and never
import torch.
"""

from __future__ import annotations

import hashlib
import math
import operator
import re
from collections import Counter
from dataclasses import dataclass, field

from .models import ARCHITECTURES, model_source
from .window_catalog import DRAW_SOURCE, pack

# The anchors: ATen ops by the family whose sweep holds their windows.
FAMILY_OPS = {
    "transpose": ("aten.permute.default", "aten.transpose.int", "aten.t.default", "aten.swapaxes.default"),
    "topk": ("aten.topk.default", "aten.sort.default", "aten.sort.stable", "aten.argsort.default",
             "aten.argsort.stable"),
    "scatter": ("aten.scatter.src", "aten.scatter.value", "aten.scatter_add.default", "aten.scatter_reduce.two",
                "aten.index_put.default", "aten.index_put_.default", "aten.one_hot.default", "aten.gather.default",
                "aten.embedding.default", "aten.index_select.default", "aten.index.Tensor",
                "aten.slice_scatter.default", "aten.select_scatter.default"),
    "attention": ("aten.scaled_dot_product_attention.default",),
    "matmul": ("aten.linear.default", "aten.matmul.default", "aten.mm.default", "aten.bmm.default",
               "aten.addmm.default", "aten.baddbmm.default", "aten.einsum.default", "aten.conv1d.default",
               "aten.conv2d.default", "aten.conv1d.padding", "aten.conv2d.padding", "aten.convolution.default"),
}
SIZES = range(2, 9)  # neighbours besides the anchor
DIRECTIONS = ("up", "down", "both")  # producers only, consumers only, both (nearest first)
# Nodes that compute nothing a window could hold: checks and size reads.
NOT_OPS = ("aten._assert_tensor_metadata.default", "aten.sym_size.int", "aten._assert_scalar.default",
           "aten.sym_constrain_range_for_size.default", "aten._assert_async.msg")


class Uncuttable(Exception):
    """A window that cannot stand alone; its message is the reason, counted by `cut`."""


@dataclass
class Window:
    id: str  # <arch>.<anchor node>.<direction><neighbours>
    family: str
    arch: str
    anchor: str  # the anchor's node name in the model's export
    target: str  # the anchor's ATen op
    source: str  # model.py
    ops: tuple[str, ...]
    signature: str = ""  # its structure: equal signatures are one window
    traits: tuple[str, ...] = field(default=())


def family_of(target: str) -> str | None:
    return next((f for f, ops in FAMILY_OPS.items() if target in ops), None)


# --- the model, exported once, with the value every node had -------------------------------

def exported(arch: str):
    """The architecture as the models sweep exports it (exported_model)."""
    scope: dict = {}
    exec(compile(model_source(arch), f"<model {arch}>", "exec"), scope)
    return exported_model(scope["Model"](), scope["example_inputs"](), scope["dynamic_shapes"]())


def exported_model(model, inputs: tuple, shapes: dict):
    """(the ExportedProgram, {node name: value}, {symbol: (its Dim's name, min, max)}) of a
    model exported with these dynamic shapes, run once on its example inputs."""
    import torch
    program = torch.export.export(model, inputs, dynamic_shapes=shapes)
    values: dict = {}
    for node, value in zip((n for n in program.graph.nodes if n.op == "placeholder"), _placeholder_values(program, inputs)):
        values[node.name] = value

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            result = super().run_node(n)
            values[n.name] = result
            return result

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # reductions in one order: the values' ranges, and so every draw, the same each cut
    try:
        with torch.no_grad():
            Recorder(program.graph_module).run(*(values[n.name] for n in program.graph.nodes if n.op == "placeholder"))
    finally:
        torch.set_num_threads(threads)
    named = {str(size.node.expr): shapes[n.name][d].__name__ for n in program.graph.nodes
             if n.op == "placeholder" and n.name in (shapes or {})
             for d, size in enumerate(n.meta["val"].shape) if d in shapes[n.name]}
    dims = {str(s): (named.get(str(s), str(s)), int(r.lower),
                     int(r.upper) if math.isfinite(float(r.upper)) else None)
            for s, r in program.range_constraints.items()}
    return program, values, dims


def _placeholder_values(program, inputs):
    from torch.export.graph_signature import InputKind
    user = iter(inputs)
    state = {**program.state_dict, **program.constants}
    for spec in program.graph_signature.input_specs:
        yield next(user) if spec.kind == InputKind.USER_INPUT else state[spec.target]


# --- choosing a window ------------------------------------------------------------------

def _is_tensor(node) -> bool:
    import torch
    v = node.meta.get("val")
    return isinstance(v, torch.Tensor) or (isinstance(v, (tuple, list)) and v and
                                           all(isinstance(x, torch.Tensor) for x in v))


def _member(node) -> bool:
    """Whether a node can be inside a window: an op with a tensor result."""
    target = str(node.target)
    return (node.op == "call_function" and (target.startswith("aten.") or node.target is operator.getitem)
            and target not in NOT_OPS and _is_tensor(node))  # a package's own op (a custom op) stays out


def _unit(node) -> list:
    """A node with the pieces it cannot go without: a multi-result op and its getitems (in
    graph order: a set's order would change from one cut to the next)."""
    if node.target is operator.getitem:
        node = node.args[0]
    return [node] + [u for u in node.users if u.target is operator.getitem]


def _neighbours(node, direction: str) -> list:
    ups = [a for a in node.all_input_nodes if _member(a)]
    downs = [u for u in node.users if _member(u)]
    return {"up": ups, "down": downs, "both": ups + downs}[direction]


def grow(anchor, direction: str, size: int) -> list | None:
    """The anchor and `size` more nodes, nearest first (breadth first, in graph order);
    None when the graph has fewer (the smaller window already holds them all)."""
    members = list(_unit(anchor))
    frontier = list(members)
    while len(members) - len(_unit(anchor)) < size:
        nxt = []
        for n in frontier:
            for m in _neighbours(n, direction):
                if m not in members:
                    nxt.append(m)
        if not nxt:
            return None
        for m in nxt:
            if len(members) - len(_unit(anchor)) >= size:
                break
            for piece in _unit(m):
                if piece not in members:
                    members.append(piece)
        frontier = nxt
    order = {n: i for i, n in enumerate(anchor.graph.nodes)}
    return sorted(members, key=order.__getitem__)


# --- writing a window as a model.py ----------------------------------------------------------



def _stats(value) -> tuple:
    import torch
    if value.numel() == 0:  # an empty value (no past tokens): nothing to draw
        return (0.0,) if value.dtype == torch.bool else (0.0, 0.0, 0.0, 0.0) if value.dtype.is_floating_point else (0, 0)
    if value.dtype == torch.bool:
        return (round(float(value.float().mean()), 4),)
    if value.dtype.is_floating_point:
        v = value.detach().float()
        std = float(v.std()) if v.numel() > 1 else 0.0
        mean = float(v.mean())
        # A normalized value's mean is zero up to rounding noise (about 1e-9) that differs
        # between machines' kernels: said as 0, so a cut elsewhere writes the same window.
        mean = 0.0 if abs(mean) <= 1e-6 * std else mean
        return tuple(_short(x) for x in (mean, std, float(v.min()), float(v.max())))
    return (int(value.min()), int(value.max()))


def _short(x: float) -> float:
    return float(f"{x:.4g}") if math.isfinite(x) else x


def _spell(value, node_name) -> str:
    """Python for one argument of an op; node_name(node) spells a value of the graph."""
    import torch
    if hasattr(value, "op") and hasattr(value, "target"):  # an fx Node
        return node_name(value)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_spell(v, node_name) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, torch.device):
        return f"torch.device({str(value)!r})"
    if isinstance(value, (torch.layout, torch.memory_format)):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, (bool, int, float, str)) or value is None:
        return repr(value)
    raise Uncuttable(f"an argument the cut cannot write: {type(value).__name__}")


def _size_expr(expr, sizes: dict) -> str:
    """Python for a symbolic size from the window's own inputs' sizes."""
    import sympy
    if expr in sizes:  # a size an input has (a product of dims too: batch x sequence)
        return sizes[expr]
    if expr.is_Integer:
        return str(int(expr))
    if expr.is_Symbol:
        if expr not in sizes:
            raise Uncuttable(f"a size from outside the window: {expr}")
        return sizes[expr]
    if isinstance(expr, sympy.Add):
        return "(" + " + ".join(_size_expr(a, sizes) for a in expr.args) + ")"
    if isinstance(expr, sympy.Mul):
        return "(" + " * ".join(_size_expr(a, sizes) for a in expr.args) + ")"
    if type(expr).__name__ == "FloorDiv":
        return f"({_size_expr(expr.args[0], sizes)} // {_size_expr(expr.args[1], sizes)})"
    raise Uncuttable(f"a size the cut cannot write: {expr}")


def window_source(arch: str, family: str, anchor, members: list, values: dict, model_dims: dict,
                  direction: str, size: int) -> tuple[str, str, tuple[str, ...], int]:
    """(model.py, structure signature, ops, how many dynamic dims its inputs have in the
    model) of the window `members` of the model."""
    import torch
    inside = set(members)
    inputs, weights = [], []  # the nodes read from outside: forward arguments / the module's own
    for n in members:
        for a in n.all_input_nodes:
            if a not in inside and _is_tensor(a) and a not in inputs and a not in weights:
                (weights if a.op == "placeholder" and _weight_like(a) else inputs).append(a)
    for a in inputs + weights:
        if not isinstance(values.get(a.name), torch.Tensor):
            raise Uncuttable(f"an input the cut cannot draw: {a.name}")
    names = {a: f"x{i}" for i, a in enumerate(inputs)}
    names.update({w: f"self.w{i}" for i, w in enumerate(weights)})
    names.update({n: f"v{i}" for i, n in enumerate(members)})

    # Sizes: a dynamic dim of an input is its own Dim; a size an op takes is recomputed.
    dims: dict = {}  # symbol -> "x0.size(1)"
    dynamic: dict[str, dict[int, str]] = {}
    for a in inputs:
        for d, s in enumerate(a.meta["val"].shape):
            if isinstance(s, torch.SymInt):
                expr = s.node.expr
                dims.setdefault(expr, f"{names[a]}.size({d})")
                dynamic.setdefault(names[a], {})[d] = _dim_name(expr, model_dims)
    body, sig = [], []
    symbols: dict = {}  # a size node read from outside -> its local name
    for a in inputs + weights:
        sig.append(("in" if a in inputs else "w", str(a.meta["val"].dtype),
                    tuple(str(s) for s in a.meta["val"].shape)))

    def node_name(v):
        if v in names:
            return names[v]
        val = v.meta.get("val")
        if isinstance(val, torch.SymInt):
            if v not in symbols:
                symbols[v] = f"n{len(symbols)}"
                body.append(f"{symbols[v]} = {_size_expr(val.node.expr, dims)}")
            return symbols[v]
        raise Uncuttable(f"a value read that is neither input nor member: {v.name} ({v.op})")

    def spell(v):
        return _spell(v, node_name)

    def structure(v):
        if hasattr(v, "op"):
            if v in inside:
                return ("m", members.index(v))
            if v in names:
                return ("in", names[v])
            return ("n", str(v.meta["val"].node.expr))
        if isinstance(v, (list, tuple)):
            return tuple(structure(x) for x in v)
        return repr(v)

    for n in members:
        if n.target is operator.getitem:
            body.append(f"{names[n]} = {names[n.args[0]]}[{n.args[1]}]")
        else:
            args = [spell(a) for a in n.args]
            args += [f"{k}={spell(v)}" for k, v in n.kwargs.items()]
            body.append(f"{names[n]} = torch.ops.{n.target}({', '.join(args)})")
        sig.append((str(n.target), structure(list(n.args)),
                    tuple(sorted((k, structure(v)) for k, v in n.kwargs.items()))))
    outputs = [n for n in members if not isinstance(n.meta["val"], (tuple, list))
               and (not n.users or any(u not in inside for u in n.users))]
    if not outputs:
        raise Uncuttable("no tensor leaves the window")
    sig.append(("out", tuple(members.index(o) for o in outputs)))
    body.append(f"return ({', '.join(names[o] for o in outputs)},)")

    ops = tuple(str(n.target) for n in members if n.target is not operator.getitem)
    package = ARCHITECTURES[arch][0] if arch in ARCHITECTURES else "a model"
    doc = (f"{family}-windows: {arch} ({package}), around `{anchor.name}` ({anchor.target}) with "
           f"{size} neighbours {'upstream' if direction == 'up' else 'downstream' if direction == 'down' else 'both ways'}"
           f": {', '.join(ops)}.\nCut from the model's torch.export by harness/sweep/windows.py; inputs and weights "
           f"drawn in the ranges the model's own values had.")
    seed_of = {a: i for i, a in enumerate(inputs + weights)}
    lines = [f'"""{doc}"""', "import torch", "", DRAW_SOURCE.strip(), "", "",
             "class Model(torch.nn.Module):", "    def __init__(self):", "        super().__init__()"]
    for i, w in enumerate(weights):
        v = values[w.name]
        lines.append(f"        self.register_buffer('w{i}', draw({list(v.shape)}, {v.dtype}, "
                     f"{_stats(v)!r}, seed={100 + seed_of[w]}))")
    if not weights:
        lines.append("        pass")
    lines += ["", f"    def forward(self, {', '.join(names[a] for a in inputs)}):"]
    lines += [f"        {line}" for line in body]
    lines += ["", "", "def example_inputs():", "    return ("]
    for a in inputs:
        v = values[a.name]
        lines.append(f"        draw({list(v.shape)}, {v.dtype}, {_stats(v)!r}, seed={seed_of[a]}),")
    lines.append("    )")
    if dynamic:
        bounds = {_dim_name(e, model_dims): _bounds(e, model_dims) for e in dims}
        lines += ["", "", "def dynamic_shapes():"]
        for s in sorted({s for per in dynamic.values() for s in per.values()}):
            lo, hi = bounds[s]
            lines.append(f"    {s} = torch.export.Dim({s!r}, min={max(lo, 2)}{'' if hi is None else f', max={hi}'})")
        # export wants every argument named, the static ones with no dims
        spelled = ", ".join(f"{names[a]!r}: {{{', '.join(f'{k}: {v}' for k, v in dynamic.get(names[a], {}).items())}}}"
                            for a in inputs)
        lines.append(f"    return {{{spelled}}}")
    signature = hashlib.sha1(repr(sig).encode()).hexdigest()[:16]
    kept = sum(isinstance(s, torch.SymInt) for a in inputs for s in a.meta["val"].shape)
    return "\n".join(lines) + "\n", signature, ops, kept


def _dim_name(expr, model_dims: dict) -> str:
    """The Dim of an input's dynamic size: the model's own name (batch), or for a product
    of them a Dim of its own named after it (batch_x_sequence): export relates it to
    nothing, and the check refuses the window where the ops need the relation."""
    named = str(expr)
    for symbol, (name, _, _) in model_dims.items():
        named = re.sub(rf"\b{symbol}\b", name, named)
    name = re.sub(r"\W+", "_", named.replace("*", "_x_")).strip("_")
    return name if name.isidentifier() else f"size_{name}"  # 2*batch*sequence: size_2_x_batch_x_sequence


def _bounds(expr, model_dims: dict) -> tuple[int, int | None]:
    """The size's least and greatest values over the model's dims' ranges."""
    import sympy
    symbols = {sympy.Symbol(str(s)): (lo, hi) for s, (_, lo, hi) in model_dims.items()}
    free = [s for s in expr.free_symbols]
    lo = int(expr.subs({s: symbols.get(sympy.Symbol(str(s)), (2, None))[0] for s in free}))
    his = [symbols.get(sympy.Symbol(str(s)), (2, None))[1] for s in free]
    hi = None if None in his else int(expr.subs({s: h for s, h in zip(free, his)}))
    return lo, hi


def _weight_like(node) -> bool:
    """A placeholder that is the model's own (a parameter, buffer or constant), not an input."""
    return node.name.startswith(("p_", "b_", "c_"))


# --- checking a window ------------------------------------------------------------------

# Ops whose result orders equal keys as the implementation likes (not asked to be stable):
# with ties among the drawn values PyTorch's order is one right answer of many.
UNSTABLE_ORDER = {"aten.sort.default": 1, "aten.argsort.default": 1, "aten.topk.default": 2,
                  "aten.sort.stable": None, "aten.argsort.stable": None}


def check(source: str, expect_dynamic: int) -> None:
    """PyTorch runs the window, torch.export of it keeps its dynamic dims, and no unstable
    sort meets ties in its drawn values: Uncuttable if not."""
    import torch
    scope: dict = {}
    exec(compile(source, "<window>", "exec"), scope)
    model, inputs = scope["Model"](), scope["example_inputs"]()
    with torch.no_grad():
        model(*inputs)
    shapes = scope["dynamic_shapes"]() if "dynamic_shapes" in scope else None
    try:
        program, values, _ = exported_model(model, inputs, shapes)
    except Exception as e:  # export refuses the window's dims: a cut that would fix one
        raise Uncuttable(f"torch.export of the window: {type(e).__name__}: {str(e).splitlines()[0][:120]}") from None
    user = {sp.arg.name for sp in program.graph_signature.input_specs if sp.kind.name == "USER_INPUT"}
    kept = sum(isinstance(s, torch.SymInt) for n in program.graph.nodes if n.op == "placeholder" and n.name in user
               for s in n.meta["val"].shape)
    if kept != expect_dynamic:
        raise Uncuttable(f"the window keeps {kept} of its {expect_dynamic} dynamic dims")
    for n in program.graph.nodes:
        if n.op == "call_function" and str(n.target) in UNSTABLE_ORDER and _ties(n, values):
            raise Uncuttable(f"ties in an unstable order: {n.target} of equal keys, whose order PyTorch picks")


def _ties(node, values: dict) -> bool:
    """Whether the sort / topk `node` (not asked to be stable) sees equal keys along its dim."""
    import torch
    kwargs = dict(node.kwargs)
    if kwargs.get("stable"):
        return False
    at = UNSTABLE_ORDER[str(node.target)]
    dim = kwargs.get("dim", node.args[at] if at is not None and len(node.args) > at else -1)
    keys = values[node.args[0].name]
    if keys.numel() < 2:
        return False
    ordered = torch.sort(keys.detach(), dim=dim).values
    return bool((ordered.narrow(dim, 1, ordered.shape[dim] - 1) == ordered.narrow(dim, 0, ordered.shape[dim] - 1)).any())


# --- the catalog -------------------------------------------------------------------------

def cut(arch: str, refused: Counter | None = None) -> list[Window]:
    """Every window of one architecture of the models table."""
    return cut_exported(arch, *exported(arch), refused=refused)


def cut_exported(arch: str, program, values: dict, model_dims: dict, refused: Counter | None = None) -> list[Window]:
    """Every window of an exported model (exported_model), deduplicated by structure and
    checked; what is refused is counted by reason in `refused`."""
    refused = refused if refused is not None else Counter()
    found: dict[str, Window] = {}
    for anchor in program.graph.nodes:
        family = family_of(str(anchor.target)) if anchor.op == "call_function" else None
        if not family:
            continue
        for direction in DIRECTIONS:
            for size in SIZES:
                members = grow(anchor, direction, size)
                if members is None:
                    break
                try:
                    source, signature, ops, dynamic = window_source(arch, family, anchor, members, values, model_dims,
                                                           direction, size)
                except Uncuttable as e:
                    refused[str(e).split(":")[0]] += 1
                    continue
                if signature in found:
                    continue
                try:
                    check(source, dynamic)
                except Uncuttable as e:
                    refused[str(e).split(":")[0]] += 1
                    continue
                except Exception as e:  # PyTorch itself cannot run it: never a window
                    refused[f"PyTorch: {type(e).__name__}"] += 1
                    continue
                found[signature] = Window(f"{arch}.{anchor.name}.{direction}{size}", family, arch, anchor.name,
                                          str(anchor.target), source, ops, signature,
                                          (f"arch={arch}", f"anchor={str(anchor.target).split('.')[1]}",
                                           f"direction={direction}", f"neighbours={size}",
                                           *sorted({f"op={o.split('.')[1]}" for o in ops})))
    return list(found.values())


def sweep_path(family: str):
    from .spec import SWEEPS_DIR
    return SWEEPS_DIR / f"{family}_windows.toml"


def write_catalog(windows: list[Window]) -> dict[str, int]:
    """Each family's catalog (window_catalog.py) and the `window` axis of its sweep, whose
    other tables (matrix, sample, expectations) are left as they are. {family: windows}."""
    import gzip
    import json
    import re
    import tomllib

    from .window_catalog import WINDOW_FAMILIES, catalog_path

    written = {}
    for family in WINDOW_FAMILIES:
        sweep = sweep_path(family)
        # The axis keeps the windows it had in their places and appends new ones (a new
        # architecture's), so a share (`--generated-share`, by place) keeps its windows.
        text = sweep.read_text()
        place = {w: i for i, w in enumerate(tomllib.loads(text).get("axes", {}).get("window", []))}
        mine = sorted((w for w in windows if w.family == family), key=lambda w: (place.get(w.id, len(place)), w.id))
        entries = {w.id: {"arch": w.arch, "anchor": w.anchor, "target": w.target, "ops": list(w.ops),
                          "traits": list(w.traits), "source": pack(w.source)} for w in mine}
        path = catalog_path(family)
        path.parent.mkdir(parents=True, exist_ok=True)
        # mtime=0: the same windows give the same bytes (no diff from a rewrite alone)
        path.write_bytes(gzip.compress((json.dumps(entries, indent=0, sort_keys=True) + "\n").encode(), mtime=0))
        axis = "window = [\n" + "".join(f"    {w.id!r},\n".replace("'", '"') for w in mine) + "]"
        text, n = re.subn(r"(?ms)^window = \[.*?^\]", lambda _: axis, text)
        if n != 1:
            raise ValueError(f"{sweep}: field 'axes.window': expected one `window = [...]` list to rewrite")
        sweep.write_text(text)
        written[family] = len(mine)
    return written
