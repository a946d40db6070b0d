"""Windows of real models (harness/sweep/windows.py, window_catalog.py): a family op or a
contraction of an exported model cut out with its neighbours as a program of its own.
A small two-layer model stands in for the models table here (torch only, no IREE)."""

from __future__ import annotations

import gzip
import json
import re
import tomllib
from collections import Counter

import numpy as np
import pytest
import torch

from harness.sweep import window_catalog, windows
from harness.sweep.windows import Uncuttable, _stats, check, cut_exported, exported_model, grow

pytestmark = pytest.mark.harness  # torch only: no IREE, no releases


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):  # [batch, seq, 8] -> heads -> back
        b, s, _ = x.shape
        h = self.proj(x.reshape(b * s, 8)).view(b, s, 2, 4).transpose(1, 2)  # tokens flattened, as MoE routers do
        return torch.softmax(h, dim=-1).transpose(1, 2).reshape(b, s, 8) + x


class Toy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.emb = torch.nn.Embedding(20, 8)
        self.layers = torch.nn.ModuleList([Layer(), Layer()])

    def forward(self, ids):
        x = self.emb(ids)
        for layer in self.layers:
            x = layer(x)
        return x


@pytest.fixture(scope="module")
def toy():
    batch, sequence = torch.export.Dim("batch", min=2, max=8), torch.export.Dim("sequence", min=2, max=16)
    ids = torch.randint(0, 20, (2, 6), generator=torch.Generator().manual_seed(1))
    return exported_model(Toy().eval(), (ids,), {"ids": {0: batch, 1: sequence}})


@pytest.fixture(scope="module")
def toy_windows(toy):
    refused = Counter()
    return cut_exported("toy", *toy, refused=refused), refused


def test_windows_hold_their_anchor_the_models_ops_and_dims(toy_windows):
    found, _ = toy_windows
    families = Counter(w.family for w in found)
    assert families["transpose"] and families["matmul"] and families["scatter"]  # transpose, linear, embedding
    assert len({w.id for w in found}) == len(found)
    for w in found:
        assert re.fullmatch(r"toy\.\w+\.(up|down|both)[2-8]", w.id)
        assert w.target in w.ops and f"`{w.anchor}`" in w.source  # the doc names the node it came from
    # the model's Dim names and bounds, not export's symbols
    dynamic = [w for w in found if "def dynamic_shapes" in w.source]
    assert dynamic and all("Dim('batch', min=2, max=8)" in w.source for w in dynamic if "batch" in w.source)


def test_an_input_sized_by_a_product_of_dims_gets_a_dim_of_its_own(toy_windows):
    """A window that starts after the flatten reads a [batch*sequence, 8] value: its size
    is a Dim of its own, bounded by the product of the model's bounds, and still dynamic
    when the window is exported (check ran on it)."""
    found, _ = toy_windows
    flat = [w for w in found if "Dim('batch_x_sequence', min=4, max=128)" in w.source]
    assert flat and all("'x0': {0: batch_x_sequence}" in w.source or "batch_x_sequence}" in w.source for w in flat)


def test_repeated_layers_give_one_window(toy_windows):
    """Layer 2's transposes, cut the same way as layer 1's, are the same window: deduplicated."""
    found, _ = toy_windows
    anchors = Counter((w.target, w.id.rsplit(".", 1)[1]) for w in found)
    assert anchors[("aten.transpose.int", "up2")] < 4  # four transposes in the model


def test_a_size_from_outside_the_window_is_recomputed_from_its_inputs(toy_windows):
    """The view's batch x sequence come from outside the window: it reads them off its own
    inputs, so the window runs (and exports) at other sizes than the model's."""
    found, _ = toy_windows
    w = next(w for w in found if "aten.view.default" in w.ops and "x0.size(" in w.source)
    scope: dict = {}
    exec(w.source, scope)
    bigger = tuple(torch.cat([x, x, x], dim=0) for x in scope["example_inputs"]())
    scope["Model"]()(*bigger)


def test_inputs_are_drawn_in_the_ranges_the_model_had(toy_windows):
    """The embedding's ids stay below the vocabulary (a draw out of range would be a crash
    of PyTorch's, not a window)."""
    found, _ = toy_windows
    w = next(w for w in found if w.target == "aten.embedding.default")
    scope: dict = {}
    exec(w.source, scope)
    ids = [x for x in scope["example_inputs"]() if not x.dtype.is_floating_point][0]
    assert 0 <= int(ids.min()) and int(ids.max()) < 20


def test_planted_a_cut_that_drops_a_dynamic_dim_is_refused(toy_windows):
    """Planted fault: the window's dynamic_shapes() loses a dim the model had dynamic; the
    check exports it and refuses it, naming how many dims it kept."""
    found, _ = toy_windows
    w = next(w for w in found if ", 1: sequence" in w.source)
    check(w.source, w.source.count(": batch") + w.source.count(": sequence"))  # as cut: kept
    dims = w.source.count(": batch") + w.source.count(": sequence")
    one_dropped = w.source.replace(", 1: sequence", "", 1)  # export sees it related to a dim kept
    with pytest.raises(Uncuttable, match=r"torch.export of the window: .*Constraints violated \(sequence\)"):
        check(one_dropped, dims)
    all_dropped = w.source.replace("def dynamic_shapes():", "def unused():")  # every size fixed
    with pytest.raises(Uncuttable, match=rf"keeps 0 of its {dims} dynamic dims"):
        check(all_dropped, dims)


def test_grow_stops_where_the_graph_ends(toy):
    program = toy[0]
    emb = next(n for n in program.graph.nodes if str(n.target) == "aten.embedding.default")
    assert grow(emb, "up", 2) is None  # nothing computes the embedding's inputs
    assert len(grow(emb, "down", 3)) == 4


def test_catalog_round_trip(toy_windows, tmp_path, monkeypatch):
    """write_catalog writes each family's catalog and rewrites only the sweep's window axis;
    the builders' reader gives back each window's program."""
    found, _ = toy_windows
    monkeypatch.setattr(window_catalog, "CATALOG_DIR", tmp_path / "windows")
    monkeypatch.setattr(windows, "sweep_path", lambda f: tmp_path / f"{f}_windows.toml")
    for f in window_catalog.WINDOW_FAMILIES:
        (tmp_path / f"{f}_windows.toml").write_text('[axes]\nwindow = [\n    "old",\n]\n\n[matrix]\ncpu = ["O0"]\n')
    window_catalog.catalog.cache_clear()
    written = windows.write_catalog(found)
    assert sum(written.values()) == len(found)
    w = found[0]
    axis = (tmp_path / f"{w.family}_windows.toml").read_text()
    assert f'"{w.id}"' in axis and '"old"' not in axis and 'cpu = ["O0"]' in axis
    assert window_catalog.window_program(w.family, w.id).source == w.source
    assert json.loads(gzip.decompress((tmp_path / "windows" / f"{w.family}.json.gz").read_bytes()))[w.id]["anchor"] == w.anchor
    window_catalog.catalog.cache_clear()


def test_the_axis_keeps_its_windows_in_place_and_appends_new_ones(toy_windows, tmp_path, monkeypatch):
    """A share (--generated-share K/N) is a window's place in the axis: windows already there
    keep their places (even out of name order), a new architecture's windows come after."""
    found, _ = toy_windows
    family = found[0].family
    mine = sorted(w.id for w in found if w.family == family)
    assert len(mine) >= 3
    monkeypatch.setattr(window_catalog, "CATALOG_DIR", tmp_path / "windows")
    monkeypatch.setattr(windows, "sweep_path", lambda f: tmp_path / f"{f}_windows.toml")
    kept = [mine[2], mine[0]]  # an axis written before the rest existed, in its own order
    for f in window_catalog.WINDOW_FAMILIES:
        listed = kept if f == family else []
        (tmp_path / f"{f}_windows.toml").write_text(
            "[axes]\nwindow = [\n" + "".join(f'    "{w}",\n' for w in listed) + "]\n")
    window_catalog.catalog.cache_clear()
    windows.write_catalog(found)
    axis = tomllib.loads((tmp_path / f"{family}_windows.toml").read_text())["axes"]["window"]
    assert axis[:2] == kept and axis[2:] == [w for w in mine if w not in kept]
    window_catalog.catalog.cache_clear()


def test_a_normalized_values_mean_is_said_as_zero_not_as_its_rounding_noise():
    """A layer norm's output has mean 0 up to noise (1e-9) that differs between machines'
    kernels; the window's draw must not carry it, or a cut elsewhere rewrites the window."""
    noisy = torch.tensor([-1.0, 1.0, 4e-9])  # mean 1.3e-9, spread 1
    assert float(noisy.mean()) != 0.0
    assert _stats(noisy)[0] == 0.0
    assert _stats(noisy + 0.25)[0] == 0.25  # a real mean is kept


def test_a_sweep_without_a_window_axis_is_refused_naming_the_field(toy_windows, tmp_path, monkeypatch):
    found, _ = toy_windows
    monkeypatch.setattr(window_catalog, "CATALOG_DIR", tmp_path / "windows")
    monkeypatch.setattr(windows, "sweep_path", lambda f: tmp_path / f"{f}_windows.toml")
    for f in window_catalog.WINDOW_FAMILIES:
        (tmp_path / f"{f}_windows.toml").write_text('[axes]\nseed = { count = 4 }\n')
    with pytest.raises(ValueError, match=r"field 'axes.window'"):
        windows.write_catalog(found)


SORTED = '''import torch


class Model(torch.nn.Module):
    def forward(self, x0):
        v0 = torch.ops.aten.sort.default(x0){stable}
        return (v0[0], v0[1],)


def example_inputs():
    return (torch.tensor({keys}),)
'''


def test_an_unstable_sort_of_equal_keys_is_refused():
    """Planted: a sort of drawn expert ids (0..3, 8 of them) has ties, and PyTorch's order
    among them is one right answer of many, so the window has no golden; distinct keys, or
    a sort asked to be stable, keep it."""
    with pytest.raises(Uncuttable, match="ties in an unstable order: aten.sort.default"):
        check(SORTED.format(stable="", keys=[3, 1, 0, 2, 1, 3, 0, 2]), 0)
    check(SORTED.format(stable="", keys=[3.5, 1.0, 0.25, 2.0]), 0)
    check(SORTED.replace("sort.default(x0)", "sort.stable(x0, stable=True)").format(stable="", keys=[3, 1, 0, 2, 1]), 0)


def test_a_program_writing_into_its_input_leaves_the_saved_input_alone(tmp_path):
    """Planted (resnet's residual `add_` into a window's input, measured as a false wrong
    value): the golden run must not change the inputs it then saves, or the compiled module
    adds the residual twice."""
    from harness.reference import write_golden

    model = tmp_path / "model.py"
    model.write_text("import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x, y):\n"
                     "        return torch.ops.aten.add_.Tensor(x, y)\n\n\n"
                     "def example_inputs():\n    return (torch.ones(3), torch.full((3,), 2.0))\n")
    inputs, outputs = write_golden(model, tmp_path / "case")
    assert np.load(inputs[0]).tolist() == [1.0, 1.0, 1.0]  # as drawn, not as the program left it
    assert np.load(outputs[0]).tolist() == [3.0, 3.0, 3.0]
