"""Programs as graphs (harness/sweep/graph.py) over the op library (harness/sweep/ops/).

Every drawn program is run in PyTorch eager value by value, and each value's dtype and
shape must be what the library says the op gives: the library's types are what the next
op is drawn against, so a wrong one would make programs that do not type (a planted
wrong type is caught). The same seed gives the same program; a family sweep holds its
family's op, the plain sweep none; every op is in at least 200 of the programs.
"""

from __future__ import annotations

import pytest

from harness.sweep.graph import GRAPH_SWEEPS, draw_graph, graph, op_counts
from harness.sweep.ops import LIBRARY, TORCH, Made

torch = pytest.importorskip("torch")

SEEDS = range(40)


def _checked(seed: int, sweep: str) -> None:
    """Run the graph value by value; each value's real dtype and shape are its declared ones."""
    d = draw_graph(seed, sweep)
    program = graph(seed, sweep)
    ns: dict = {}
    exec(program.source, ns)
    inputs = ns["example_inputs"]()
    env = {"torch": torch}
    taken = [name for name in ns["Model"].forward.__code__.co_varnames[1:len(inputs) + 1]]
    env.update(zip(taken, inputs))
    for name, t in d.inputs:
        if name in env and t.dtype == "bf16":
            env[name] = env[name].to(torch.bfloat16)
    made = [v for v in d.values if v.op != "input"]
    for line, value in zip(d.body, made):
        target, expr = line.split(" = ", 1)
        env[target] = eval(expr, env)
        got = env[target]
        assert str(got.dtype) == TORCH[value.type.dtype] and tuple(got.shape) == value.type.shape, \
            f"{sweep} seed {seed}: {line}: declared {value.type}, got {got.dtype}{tuple(got.shape)}"
    outputs = ns["Model"]()(*inputs)
    assert all(isinstance(o, torch.Tensor) for o in outputs)


@pytest.mark.harness
@pytest.mark.parametrize("sweep", sorted(GRAPH_SWEEPS))
def test_every_drawn_program_types_as_the_library_says_in_pytorch_eager(sweep):
    for seed in SEEDS:
        _checked(seed, sweep)


@pytest.mark.harness
def test_planted_fault_an_op_that_lies_about_its_type_is_caught(monkeypatch):
    cumsum = LIBRARY["cumsum"]
    lying = cumsum.__class__(**{**cumsum.__dict__, "make": lambda rng, a: Made(
        a, f"torch.cumsum({{a}}, dim={rng.randrange(a.rank)})", "cumsum")})  # integers keep their dtype: wrong
    monkeypatch.setitem(LIBRARY, "cumsum", lying)
    with pytest.raises(AssertionError, match="cumsum"):
        for sweep in GRAPH_SWEEPS:
            for seed in range(200):
                d = draw_graph(seed, sweep)
                if any(v.op == "cumsum" and v.type.dtype in ("i32",) for v in d.values):
                    _checked(seed, sweep)


@pytest.mark.harness
def test_the_same_seed_gives_the_same_program_and_families_hold_their_op():
    assert graph(7, "topk-graph").source == graph(7, "topk-graph").source
    assert graph(7, "topk-graph").source != graph(8, "topk-graph").source
    for sweep, kind in GRAPH_SWEEPS.items():
        for seed in range(100):
            ops = {v.op for v in draw_graph(seed, sweep).values}
            held = {o for o in ops if o in LIBRARY and LIBRARY[o].family}
            if kind.family:
                assert any(LIBRARY[o].family == kind.family for o in held), (sweep, seed, ops)
            elif not kind.family_context:
                assert not held, (sweep, seed, ops)
            assert all(LIBRARY[o].edition <= kind.edition for o in ops if o in LIBRARY), (sweep, seed, ops)


@pytest.mark.harness
def test_an_op_of_a_later_edition_leaves_the_older_sweeps_programs_as_they_were(monkeypatch):
    """The scans' records and the sweeps' expectations name programs by seed: an op added
    to the library must not redraw them. Planted: the same op registered at edition 1
    changes the plain sweep's programs; at edition 2 it changes none of them."""
    from harness.sweep.ops import Op
    before = {seed: graph(seed, "plain-graph").source for seed in range(60)}
    neg = Op("planted_neg", "elementwise", "any", lambda a: a.dtype in ("f32",), lambda rng, a: Made(a, "-{a}", "neg"))
    monkeypatch.setitem(LIBRARY, "planted_neg", neg)
    assert any(graph(seed, "plain-graph").source != before[seed] for seed in before)
    monkeypatch.setitem(LIBRARY, "planted_neg", neg.__class__(**{**neg.__dict__, "edition": 2}))
    assert all(graph(seed, "plain-graph").source == before[seed] for seed in before)
    assert any("planted_neg" in {v.op for v in draw_graph(seed, "wide-graph").values} for seed in range(60))


@pytest.mark.harness
def test_the_library_is_wide_and_every_op_is_drawn_often():
    assert len(LIBRARY) >= 45
    groups = {o.group for o in LIBRARY.values()}
    assert {"layout", "reshape", "combine", "indexing", "contraction", "reduction", "normalization",
            "elementwise", "family"} <= groups
    held = op_counts(2048)
    assert min(held.get(name, 0) for name in LIBRARY) >= 200, sorted(held.items(), key=lambda kv: kv[1])[:5]


def test_a_failing_graph_program_is_reduced_line_by_line():
    """sweep reduce on a graph (no slots): outputs left out, ops bypassed, dims made
    static, each kept only while the item fails the same way. Planted: the 'failure' is an
    index_put of a mean over dynamic dims; everything else goes; making a dim static
    changes the message and is kept back; the reduced program still runs in PyTorch."""
    from types import SimpleNamespace

    from harness.item import ItemId
    from harness.sandbox import probe
    from harness.sweep.reduce import forward_lines, reduce_variant
    from pathlib import Path

    from harness.sweep.spec import load_sweep

    sweep = load_sweep(Path(__file__).resolve().parent.parent / "sweeps" / "topk_graph.toml")
    variant = sweep.find("seed=706")

    def failure_of(sweep, variant, program, item, settings):
        src = program.source
        if ".index_put(" not in src or ".mean(" not in src:
            return "pass", ""
        return "compile-fail", "error: store" if "{0: AUTO, 2: AUTO}" in src else "error: other"

    settings = SimpleNamespace(sandbox=probe(), toolchain=SimpleNamespace(release="3.13.0"))
    r = reduce_variant(sweep, variant, ItemId("cpu", "O0"), settings, failure_of=failure_of)
    body = r.after.source[r.after.source.find("def forward"):r.after.source.find("def example_inputs")]
    assert ".index_put(" in body and ".mean(" in body
    for gone in ("scatter_reduce", "torch.sort", "masked_fill", "float16"):
        assert gone not in body, body
    assert forward_lines(r.after) == 3, body  # mean, index_put, return
    said = dict(r.trials)
    assert said[("x0 dim 0 static",)].startswith("not kept: compile-fail error: other")
    ns: dict = {}
    exec(r.after.source, ns)
    out = ns["Model"]()(*ns["example_inputs"]())
    assert out[0].shape == (6, 6)


@pytest.mark.harness
def test_the_int_sweep_draws_bytes_over_their_whole_range_and_other_ints_small(monkeypatch):
    """int-graph's u8 inputs span 0..255 (a byte below 128 cannot tell a signed lowering
    from an unsigned one: recall's rshift miss); its other integers, and every other
    sweep's u8, stay the small ties sums keep exact in. Planted: without full_bytes the
    int sweep's bytes never reach the sign bit."""
    from dataclasses import replace

    def bytes_of(sweep: str) -> list[int]:
        seen = []
        for seed in range(40):
            ns: dict = {}
            exec(graph(seed, sweep).source, ns)
            seen += [int(v) for x in ns["example_inputs"]() if x.dtype == torch.uint8 for v in x.flatten()]
        return seen

    full = bytes_of("int-graph")
    assert max(full) >= 250 and sum(v >= 128 for v in full) > len(full) // 3
    assert max(bytes_of("wide-graph-3")) <= 3
    monkeypatch.setitem(GRAPH_SWEEPS, "int-graph", replace(GRAPH_SWEEPS["int-graph"], full_bytes=False))
    assert max(bytes_of("int-graph")) <= 3


@pytest.mark.harness
def test_the_dims_sweep_leaves_batch_dims_free_and_the_matrix_or_image_plane_fixed(monkeypatch):
    """dims-graph's programs make dims dynamic as models do: the batch dims (every dim but
    the last two; the first of a rank 1 or 2 input), or each dim drawn. A pad over dynamic N
    and C with H and W static (recall's miss replication-pad2d) is only written so. The
    other sweeps keep their modes (their programs keep their ids). Planted: with the older
    modes the dims sweep writes no such rank-4 input."""
    from dataclasses import replace

    def shapes(sweep: str) -> list[tuple[str, int, tuple]]:
        out = []
        for seed in range(60):
            program = graph(seed, sweep)
            ns: dict = {}
            exec(program.source, ns)
            inputs = ns["example_inputs"]()
            mode = program.traits[0].partition("=")[2]
            dynamic = ns["dynamic_shapes"]() if "dynamic_shapes" in ns else {}
            out += [(mode, x.dim(), tuple(sorted(dims))) for x, dims in zip(inputs, dynamic.values())]
        return out

    drawn = shapes("dims-graph")
    assert {m for m, _, _ in drawn} == {"batch", "per-dim"}
    # by rank, what a model leaves free, written out (rank 5: an op's own weights, a KV cache)
    batch = {1: (0,), 2: (0,), 3: (0,), 4: (0, 1), 5: (0, 1, 2)}
    assert all(dims == batch[rank] for m, rank, dims in drawn if m == "batch")
    assert {1, 2, 3, 4} <= {rank for m, rank, _ in drawn if m == "batch"}
    per_dim = {dims for m, rank, dims in drawn if m == "per-dim" and rank == 3}
    assert len(per_dim) >= 3  # dims drawn one by one, not one pattern
    assert (4, (0, 1)) in {(rank, dims) for m, rank, dims in drawn}
    assert not {m for m, _, _ in shapes("wide-graph-3")} & {"batch", "per-dim"}
    monkeypatch.setitem(GRAPH_SWEEPS, "dims-graph", replace(GRAPH_SWEEPS["dims-graph"], dims=GRAPH_SWEEPS["wide-graph-3"].dims))
    assert (4, (0, 1)) not in {(rank, dims) for m, rank, dims in shapes("dims-graph")}
    with pytest.raises(ValueError, match="batchh"):  # a misspelt mode would make every dim static
        replace(GRAPH_SWEEPS["dims-graph"], dims=("batchh",))
