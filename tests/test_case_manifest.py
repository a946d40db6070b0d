"""case.toml validation: every malformed manifest is a CaseError naming file and field."""

from __future__ import annotations

import numpy as np
import pytest
from packaging.version import Version

from harness.case import CaseError, load_case
from helpers import compile_case, plugin_args, results_by_item, write_case

pytestmark = pytest.mark.harness


def base_manifest() -> dict:
    """A valid manifest that uses every section, so each mutation below breaks one thing."""
    return {
        "title": "a case using every section",
        "kind": "numeric",
        "issues": ["iree-org/iree#20699"],
        "prs": ["iree-org/iree#21036"],
        "source": {"mlir": "model.mlir",
                   "variant": [{"compiler": "<3.12", "mlir": "model.pre-3.12.mlir"}]},
        "matrix": {"targets": ["cpu", "hip"], "opt_levels": ["O0", "O3"],
                   "flags": ["--iree-dispatch-creation-enable-aggressive-fusion"],
                   "target_flags": {"hip": ["--iree-hip-foo=true"]}},
        "compare": {"atol": 1e-4, "rtol": 0.001,
                    "output": [{"index": 1, "mode": "indices", "input": 0, "axis": -1}]},
        "ir": [{"name": "strip", "tool": "iree-opt", "input": "checks/strip.mlir",
                "args": ["--pass-pipeline=builtin.module(canonicalize)"],
                "checks": "checks/strip.mlir", "compiler": ">=3.6"}],
        "expect": [{"targets": ["hip"], "opt_levels": ["O3"], "compiler": ">=3.4",
                    "outcome": "compile-fail", "match": "failed to bufferize",
                    "reason": "iree-org/iree#21014: still open"}],
        "history": {"bad_outcome": "compare-fail", "bad_items": ["cpu-O3"],
                    "window": [{"last_good": "3.3.0", "first_bad": "3.4.0", "last_bad": "3.5.0",
                                "first_good": "3.6.0"}]},
    }


def base_files() -> dict:
    return {"model.mlir": "func.func @main() { return }\n",
            "model.pre-3.12.mlir": "func.func @main() { return }  // old spelling\n",
            "reference.py": "def example_inputs(): return ()\ndef reference(): return ()\n",
            "checks/strip.mlir": "// CHECK: func.func\n",
            "inputs/input0.npy": np.zeros(3, np.float32),
            "expected/output0.npy": np.zeros(3, np.float32)}


def _walk(m: dict, dotted: str):
    *parents, last = dotted.split(".")
    for p in parents:
        m = m[int(p)] if isinstance(m, list) else m[p]
    return m, (int(last) if isinstance(m, list) else last)


def set_in(dotted, value):
    def mutate(m, files):
        table, key = _walk(m, dotted)
        table[key] = value
    return mutate


def del_in(dotted):
    def mutate(m, files):
        table, key = _walk(m, dotted)
        del table[key]
    return mutate


def del_file(name):
    def mutate(m, files):
        del files[name]
    return mutate


def both(*mutations):
    def mutate(m, files):
        for f in mutations:
            f(m, files)
    return mutate


def test_base_manifest_is_valid_and_parsed(tmp_path):
    manifest = write_case(tmp_path, "case-under-test", base_manifest(), base_files()) / "case.toml"
    case = load_case(manifest)
    assert case.slug == "case-under-test"
    assert case.kind == "numeric"
    assert case.targets == ("cpu", "hip") and case.opt_levels == ("O0", "O3")
    assert case.target_flags == {"hip": ("--iree-hip-foo=true",)}
    assert case.atol == pytest.approx(1e-4) and case.rtol == pytest.approx(1e-3)
    assert case.reference == manifest.parent / "reference.py"  # the default reference.py
    assert case.output_rules[0].mode == "indices" and case.output_rules[0].input == 0
    assert case.ir_checks[0].checks == manifest.parent / "checks" / "strip.mlir"
    assert case.history.status == "fixed" and case.history.bad_items == ("cpu-O3",)
    assert case.history.describe() == "3.3.0 < [3.4.0 .. 3.5.0] < 3.6.0"
    # Variants: the old spelling below 3.12, model.mlir from 3.12 on.
    assert case.mlir_for(Version("3.11.0")).name == "model.pre-3.12.mlir"
    assert case.mlir_for(Version("3.12.0")).name == "model.mlir"
    # The expectation covers hip-O3 on >=3.4 only, and no ir item (it names targets).
    assert case.expectation_for("hip", "O3", None, Version("3.5.0")).outcome == "compile-fail"
    assert case.expectation_for("hip", "O3", None, Version("3.3.0")) is None
    assert case.expectation_for("cpu", "O3", None, Version("3.5.0")) is None
    assert case.expectation_for("hip", "O0", None, Version("3.5.0")) is None
    assert case.expectation_for(None, None, "strip", Version("3.5.0")) is None


def test_golden_files_optional_when_writing_them(tmp_path):
    files = base_files()
    del files["inputs/input0.npy"], files["expected/output0.npy"]
    manifest = write_case(tmp_path, "new-case", base_manifest(), files) / "case.toml"
    with pytest.raises(CaseError, match="iree-regress golden new-case"):
        load_case(manifest)
    assert load_case(manifest, require_golden=False).kind == "numeric"


def test_a_numeric_case_may_have_no_inputs(tmp_path):
    files = base_files()
    del files["inputs/input0.npy"]
    manifest = write_case(tmp_path, "no-inputs", base_manifest(), files) / "case.toml"
    assert load_case(manifest).kind == "numeric"


def test_two_windows_for_a_bug_that_came_back(tmp_path):
    m = base_manifest()
    m["history"]["window"] = [{"first_bad": "3.0.0", "last_bad": "3.1.0", "first_good": "3.2.0"},
                              {"last_good": "3.4.0", "first_bad": "3.5.0", "last_bad": "3.13.0"}]
    case = load_case(write_case(tmp_path, "twice", m, base_files()) / "case.toml")
    assert case.history.status == "open"
    assert case.history.describe() == "<= [3.0.0 .. 3.1.0] < 3.2.0; 3.4.0 < [3.5.0 .. 3.13.0] open"
    m["history"]["window"].reverse()
    with pytest.raises(CaseError, match="history.window.1..first_bad.*release order"):
        load_case(write_case(tmp_path, "twice-backwards", m, base_files()) / "case.toml")


def test_a_window_records_what_hides_its_onset(tmp_path):
    m = base_manifest()
    m["history"]["window"] = [{"hidden_before": "3.3.0", "hidden_by": "import-fail: aten.argsort unknown",
                               "first_bad": "3.4.0", "last_bad": "3.13.0"}]
    case = load_case(write_case(tmp_path, "hidden", m, base_files()) / "case.toml")
    (w,) = case.history.windows
    assert (w.last_good, w.hidden_before, w.hidden_by) == (None, "3.3.0", "import-fail: aten.argsort unknown")
    assert case.history.describe() == "(hidden to 3.3.0) [3.4.0 .. 3.13.0] open"


def test_a_bug_reported_only_by_its_fix_pr_cites_the_pr(tmp_path):
    m = base_manifest()
    m["issues"] = []
    case = load_case(write_case(tmp_path, "pr-only", m, base_files()) / "case.toml")
    assert case.threads == ("iree-org/iree#21036",)
    m["found_by"] = "iree-regress"  # a found case's prs are context, not its citation
    assert load_case(write_case(tmp_path, "found", m, base_files()) / "case.toml").threads == ()


def test_a_symlink_out_of_the_case_is_refused(tmp_path):
    d = write_case(tmp_path, "sneaky", base_manifest(), base_files())
    (tmp_path / "secret.mlir").write_text("func.func @main() { return }\n")
    (d / "model.mlir").unlink()
    (d / "model.mlir").symlink_to(tmp_path / "secret.mlir")
    with pytest.raises(CaseError, match="source.mlir.*outside"):
        load_case(d / "case.toml")


def test_defaults_when_optional_sections_are_absent(tmp_path):
    d = compile_case(tmp_path, "minimal", matrix={})
    case = load_case(d / "case.toml")
    assert case.targets == ("cpu", "vulkan", "hip", "cuda")
    assert case.opt_levels == ("O0", "O1", "O2", "O3")
    assert case.flags == () and case.expectations == () and case.history.status == "unknown"
    assert case.function == "main" and case.atol == 1e-5
    assert case.dynamic_shapes == "dynamic_shapes"


# (id, mutation, field named in the message, other text the message must contain)
BAD = [
    ("missing-title", del_in("title"), "title", "missing"),
    ("missing-kind", del_in("kind"), "kind", "missing"),
    ("missing-issues", del_in("issues"), "issues", "missing"),
    ("missing-source", del_in("source"), "source", "missing"),
    ("empty-issues", both(set_in("issues", []), del_in("prs")), "issues", "at least one"),
    ("issue-not-a-ref", set_in("issues", ["#123"]), "issues", "owner/repo#123"),
    ("title-not-a-string", set_in("title", 3), "title", "must be str"),
    ("unknown-kind", set_in("kind", "benchmark"), "kind", "benchmark"),
    ("atol-string", set_in("compare.atol", "x"), "compare.atol", "must be int or float"),
    ("rtol-bool", set_in("compare.rtol", True), "compare.rtol", "must be"),
    ("targets-string", set_in("matrix.targets", "cpu"), "matrix.targets", "must be list"),
    ("targets-item-not-string", set_in("matrix.targets", ["cpu", 3]), "matrix.targets[1]", "3"),
    ("unknown-target", set_in("matrix.targets", ["cpu", "tpu"]), "matrix.targets", "'tpu'"),
    ("unknown-opt-level", set_in("matrix.opt_levels", ["O0", "O4"]), "matrix.opt_levels", "'O4'"),
    ("unknown-target-flags-target", set_in("matrix.target_flags.tpu", ["--x"]),
     "matrix.target_flags.tpu", "unknown target"),
    ("flags-not-strings", set_in("matrix.flags", [1]), "matrix.flags[0]", "string"),
    ("unknown-top-field", set_in("titel", "typo"), "titel", "unknown field"),
    ("unknown-matrix-field", set_in("matrix.target", ["cpu"]), "matrix.target", "unknown field"),
    ("unknown-source-field", set_in("source.model", "m.py"), "source.model", "unknown field"),
    ("unknown-frontend", set_in("source.frontend", "tflite"), "source.frontend", "unknown frontend"),
    ("onnx-frontend-of-mlir", set_in("source.frontend", "onnx"), "source.frontend", "reads a PyTorch program"),
    ("unknown-expect-field", set_in("expect.0.targetz", ["hip"]), "expect[0].targetz",
     "unknown field"),
    ("unknown-compare-output-field", set_in("compare.output.0.dim", 1), "compare.output[0].dim",
     "unknown field"),
    ("bad-outcome", set_in("expect.0.outcome", "compile-broken"), "expect[0].outcome",
     "compile-broken"),
    ("bad-outcome-stage", set_in("expect.0.outcome", "link-fail"), "expect[0].outcome",
     "link-fail"),
    ("outcome-pass", set_in("expect.0.outcome", "pass"), "expect[0].outcome", "'pass'"),
    ("missing-outcome", del_in("expect.0.outcome"), "expect[0].outcome", "missing"),
    ("missing-reason", del_in("expect.0.reason"), "expect[0].reason", "missing"),
    ("expect-unknown-target", set_in("expect.0.targets", ["gpu"]), "expect[0].targets", "'gpu'"),
    ("expect-unknown-level", set_in("expect.0.opt_levels", ["O9"]), "expect[0].opt_levels",
     "'O9'"),
    ("expect-unknown-ir-check", set_in("expect.0.ir", ["nope"]), "expect[0].ir", "'nope'"),
    ("expect-bad-regex", set_in("expect.0.match", "failed ("), "expect[0].match", "regex"),
    ("history-bad-outcome", set_in("history.bad_outcome", "compile-oops"),
     "history.bad_outcome", "compile-oops"),
    ("expect-bad-range", set_in("expect.0.compiler", "3.4"), "expect[0].compiler",
     "not a version range"),
    ("expect-bad-range-op", set_in("expect.0.compiler", "=>3.4"), "expect[0].compiler",
     "not a version range"),
    ("variant-bad-range", set_in("source.variant.0.compiler", "banana"),
     "source.variant[0].compiler", "not a version range"),
    ("ir-bad-range", set_in("ir.0.compiler", "newer than 3"), "ir[0].compiler",
     "not a version range"),
    ("history-bad-version", set_in("history.window.0.last_bad", "three"),
     "history.window[0].last_bad", "not a release version"),
    ("history-bad-status", set_in("history.status", "maybe"), "history.status", "'maybe'"),
    ("history-status-contradicts-window", set_in("history.status", "open"), "history.status",
     "the windows say 'fixed'"),
    ("history-window-order", set_in("history.window.0.first_good", "3.5.0"),
     "history.window[0].first_bad", "must rise"),
    ("history-window-missing-end", del_in("history.window.0.last_bad"), "history.window[0].last_bad",
     "missing"),
    ("history-hidden-without-why", set_in("history.window.0.hidden_before", "3.3.5"),
     "history.window[0].hidden_by", "say what hides the bug"),
    ("history-hidden-after-onset", both(set_in("history.window.0.hidden_before", "3.4.0"),
                                        set_in("history.window.0.hidden_by", "import-fail")),
     "history.window[0].first_bad", "must rise"),
    ("history-last-good-is-first-bad", set_in("history.window.0.last_good", "3.4.0"),
     "history.window[0].first_bad", "must rise"),
    ("history-old-keys", set_in("history.last_bad", "3.5.0"), "history.last_bad", "unknown field"),
    ("history-window-without-outcome", del_in("history.bad_outcome"), "history.bad_outcome",
     "what the bug's outcome is"),
    ("atol-negative", set_in("compare.atol", -1.0), "compare.atol", "finite number >= 0"),
    ("rtol-nan", set_in("compare.rtol", float("nan")), "compare.rtol", "finite number >= 0"),
    ("issue-with-newline", set_in("issues", ["iree-org/iree#1\n"]), "issues", "owner/repo#123"),
    ("mlir-outside-case", set_in("source.mlir", "../../../etc/passwd"), "source.mlir", "outside"),
    ("mlir-absolute", set_in("source.mlir", "/etc/passwd"), "source.mlir", "outside"),
    ("checks-outside-case", set_in("ir.0.checks", "../elsewhere.mlir"), "ir[0].checks", "outside"),
    ("unknown-family", set_in("family", "sorting"), "family", "'sorting'"),
    ("missing-model-file", set_in("source.mlir", "nope.mlir"), "source.mlir", "'nope.mlir'"),
    ("missing-variant-file", del_file("model.pre-3.12.mlir"), "source.variant[0].mlir",
     "does not exist"),
    ("missing-checks-file", set_in("ir.0.checks", "checks/missing.mlir"), "ir[0].checks",
     "'checks/missing.mlir'"),
    ("missing-ir-input-file", set_in("ir.0.input", "gone.mlir"), "ir[0].input", "'gone.mlir'"),
    ("missing-reference", del_file("reference.py"), "source.reference", "reference.py"),
    ("named-reference-missing", set_in("source.reference", "ref.py"), "source.reference",
     "'ref.py'"),
    ("torch-and-mlir", both(set_in("source.torch", "model.mlir")), "source.torch",
     "exactly one"),
    ("neither-torch-nor-mlir", del_in("source.mlir"), "source.torch", "exactly one"),
    ("source-not-a-table", set_in("source", "model.mlir"), "source", "must be a table"),
    ("compare-mode", set_in("compare.output.0.mode", "bitwise"), "compare.output[0].mode",
     "'bitwise'"),
    ("indices-without-input", del_in("compare.output.0.input"), "compare.output[0].input",
     "indices"),
    ("output-index-missing", del_in("compare.output.0.index"), "compare.output[0].index",
     "missing"),
    ("numeric-without-golden", del_file("expected/output0.npy"), "source", "no golden outputs"),
    ("numeric-without-golden", del_file("expected/output0.npy"), "source",
     "no golden outputs"),
    ("dynamic-shapes-not-a-string", set_in("source.dynamic_shapes", ["x"]),
     "source.dynamic_shapes", "must be str"),
    ("ir-unknown-tool", set_in("ir.0.tool", "mlir-opt"), "ir[0].tool", "'mlir-opt'"),
    ("ir-missing-name", del_in("ir.0.name"), "ir[0].name", "missing"),
    ("ir-duplicate-names", lambda m, f: m["ir"].append(dict(m["ir"][0])), "ir", "unique"),
    ("ir-kind-without-checks", both(set_in("kind", "ir"), del_in("ir"),
                                    del_in("expect.0.targets"), del_in("expect.0.opt_levels")),
     "ir", "at least one"),
]


@pytest.mark.parametrize("mutate, field, text", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_malformed_manifest_names_file_and_field(tmp_path, mutate, field, text):
    m, files = base_manifest(), base_files()
    mutate(m, files)
    manifest = write_case(tmp_path, "broken", m, files) / "case.toml"
    with pytest.raises(CaseError) as err:
        load_case(manifest)
    message = str(err.value)
    assert str(manifest) in message
    assert f"field '{field}'" in message
    assert text in message


def test_malformed_pr_names_the_prs_field(tmp_path):
    m, files = base_manifest(), base_files()
    m["prs"] = ["not-a-pr"]
    manifest = write_case(tmp_path, "broken", m, files) / "case.toml"
    with pytest.raises(CaseError) as err:
        load_case(manifest)
    assert "field 'prs'" in str(err.value)


def test_invalid_toml_names_the_file(tmp_path):
    d = tmp_path / "broken"
    d.mkdir()
    (d / "case.toml").write_text('title = "unterminated\nkind = "compile"\n')
    with pytest.raises(CaseError) as err:
        load_case(d / "case.toml")
    assert str(d / "case.toml") in str(err.value)
    assert "TOML" in str(err.value)
    assert "line 1" in str(err.value)  # tomllib's position survives


# ----------------------------------------------------------------- end to end (pytest)

def test_malformed_case_is_a_collection_error_and_the_rest_still_runs(pytester, fake_tools):
    cases = pytester.path / "cases"
    compile_case(cases, "a-good-case", "ok", matrix={"targets": ["cpu"], "opt_levels": ["O0", "O1"]})
    bad = compile_case(cases, "b-bad-case", "ok",
                       matrix={"targets": ["cpu", "tpu"], "opt_levels": ["O0"]})
    compile_case(cases, "c-good-case", "ok")
    reports = pytester.path / "reports"
    result = pytester.runpytest(*plugin_args(fake_tools, pytester.path / "cache", reports), "cases")
    result.assert_outcomes(passed=3, errors=1)
    assert result.ret != 0
    out = result.stdout.str()
    assert "malformed case" in out
    assert f"{bad / 'case.toml'}: field 'matrix.targets'" in out
    assert "'tpu'" in out
    _, items = results_by_item(reports)
    # The case that did not load is a result too: no case ends without a line.
    assert set(items) == {"a-good-case::cpu-O0", "a-good-case::cpu-O1", "c-good-case::cpu-O0",
                          "b-bad-case::(collect)"}
    assert items.pop("b-bad-case::(collect)")["outcome"] == "collect-error"
    assert {r["outcome"] for r in items.values()} == {"pass"}


def test_invalid_toml_is_a_collection_error(pytester, fake_tools):
    cases = pytester.path / "cases"
    compile_case(cases, "good", "ok")
    (cases / "garbled").mkdir()
    (cases / "garbled" / "case.toml").write_text("title = [\n")
    result = pytester.runpytest(*plugin_args(fake_tools, pytester.path / "cache",
                                             pytester.path / "reports"), "cases")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*garbled/case.toml: not valid TOML*"])
