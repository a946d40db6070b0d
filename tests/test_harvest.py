"""`iree-regress harvest`: saved texts of real upstream threads (tests/threads/), read into
a program, a command, a target and the quoted failure; and one harvest end to end over
fake releases (the scan and write are prove --scan --write's, tested in test_history)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main as cli_main
from harness.harvest import HarvestError, choose_program, plan_case, read_thread, slug_of, target_and_flags
from test_history import FAKE_HEADER, install_fake, releases  # noqa: F401  (fake releases: 3.3.0-3.4.0 fail to bufferize)

THREADS = Path(__file__).resolve().parent / "threads"

pytestmark = pytest.mark.harness


def test_a_compile_error_thread_gives_its_program_command_target_and_error():
    t = read_thread((THREADS / "iree-16780-uniform-dequantize.md").read_text())
    assert (t.title, t.issue) == ("uniform_dequantize is marked illegal for llvm-cpu", "iree-org/iree#16780")
    program, origin = choose_program(t, {})
    assert '"stablehlo.uniform_dequantize"' in program and origin == "the thread's MLIR block"
    target, flags, guessed, _ = target_and_flags(t.commands[0])
    assert (target, flags, guessed) == ("cpu", [], "")  # -o and the input file dropped
    assert t.quoted.startswith("failed to legalize operation 'stablehlo.uniform_dequantize'")
    assert slug_of(t.title) == "uniform-dequantize-marked-illegal-llvm-cpu"


def test_a_program_only_attached_is_asked_for_never_guessed():
    t = read_thread((THREADS / "iree-18845-attachment-only.md").read_text(), repo="iree-org/iree")
    assert t.issue == "iree-org/iree#18845" and t.title.startswith("failed to legalize operation")
    with pytest.raises(HarvestError, match=r"only linked.*user-attachments/files/17455304.*--attach"):
        choose_program(t, {})
    text, origin = choose_program(t, {"model.mlir": "func.func @main() { return }\n"})
    assert origin == "--attach model.mlir"
    target, flags, _, _ = target_and_flags(t.commands[0])
    assert (target, flags) == ("cpu", [])  # --iree-llvmcpu-target-cpu=host is the profile's


def test_gh_output_takes_its_repository_from_the_command_line(capsys):
    """gh prints `number: 18845` and no URL: --issue owner/repo completes it."""
    assert cli_main(["harvest", str(THREADS / "iree-18845-attachment-only.md"), "--issue", "iree-org/iree"]) == 2
    assert "only linked" in capsys.readouterr().err


def test_a_backend_the_harness_does_not_run_is_said_as_a_guess():
    t = read_thread((THREADS / "iree-10639-tosa-vmvx.md").read_text())
    target, flags, guessed, _ = target_and_flags(t.commands[0])
    assert target == "cpu" and "no target the harness runs" in guessed
    assert flags == ["--iree-input-type=tosa"]  # kept: it is about the program


def test_a_crash_thread_is_scanned_for_a_crash_named_by_its_function():
    """iree-org/iree#23277 reports a crash and quotes no error line: the scan looks for
    compile-crash, and a free function's crash is matched by the function, not by its
    namespace (a SIGFPE anywhere in iree_compiler would match that)."""
    from harness.harvest import bug_outcome
    from harness.history.message import _error_line as message_pattern

    t = read_thread((THREADS / "iree-23277-attention-crash.md").read_text())
    assert (t.issue, bug_outcome(t), t.quoted) == ("iree-org/iree#23277", "compile-crash", "")
    assert "iree_linalg_ext.attention" in choose_program(t, {})[0]
    text = "crashed (SIGFPE): at mlir::iree_compiler::limitVectorTileSizes(llvm::SmallVectorImpl<long>&, long)"
    assert message_pattern(text).endswith("limitVectorTileSizes")
    method = "crashed (SIGSEGV): at mlir::(anonymous namespace)::FoldFoo::matchAndRewrite(x)"
    assert message_pattern(method).endswith("FoldFoo::")


def test_two_programs_and_no_issue_are_asked_about():
    two = "# t\n```mlir\nfunc.func @a() { return }\n```\n```mlir\nfunc.func @b() { return }\n```\n"
    with pytest.raises(HarvestError, match="2 MLIR blocks"):
        choose_program(read_thread(two), {})
    from harness.harvest import check_issue

    with pytest.raises(HarvestError, match="--issue owner/repo#N"):
        check_issue(read_thread(two).issue)


THREAD = """# failed to bufferize a foo on llvm-cpu

https://github.com/iree-org/iree/issues/4242

```mlir
func.func @main() {
  return
}
```

```
$ iree-compile foo.mlir --iree-hal-target-backends=llvm-cpu --iree-opt-level=O0 -o foo.vmfb
m.mlir:1:1: error: failed to bufferize op 'foo'
```
"""


def test_harvest_end_to_end_writes_a_proven_case(releases, tmp_path, capsys):
    """Over fake releases (3.3.0-3.4.0 fail to bufferize): the case lands in cases/ with its
    window, the thread's issue and the derived message, and lint and prove accept it. A
    thread that no release reproduces writes nothing."""
    (tmp_path / "thread.md").write_text(THREAD)
    assert cli_main(["harvest", "thread.md"]) == 0
    out = capsys.readouterr().out
    case = tmp_path / "cases" / "failed-bufferize-foo-llvm-cpu"
    text = (case / "case.toml").read_text()
    assert 'issues = ["iree-org/iree#4242"]' in text and 'flags = ["--iree-opt-level=O0"]' in text
    assert 'first_bad = "3.3.0"' in text and 'bad_match = "failed to bufferize' in text
    assert "wrote cases/failed-bufferize-foo-llvm-cpu" in out
    assert cli_main(["lint", "failed-bufferize-foo-llvm-cpu"]) == 0
    assert cli_main(["prove", "failed-bufferize-foo-llvm-cpu"]) == 0
    # nothing reproduces: no case
    (tmp_path / "none.md").write_text(THREAD.replace("4242", "4343").replace("bufferize a foo", "no bug here")
                                      .replace("func.func @main() {", "func.func @main() { // fine"))
    for build in releases.builds.iterdir():
        (build / "behaviour").write_text(f"{build.name} ok\n")
    assert cli_main(["harvest", "none.md", "--slug", "no-bug"]) == 1
    assert not (tmp_path / "cases" / "no-bug").exists()


def test_an_iree_opt_thread_is_an_ir_case_and_its_version_is_read():
    """iree-org/iree#22976: a pass's assertion in iree-opt, the program in generic form."""
    from harness.harvest import bug_outcome, pass_args

    t = read_thread((THREADS / "iree-22976-iree-opt-assertion.md").read_text())
    assert t.issue == "iree-org/iree#22976" and not t.commands
    assert pass_args(t.opt_commands[0]) == (["--iree-input-conversion-demote-f64-to-f32"], [])
    assert bug_outcome(t) == "ir-crash"
    assert choose_program(t, {})[0].startswith('"builtin.module"() ({')  # generic form, one block
    assert t.version == "iree-org/iree@d4b9bb0150db"  # the commit under "Version information"


def test_diagnostics_are_not_a_program_and_an_inline_command_ends_at_its_backtick():
    """iree-org/iree#17683: the output block echoes the program under its error; the prose
    quotes the command in backticks."""
    t = read_thread((THREADS / "iree-17683-fixed-before-2.9.md").read_text())
    assert len(t.programs) == 1 and "linalg.matmul" in t.programs[0]
    assert t.quoted.startswith("One or more operations with large vector sizes (8192 bytes)")
    assert t.commands[0] == ["iree-compile", "--iree-hal-target-backends=llvm-cpu", "my_func.mlir"]
    assert read_thread((THREADS / "iree-10639-tosa-vmvx.md").read_text()).quoted == \
        "failed to legalize operation 'arith.extsi' that was explicitly marked illegal"  # `error: ...`


# iree-opt over fake releases: the bug's releases abort in the pass, the others print the program.
FAKE_OPT = FAKE_HEADER + """\
if mode == "bug":
    print("iree-opt: Casting.h:560: Assertion `isa<To>(Val)' failed.", file=sys.stderr)
    sys.stderr.flush(); os.kill(os.getpid(), signal.SIGABRT)
if mode == "other":
    print("m.mlir:1:1: error: unknown op 'old.spelling'", file=sys.stderr); sys.exit(1)
print('module {{\\n  llvm.func @test() -> f32\\n}}')
"""


def test_harvest_of_an_iree_opt_thread_writes_a_proven_ir_case(releases, tmp_path, capsys):
    install_fake(releases.builds, ("iree-opt",), FAKE_OPT)
    thread = tmp_path / "thread.md"
    thread.write_text((THREADS / "iree-22976-iree-opt-assertion.md").read_text())
    assert cli_main(["harvest", str(thread), "--slug", "demote-f64-llvm-func"]) == 0
    out = capsys.readouterr().out
    assert "an IR case: iree-opt --iree-input-conversion-demote-f64-to-f32 must complete" in out
    assert "the reporter ran: iree-org/iree@d4b9bb0150db" in out
    case = tmp_path / "cases" / "demote-f64-llvm-func"
    text = (case / "case.toml").read_text()
    assert 'kind = "ir"' in text and 'args = ["--iree-input-conversion-demote-f64-to-f32"]' in text
    assert 'first_bad = "3.3.0"' in text and 'last_bad = "3.4.0"' in text and "ir-crash" in text
    # the crash's own words, not the signal alone (which any crash matches)
    assert 'bad_match = "crashed \\\\(SIGABRT\\\\)(?s:.*)isa<To>\\\\(Val\\\\)"' in text
    assert "[matrix]" not in text and "CHECK: @test" in (case / "checks" / "passes.mlir").read_text()
    assert cli_main(["lint", "demote-f64-llvm-func"]) == 0
    assert cli_main(["prove", "demote-f64-llvm-func"]) == 0


def test_a_thread_no_release_reproduces_is_written_only_with_keep_and_never_proven(releases, tmp_path, capsys):
    """iree-org/iree#17683 was fixed before 2.9.0: no release shows it."""
    for build in releases.builds.iterdir():
        (build / "behaviour").write_text(f"{build.name} ok\n")
    thread = tmp_path / "thread.md"
    thread.write_text((THREADS / "iree-17683-fixed-before-2.9.md").read_text())
    assert cli_main(["harvest", str(thread), "--slug", "i32-matmul"]) == 1
    assert "--keep writes it as unreproduced" in capsys.readouterr().out
    assert not (tmp_path / "cases" / "i32-matmul").exists()
    assert cli_main(["harvest", str(thread), "--slug", "i32-matmul", "--keep"]) == 0
    text = (tmp_path / "cases" / "i32-matmul" / "case.toml").read_text()
    assert 'status = "unreproduced"' in text and "no release 3.0.0..3.5.0 showed its failure" in text
    assert cli_main(["lint", "i32-matmul"]) == 0
    capsys.readouterr()
    assert cli_main(["prove", "i32-matmul"]) == 1
    assert "unreproduced" in capsys.readouterr().out


def test_of_several_programs_the_one_named_as_the_commands_input_is_taken():
    text = ("# two programs\n\nThe failing one (`bad.mlir`):\n```mlir\nfunc.func @bad() { return }\n```\n"
            "and the one that works, good.mlir:\n```mlir\nfunc.func @good() { return }\n```\n"
            "```\niree-compile bad.mlir --iree-hal-target-backends=llvm-cpu -o x.vmfb\n```\n")
    program, origin = choose_program(read_thread(text), {})
    assert "@bad" in program and origin == "MLIR block 1 of 2, named bad.mlir as the command's input"
    with pytest.raises(HarvestError, match="2 MLIR blocks"):  # a command that names neither: asked
        choose_program(read_thread(text.replace("iree-compile bad.mlir", "iree-compile other.mlir")), {})


# A fake compiler whose failure depends on the program: "bad.op" fails to bufferize on
# the releases whose behaviour is "bug" (3.3.0-3.4.0), "odd.op" fails otherwise on 3.1.0-3.2.0.
BLOCK_TOOL = FAKE_HEADER + """\
program = "".join(open(a).read() for a in sys.argv[1:] if a.endswith(".mlir") and os.path.exists(a))
if "bad.op" in program and mode == "bug":
    print("m.mlir:1:1: error: failed to bufferize op 'foo'", file=sys.stderr); sys.exit(1)
if "odd.op" in program and mode == "other":
    print("m.mlir:2:3: error: 'odd.op' op operand #0 must be ranked", file=sys.stderr); sys.exit(1)
out = sys.argv[sys.argv.index("-o") + 1]
open(out, "wb").write(b"PK\\x03\\x04" + b"\\0" * 64)
"""

BLOCKS_THREAD = """# Two programs, neither named

https://github.com/iree-org/iree/issues/4545

The original program:
```mlir
func.func @original() {{
  {first}
  return
}}
```
After reducing it:
```mlir
func.func @reduced() {{
  {second}
  return
}}
```
```
iree-compile model.mlir --iree-hal-target-backends=llvm-cpu -o m.vmfb
```
{quote}
"""


@pytest.mark.parametrize("first, second, quote, chosen", [
    ("// works", '"bad.op"() : () -> ()', "", "@reduced"),  # only the second reproduces
    ('"bad.op"() : () -> ()\n  "x.y"() : () -> ()', '"bad.op"() : () -> ()', "", "@reduced"),  # alike: smaller
    ('"odd.op"() : () -> ()', '"bad.op"() : () -> ()', "error: failed to bufferize op 'foo'", "@reduced"),
    ('"bad.op"() : () -> ()', '"odd.op"() : () -> ()', "", None),  # differently, no quote: asked
])
def test_of_several_unnamed_blocks_the_one_that_reproduces_is_the_case(releases, tmp_path, capsys, first, second,
                                                                        quote, chosen):
    """Each block is made and scanned (over fake releases); the case is the block that
    reproduces; two that fail alike give the smaller; two that fail differently give the
    one printing what the thread quotes, else a clear question and nothing written."""
    install_fake(releases.builds, ("iree-compile", "iree-opt", "iree-run-module"), BLOCK_TOOL)
    (tmp_path / "thread.md").write_text(BLOCKS_THREAD.format(first=first, second=second, quote=quote))
    code = cli_main(["harvest", "thread.md", "--slug", "two-blocks"])
    out, err = capsys.readouterr()
    case = tmp_path / "cases" / "two-blocks"
    if chosen is None:
        assert code == 2 and not case.exists(), out + err
        assert "2 of the thread's MLIR blocks reproduce, differently" in err and "--attach" in err
        return
    assert code == 0, out + err
    assert chosen in (case / "model.mlir").read_text()
    assert "MLIR block 2 of 2" in (case / "README.md").read_text()
    assert cli_main(["lint", "two-blocks"]) == 0 and cli_main(["prove", "two-blocks"]) == 0


def test_no_quote_and_no_single_failure_takes_the_newest_releases_failure_said_as_a_guess(releases, tmp_path,
                                                                                         capsys):
    """An open bug whose thread quotes nothing, on releases that first cannot read the
    program (another message) and then fail the bug's way: the bug is what the newest
    release prints, said as a guess, and the older failure is hidden, never the bug."""
    for version, mode in {"3.0.0": "other", "3.1.0": "other", "3.2.0": "bug", "3.3.0": "bug", "3.4.0": "bug",
                          "3.5.0": "bug"}.items():
        (releases.builds / version / "behaviour").write_text(f"{version} {mode}\n")
    (tmp_path / "thread.md").write_text(THREAD.replace("m.mlir:1:1: error: failed to bufferize op 'foo'\n", ""))
    assert cli_main(["harvest", "thread.md", "--slug", "open-bug"]) == 0
    out = capsys.readouterr().out
    assert "its bug is taken to be the newest release's failure: compile-fail /failed to bufferize op 'foo'/" in out
    text = (tmp_path / "cases" / "open-bug" / "case.toml").read_text()
    assert 'hidden_before = "3.1.0"' in text and 'first_bad = "3.2.0"' in text and "first_good" not in text
    assert cli_main(["lint", "open-bug"]) == 0 and cli_main(["prove", "open-bug"]) == 0
    # A thread that reports a crash: the releases' diagnostics are not its bug (a fix that
    # makes the newest releases reject the program, as iree-org/iree#22976's did)
    (tmp_path / "crash.md").write_text(THREAD.replace("m.mlir:1:1: error: failed to bufferize op 'foo'\n",
                                                      "Stack dump:\n").replace("4242", "4747"))
    assert cli_main(["harvest", "crash.md", "--slug", "crash-bug"]) == 1
    assert "taken to be the newest" not in capsys.readouterr().out
    assert not (tmp_path / "cases" / "crash-bug").exists()


def test_several_unnamed_blocks_need_a_scan(tmp_path, capsys):
    """Which block reproduces only a scan tells: without one (--no-scan, --keep) harvest asks."""
    from harness.harvest import blocks_to_try

    text = BLOCKS_THREAD.format(first="", second="// x", quote="")
    t = read_thread(text)
    assert blocks_to_try(t, {}) == [0, 1] and blocks_to_try(t, {"x.mlir": "func.func @x() { return }"}) == []
    twice = "# t\n" + "```mlir\nfunc.func @a() { return }\n```\n" * 2
    assert blocks_to_try(read_thread(twice), {}) == [0]  # the same block twice: tried once
    (tmp_path / "thread.md").write_text(text)
    for option in ("--no-scan", "--keep"):
        assert cli_main(["harvest", str(tmp_path / "thread.md"), option]) == 2
        assert "only a scan tells which reproduces" in capsys.readouterr().err


TORCH_THREAD = '''# Wrong results for a matmul exported with iree-turbine on llvm-cpu

https://github.com/iree-org/iree/issues/4444

The results mismatch PyTorch:

```python
import torch
import iree.turbine.aot as aot

class MatMul(torch.nn.Module):
    def forward(self, x, y):
        return torch.relu(x @ y)

x = torch.randn(2, 3)
y = torch.randn(3, 4)
exported = aot.export(MatMul(), x, y)
exported.save_mlir("mm.mlir")
```
'''


def test_a_pytorch_snippet_becomes_model_py_whose_golden_pytorch_makes(tmp_path):
    """No MLIR block: the snippet that exports its module becomes model.py (its code up to
    the export, `Model` and `example_inputs()` as the export was called), and the thread's
    words make the bug wrong numbers. The model.py runs as the suite runs it (sandboxed)."""
    from harness.harvest import bug_outcome, torch_model, torch_program
    from harness.item import settings_with
    from harness.stages import write_golden_sandboxed
    from harness.toolchain import resolve

    t = read_thread(TORCH_THREAD)
    assert (len(t.programs), len(t.torch_snippets), bug_outcome(t)) == (0, 1, "compare-fail")
    model, origin = torch_program(t)
    assert origin == "the thread's PyTorch snippet 1 of 1 (model.py)"
    assert "save_mlir" not in model and model.endswith("def example_inputs():\n    return (x, y,)\n")
    (tmp_path / "case").mkdir()
    (tmp_path / "case" / "model.py").write_text(model)
    made = write_golden_sandboxed(tmp_path / "case" / "model.py", tmp_path / "case", settings_with(resolve()))
    assert made.ok, made.detail
    assert len(list((tmp_path / "case" / "inputs").glob("*.npy"))) == 2
    # torch.export.export(model, (x, y)) and args=(...) spell the same inputs; no export: asked
    assert torch_model(t.torch_snippets[0].replace("aot.export(MatMul(), x, y)",
                                                   "torch.export.export(MatMul(), (x, y))")).endswith("(x, y,)\n")
    with pytest.raises(HarvestError, match="defines M but exports nothing"):
        torch_model("import torch\nclass M(torch.nn.Module):\n    pass\n")


def test_a_real_pytorch_thread_whose_module_is_not_exported_runs_on_the_shape_its_export_states(tmp_path):
    """iree-org/iree#20819 (case concat-results-swapped-static), as stored: the module is
    there, the script that exported it is cut short, and a later chunk prints the export's
    IR, whose signature says the input: 1x2 f32. model.py runs on seeded inputs of that
    shape (sandboxed, as the suite runs it). Without the printed IR, it is asked about."""
    from harness.harvest import bug_outcome, torch_program
    from harness.item import settings_with
    from harness.stages import write_golden_sandboxed
    from harness.toolchain import resolve

    text = (THREADS / "iree-20819-torch-module-and-its-export.md").read_text()
    t = read_thread(text)
    assert (t.issue, len(t.programs), len(t.torch_snippets)) == ("iree-org/iree#20819", 0, 1)
    assert bug_outcome(t) == "compare-fail"  # "Produces incorrect results"
    assert t.torch_signatures == [[((1, 2), "f32")]]
    model, origin = torch_program(t)
    assert origin.endswith("its inputs are seeded, of the shapes 1x2xf32 the thread's exported IR states)")
    (tmp_path / "model.py").write_text(model)
    made = write_golden_sandboxed(tmp_path / "model.py", tmp_path, settings_with(resolve()))
    assert made.ok, made.detail
    import numpy as np

    x = np.load(tmp_path / "inputs" / "input0.npy")
    out = np.load(tmp_path / "expected" / "output0.npy")
    assert x.shape == (1, 2) and out.tolist() == [[x[0, 1], 0.0]]  # [c, b]: the bug swaps them
    cut = read_thread(text[:text.index("[turn 0 by javidcf, continued]")])
    with pytest.raises(HarvestError, match="defines IreeBadConcatenation but exports nothing"):
        torch_program(cut)
    two = read_thread(text.replace("!torch.vtensor<[1,2],f32>) ->", "!torch.vtensor<[1,2],f32>, %arg1: "
                                                                     "!torch.vtensor<[1],f32>) ->", 1))
    with pytest.raises(HarvestError, match="exports nothing"):  # a signature that does not fit forward
        torch_program(two)


def test_check_ops_state_the_golden_and_the_program_returns_what_they_checked(tmp_path):
    """iree-org/iree#20163: an iree-check-module test (PyPI's runtime has no
    iree-check-module). The program returns the checked value; the check's 0.5 and atol
    0.01 are the golden, made by PyTorch from reference.py; the issue's generic CPU is
    kept, and the command ends before `&& iree-check-module ...`."""
    from harness.harvest import stated_reference, stated_results

    t = read_thread((THREADS / "iree-20163-check-op-stated-result.md").read_text())
    program, stated = stated_results(choose_program(t, {})[0])
    assert "check." not in program and "func.func @test_trunc_f32_f16() -> (tensor<1xf16>) {" in program
    assert "return %result : tensor<1xf16>" in program
    assert [(s.value, s.type, s.literal, s.atol) for s in stated] == [("%result", "tensor<1xf16>", "[0.5]", 0.01)]
    assert target_and_flags(t.commands[0]) == ("cpu", ["--iree-llvmcpu-target-cpu=generic"], "", [])
    namespace = {}
    exec(stated_reference(stated), namespace)
    (out,) = namespace["reference"]()
    assert out.tolist() == [0.5] and str(out.dtype) == "torch.float16" and namespace["example_inputs"]() == ()
    with pytest.raises(HarvestError, match="not in one function without arguments"):
        stated_results(program.replace("@test_trunc_f32_f16()", "@test_trunc_f32_f16(%a: tensor<1xf32>)")
                       + "  check.expect_eq_const(%result, dense<[1.0]> : tensor<1xf16>) : tensor<1xf16>\n")


FAKE_GH = """#!/bin/sh
# gh issue view N -R owner/repo --comments, as gh prints it (a saved thread's body)
[ "$1 $2 $4 $5" = "issue view -R iree-org/iree" ] && [ "$6" = "--comments" ] || {{ echo "unexpected: $*" >&2; exit 2; }}
[ "$3" = "16780" ] || {{ echo "GraphQL: Could not resolve to an issue with the number of $3." >&2; exit 1; }}
printf 'title:\\t%s\\nnumber:\\t%s\\n--\\n' "uniform_dequantize is marked illegal for llvm-cpu" "$3"
cat {body}
"""


def test_without_thread_the_issue_is_fetched_with_gh(tmp_path, monkeypatch, capsys):
    """`harvest --issue owner/repo#N` alone runs gh (here a fake printing a saved thread in
    gh's format); gh missing or failing is one line, nothing written."""
    import os

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH.format(body=THREADS / "iree-16780-uniform-dequantize.md"))
    (bin_dir / "gh").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.chdir(tmp_path)
    assert cli_main(["harvest", "--issue", "iree-org/iree#16780", "--no-scan", "--slug", "uniform-deq"]) == 0
    assert 'issues = ["iree-org/iree#16780"]' in (tmp_path / "cases" / "uniform-deq" / "case.toml").read_text()
    assert cli_main(["harvest", "--issue", "iree-org/iree#1"]) == 2
    assert "gh issue view 1 -R iree-org/iree: GraphQL: Could not resolve" in capsys.readouterr().err
    monkeypatch.setenv("PATH", "/nonexistent")
    assert cli_main(["harvest", "--issue", "iree-org/iree#16780"]) == 2
    assert "fetching an issue needs gh" in capsys.readouterr().err


RUN_THREAD = """# iree-run-module fails on a valid input for a dynamic reshape on llvm-cpu

https://github.com/iree-org/iree/issues/4545

```mlir
func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  return %arg0 : tensor<?xf32>
}
```

```
iree-compile --iree-hal-target-backends=llvm-cpu repro.mlir -o repro.vmfb
iree-run-module --module=repro.vmfb --device=local-task --function=main --input="4xf32=1 2 3 4"
```
gives `INVALID_ARGUMENT; tensor shape mismatch` at run time.
"""

# Over fake releases: every compile succeeds; the bug's releases' runtime rejects the input.
FAKE_RUN = FAKE_HEADER + """\
if os.path.basename(sys.argv[0]) == "iree-compile":
    open(sys.argv[sys.argv.index("-o") + 1], "wb").write(b"PK\\x03\\x04" + b"\\0" * 64); sys.exit(0)
if mode == "bug":
    print("iree/runtime/src/iree/hal/buffer_view.c:42: INVALID_ARGUMENT; tensor shape mismatch", file=sys.stderr)
    sys.exit(1)
print("EXEC @main")
"""


def test_a_run_thread_becomes_a_run_case_on_the_values_it_ran(releases, tmp_path, capsys):
    """An iree-run-module failure: the case runs the module on the thread's --input values,
    with no golden (kind run), and its window is the releases whose run fails that way."""
    import numpy as np

    install_fake(releases.builds, ("iree-compile", "iree-run-module"), FAKE_RUN)
    (tmp_path / "thread.md").write_text(RUN_THREAD)
    assert cli_main(["harvest", "thread.md", "--slug", "run-shape"]) == 0
    out = capsys.readouterr().out
    assert "a run case: 1 input(s) from the thread's iree-run-module command, no golden" in out
    assert "the thread quotes: INVALID_ARGUMENT; tensor shape mismatch; it reports run-fail" in out
    case = tmp_path / "cases" / "run-shape"
    text = (case / "case.toml").read_text()
    assert 'kind = "run"' in text and 'bad_outcome = "run-fail"' in text
    assert 'first_bad = "3.3.0"' in text and 'last_bad = "3.4.0"' in text and "INVALID_ARGUMENT" in text
    assert np.load(case / "inputs" / "input0.npy").tolist() == [1.0, 2.0, 3.0, 4.0]
    assert not (case / "expected").exists() or not list((case / "expected").iterdir())
    assert cli_main(["lint", "run-shape"]) == 0
    assert cli_main(["prove", "run-shape"]) == 0


def test_a_real_run_time_failure_thread_is_read_as_a_run_case():
    """iree-org/iree#20774: no compile command, two iree-run-module runs (the failing f64 one
    first), the runtime's status quoted, the version under "Version information"."""
    from harness.harvest import bug_outcome, fails_at_run_time, run_inputs

    t = read_thread((THREADS / "iree-20774-run-time-status.md").read_text())
    assert (t.issue, len(t.programs), t.commands, t.version) == ("iree-org/iree#20774", 1, [], "3.3.0")
    assert fails_at_run_time(t) and bug_outcome(t) == "run-fail"
    assert t.quoted.startswith("INVALID_ARGUMENT; input0 element type mismatch; expected f32")
    inputs = run_inputs(t.run_commands[0])
    assert [(str(a.dtype), a.tolist()) for a in inputs] == [("float64", [1, 2, 3, 4]), ("float64", [10, 20, 30, 40])]


def test_a_real_two_block_iree_opt_thread_quoting_no_error_is_read():
    """iree-org/iree#23046 (case gpu-materialize-set-encoding-1d-expand-shape), as stored:
    two MLIR blocks, the second (a matvec) cut short by the search tool, so the first (the
    "smaller repro") is the program; an inline iree-opt pipeline; no error quoted, so the
    releases decide (on the real releases: the newest one's failure, said as a guess)."""
    from harness.harvest import bug_outcome, pass_args, plan_case

    text = (THREADS / "iree-23046-two-blocks-iree-opt-open.md").read_text()
    assert text.count("```mlir") == 2
    t = read_thread(text)
    assert (t.issue, len(t.programs), t.quoted, bug_outcome(t)) == ("iree-org/iree#23046", 1, "", None)
    assert "iree_encoding.set_encoding %src" in choose_program(t, {})[0]
    assert pass_args(t.opt_commands[0]) == ([
        "--pass-pipeline=builtin.module(func.func(iree-codegen-materialize-device-encoding"
        "{test-gpu-encoding-resolver=gpu_data_tiling}))", "--iree-gpu-test-target=gfx950"], [])
    assert plan_case(t, {}).ir_args is not None  # only iree-opt: an IR case


def test_a_real_thread_with_an_option_later_renamed_is_spelled_per_release():
    """iree-org/iree#21180, as stored (its second block, the dispatch IR, cut short): the
    command's `--iree-dispatch-creation-experimental-data-tiling=false` is kept as a flag
    about the bug and reaches 3.7.0+ as `--iree-dispatch-creation-data-tiling=false`
    (harvested on the real releases: every release passes, so nothing is written)."""
    from packaging.version import Version

    from harness.harvest import plan_case
    from harness.targets import spelled_for

    t = read_thread((THREADS / "iree-21180-renamed-option.md").read_text())
    assert (t.issue, len(t.programs)) == ("iree-org/iree#21180", 1)
    plan = plan_case(t, {})
    assert (plan.target, plan.flags) == ("cpu", ["--iree-llvmcpu-target-cpu=znver4", "--iree-opt-data-tiling=true",
                                                 "--iree-dispatch-creation-experimental-data-tiling=false"])
    assert spelled_for(plan.flags, Version("3.6.0")) == plan.flags
    assert spelled_for(plan.flags, Version("3.7.0"))[-1] == "--iree-dispatch-creation-data-tiling=false"


def test_a_real_wrong_numbers_thread_with_only_mlir_needs_a_reference(tmp_path):
    """iree-org/iree#19749 (case index-select-strided-slice-wrong-rows), as stored: torch
    IR whose results the title calls "numerically incorrect", the input script cut short.
    No golden: its items only compile and it says so; with the user's reference.py
    (--reference) it is scanned for wrong numbers (on the real releases: <= [2.9.0 ..
    3.10.0] < 3.11.0, as the hand-written case)."""
    from harness.harvest import plan_case

    t = read_thread((THREADS / "iree-19749-wrong-numbers-mlir-no-golden.md").read_text())
    assert (t.issue, len(t.programs), t.wrong_numbers) == ("iree-org/iree#19749", 1, True)
    plain = plan_case(t, {})
    assert (plain.outcome, plain.unchecked_numbers) == (None, True)
    given = plan_case(t, {}, golden=True)
    assert (given.outcome, given.unchecked_numbers, given.inputs) == ("compare-fail", False, None)


def test_wrong_numbers_without_a_golden_are_written_compile_only_and_never_proven(releases, tmp_path, capsys):
    """Never a golden from a release's output: the case keeps its compile items, its
    [history] says why (unreproduced, with the way to give a golden), lint passes it and
    prove says NOT PROVEN."""
    for build in releases.builds.iterdir():
        (build / "behaviour").write_text(f"{build.name} ok\n")
    thread = THREAD.replace("failed to bufferize a foo", "numerically incorrect foo").replace(
        "m.mlir:1:1: error: failed to bufferize op 'foo'\n", "")
    (tmp_path / "thread.md").write_text(thread)
    assert cli_main(["harvest", "thread.md", "--slug", "wrong-foo"]) == 0
    out = capsys.readouterr().out
    assert "gives no golden" in out and "--reference reference.py" in out
    text = (tmp_path / "cases" / "wrong-foo" / "case.toml").read_text()
    assert 'status = "unreproduced"' in text and "gives no golden" in text
    assert cli_main(["lint", "wrong-foo"]) == 0
    capsys.readouterr()
    assert cli_main(["prove", "wrong-foo"]) == 1 and "NOT PROVEN" in capsys.readouterr().out
    assert cli_main(["harvest", "thread.md", "--slug", "x", "--reference", "nowhere.py"]) == 2


def test_gh_json_is_read_and_a_saved_web_page_is_refused_clearly():
    import json

    text = (THREADS / "iree-16780-uniform-dequantize.md").read_text()
    title, url, body = text.split("\n", 2)[0][2:], "https://github.com/iree-org/iree/issues/16780", text
    as_json = json.dumps({"title": title, "url": url, "body": body.split("\n", 3)[3], "comments": []})
    t = read_thread(as_json)
    assert (t.title, t.issue, len(t.programs)) == (title, "iree-org/iree#16780", 1)
    assert "failed to legalize operation 'stablehlo.uniform_dequantize'" in t.quoted
    with pytest.raises(HarvestError, match="saved web page"):
        read_thread("<!DOCTYPE html><html><body><pre>func.func</pre></body></html>")


@pytest.mark.harness
def test_a_thread_command_that_runs_a_program_or_names_a_file_loses_those_flags_and_says_why():
    """A compile-error thread whose iree-compile line carries a linker path (a script
    elsewhere on the machine), a dump folder and a response file: none reaches the case
    or the release scan; each is said with why."""
    text = """# failed to legalize operation 'arith.addf'

```mlir
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
```

```
iree-compile model.mlir --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu \
  --iree-llvmcpu-link-embedded=true --iree-llvmcpu-embedded-linker-path=/opt/scripts/link.sh \
  --iree-codegen-tuning-spec-path=spec.mlir --iree-opt-level=O2 @more-flags.txt -o out.vmfb
```

error: failed to legalize operation 'arith.addf'
"""
    t = read_thread(text, repo="iree-org/iree")
    plan = plan_case(t, {})
    assert plan.flags == ["--iree-llvmcpu-link-embedded=true", "--iree-opt-level=O2"]
    said = "\n".join(plan.dropped)
    assert "--iree-llvmcpu-embedded-linker-path=/opt/scripts/link.sh: " in said and "start a program" in said
    assert "--iree-codegen-tuning-spec-path=spec.mlir: " in said
    assert not any("/opt/scripts" in f for f in plan.flags)


# ------------------------------------------------- the correct output stated in prose

@pytest.mark.harness
def test_a_correct_result_stated_after_the_run_is_the_golden():
    """iree-org/iree#19898: wrong numbers, a program with no inputs, and "The correct result
    should be:" with the values in the code block below: the golden, quoted; the quoted
    iree-run-module output (the wrong one) is not a statement."""
    from harness.harvest.stated import stated_reference

    t = read_thread((THREADS / "iree-19898-correct-result-in-prose.md").read_text())
    plan = plan_case(t, {})
    assert plan.outcome == "compare-fail" and not plan.unchecked_numbers
    assert plan.said.values == ("-1.109700e+00", "-1.218800e+00", "1.167600e+00", "-1.040800e+00",
                                "9.166000e-01", "-1.304200e+00")
    assert plan.said.quote.startswith("The correct result should be:")
    assert [(r.shape, r.dtype) for r in plan.said_results] == [((1, 1, 1, 6), "float32")]
    assert plan.said_inputs == []
    assert "def reference(*inputs):" in stated_reference(plan.said, plan.said_results, plan.said_inputs)


ONNX_THREAD = """# [onnx] Slice then flip gives shifted values on llvm-cpu
https://github.com/iree-org/iree/issues/99999

The model comes from ONNX (imported with iree-import-onnx to the torch dialect):

```mlir
func.func @main(%arg0: !torch.vtensor<[10],f32>) -> !torch.vtensor<[9],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int10 = torch.constant.int 10
  %0 = torch.aten.slice.Tensor %arg0, %int0, %int1, %int10, %int1 : !torch.vtensor<[10],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[9],f32>
  %1 = torch.prim.ListConstruct %int0 : (!torch.int) -> !torch.list<int>
  %2 = torch.aten.flip %0, %1 : !torch.vtensor<[9],f32>, !torch.list<int> -> !torch.vtensor<[9],f32>
  return %2 : !torch.vtensor<[9],f32>
}
```

```
iree-compile model.mlir --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o m.vmfb
iree-run-module --module=m.vmfb --device=local-task --input="10xf32=0 1 2 3 4 5 6 7 8 9"
```

Output: `9xf32=8 7 6 5 4 3 2 1 0`, expected `9 8 7 6 5 4 3 2 1`.

| index | Expected (ORT) | Actual (IREE) |
|---|---|---|
| 0 | 9 | 8 |
| 1 | 8 | 7 |
| 2 | 7 | 6 |
| 3 | 6 | 5 |
| 4 | 5 | 4 |
| 5 | 4 | 3 |
| 6 | 3 | 2 |
| 7 | 2 | 1 |
| 8 | 1 | 0 |
"""


@pytest.mark.harness
def test_an_expected_line_and_an_ort_column_that_agree_give_the_golden_with_the_run_inputs():
    t = read_thread(ONNX_THREAD)
    plan = plan_case(t, {})
    assert plan.outcome == "compare-fail" and plan.said.floats() == [9, 8, 7, 6, 5, 4, 3, 2, 1]
    assert plan.said.quote.startswith("Output:")  # the line, not the wrong `9xf32=8 7 ...` before it
    assert [a.tolist() for a in plan.said_inputs] == [list(range(10))]
    assert plan.tolerance() == ((0.5, 1e-5), "the thread states its values to 0.5")


@pytest.mark.harness
def test_the_stated_golden_of_a_program_that_takes_inputs_is_made_with_them(tmp_path):
    """The reference.py harvest writes is called as every reference is, with the inputs
    (`reference(*example_inputs())`): it used to take none and refuse the thread."""
    from harness.harvest.stated import stated_reference
    from harness.reference import eager, example_inputs, load_program

    plan = plan_case(read_thread(ONNX_THREAD), {})
    (tmp_path / "reference.py").write_text(stated_reference(plan.said, plan.said_results, plan.said_inputs))
    program = load_program(tmp_path / "reference.py")
    (out,) = eager(program, example_inputs(program))
    assert out.tolist() == [9, 8, 7, 6, 5, 4, 3, 2, 1]


@pytest.mark.harness
def test_two_statements_that_disagree_are_asked_about_and_nothing_is_written(tmp_path, capsys):
    text = ONNX_THREAD.replace("| 0 | 9 | 8 |", "| 0 | 7 | 8 |")
    with pytest.raises(HarvestError, match="2 different correct outputs"):
        plan_case(read_thread(text), {})
    (tmp_path / "thread.md").write_text(text)
    assert cli_main(["harvest", str(tmp_path / "thread.md"), "--no-scan", "--slug", "must-not-exist"]) == 2
    assert "2 different correct outputs" in capsys.readouterr().err
    assert not (Path(__file__).resolve().parent.parent / "cases" / "must-not-exist").exists()


@pytest.mark.harness
def test_a_stated_golden_fails_a_planted_wrong_value(tmp_path):
    """The golden made from the statement (reference.py, run as the golden writer runs it)
    passes the right values and fails a planted wrong one."""
    import importlib.util

    import numpy as np

    from harness.compare import compare_outputs
    from harness.harvest.stated import stated_reference

    plan = plan_case(read_thread((THREADS / "iree-19898-correct-result-in-prose.md").read_text()), {})
    (tmp_path / "reference.py").write_text(stated_reference(plan.said, plan.said_results, plan.said_inputs))
    spec = importlib.util.spec_from_file_location("stated_reference", tmp_path / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    golden = [o.numpy() for o in module.reference()]
    (atol, rtol), _ = plan.tolerance()
    right = [np.array([[[[-1.1097, -1.2188, 1.1676, -1.0408, 0.9166, -1.3042]]]], np.float32)]
    assert compare_outputs(right, golden, [], atol, rtol, (), "stated").ok
    planted = [np.zeros((1, 1, 1, 6), np.float32)]  # what the bad releases print
    assert not compare_outputs(planted, golden, [], atol, rtol, (), "stated").ok


@pytest.mark.harness
def test_inputs_a_thread_only_names_are_seeded_from_the_signature():
    """`--input=@lhs.npy --input=@rhs.npy`: the values are seeded of the entry function's
    argument types, the same on every machine; a dynamic argument is asked for."""
    import numpy as np

    from harness.harvest.program import only_named, run_inputs

    program = ("func.func @main(%lhs: tensor<4x8xf32>, %rhs: tensor<8xi32>) -> tensor<4x8xf32> {\n"
               "  return %lhs : tensor<4x8xf32>\n}\n")
    command = ["iree-run-module", "--module=m.vmfb", "--input=@lhs.npy", "--input=@rhs.npy"]
    lhs, rhs = run_inputs(command, program)
    assert (lhs.shape, lhs.dtype, rhs.shape, rhs.dtype) == ((4, 8), np.float32, (8,), np.int32)
    again = run_inputs(command, program)
    assert np.array_equal(lhs, again[0]) and np.array_equal(rhs, again[1]) and not np.array_equal(lhs[0], lhs[1])
    assert only_named(command) == ["lhs.npy", "rhs.npy"]
    with pytest.raises(HarvestError, match="only names"):
        run_inputs(command)  # no program: nothing says their types
    with pytest.raises(HarvestError, match="only names"):
        run_inputs(command, program.replace("tensor<4x8xf32>, %rhs", "tensor<?x8xf32>, %rhs"))


def test_a_folder_of_threads_is_harvested_each_in_turn_with_a_yield_table(releases, tmp_path, capsys):
    """Three threads in a folder: one becomes a case, one only links its program (refused,
    said why), one is a saved web page: none stops the others; one yield table."""
    folder = tmp_path / "threads"
    folder.mkdir()
    (folder / "a-bufferize.md").write_text(THREAD)
    (folder / "b-attachment.md").write_text((THREADS / "iree-18845-attachment-only.md").read_text())
    (folder / "c-page.md").write_text("<!DOCTYPE html><html><body>issue</body></html>")
    assert cli_main(["harvest", "threads", "--issue", "iree-org/iree"]) == 1  # not every thread written
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| thread")]
    assert len(rows) == 3, out
    assert rows[0].startswith("| a-bufferize.md | compile | written | cases/failed-bufferize-foo-llvm-cpu: ")
    assert "3.3.0" in rows[0]
    assert rows[1].startswith("| b-attachment.md | - | refused | ") and "only linked" in rows[1]
    assert rows[2].startswith("| c-page.md | - | refused | ")
    assert "harvest: 1 of 3 threads written" in out
    assert (tmp_path / "cases" / "failed-bufferize-foo-llvm-cpu" / "case.toml").is_file()


def test_a_real_onnx_helper_thread_becomes_model_py_through_onnx_with_onnx_runtimes_golden(tmp_path):
    """iree-org/iree#24179 (saved as the search tool gave it, cut short inside the script):
    the script up to its model (shape inference included) becomes model.py, fed what the
    script feeds ONNX Runtime; the bug is wrong numbers; the golden is ONNX Runtime's,
    made in the sandbox. #24230 (a crash) feeds nothing readable: its input is seeded."""
    import numpy as np

    from harness.item import settings_with
    from harness.stages import write_golden_sandboxed
    from harness.toolchain import resolve

    t = read_thread((THREADS / "iree-24179-onnx-helper-script-wrong-numbers.md").read_text())
    plan = plan_case(t, {})
    assert (plan.from_torch, plan.frontend, plan.outcome, plan.target) == (True, "onnx", "compare-fail", "cpu")
    assert "ONNX script 1 of 1" in plan.origin
    assert "infer_shapes" in plan.program and "onnx.save" not in plan.program and "ort." not in plan.program
    case = tmp_path / "case"
    case.mkdir()
    (case / "model.py").write_text(plan.program)
    made = write_golden_sandboxed(case / "model.py", case, settings_with(resolve()), plan.frontend)
    assert made.ok, made.detail
    x = np.load(case / "inputs" / "input0.npy")
    assert x.shape == (1, 18, 3, 3) and x.flat[17] == 17.0  # the script's np.arange
    y = np.load(case / "expected" / "output0.npy")
    # DepthToSpace CRD, blocksize 3: out[0, c, h*3+i, w*3+j] = x[0, c*9 + i*3 + j, h, w]
    want = x.reshape(1, 2, 3, 3, 3, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 9, 9)
    np.testing.assert_array_equal(y, want)

    crash = plan_case(read_thread((THREADS / "iree-24230-onnx-helper-script-crash.md").read_text()), {})
    assert (crash.frontend, crash.outcome) == ("onnx", "compile-crash")
    assert "values seeded of the inputs' types" in crash.program


def test_an_onnx_script_that_makes_no_model_is_refused_saying_so():
    from harness.harvest.program import onnx_program

    with pytest.raises(HarvestError, match="makes no model"):
        onnx_program("import onnx\nfrom onnx import helper\ngraph = helper.make_graph([], 'g', [], [])\n")
    with pytest.raises(HarvestError, match="not Python as pasted"):
        onnx_program("model = = helper.make_model(g)\n")


CRASH_BY_RELEASE = FAKE_HEADER + """\
if mode == "crash":
    # Each release dies in another frame of the same conversion (iree-org/iree#24230's shape).
    frame = "mlir::Type::getContext() const" if version >= "3.2" else "mlir::torch::ValueTensorType::getDtype() const"
    sys.stderr.write("Stack dump:\\n #0 0x00005555 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int)\\n"
                     " #1 0x00005556 " + frame + "\\n")
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGSEGV)
out = sys.argv[sys.argv.index("-o") + 1]
open(out, "wb").write(b"PK\\x03\\x04" + b"\\0" * 64)
"""


def test_a_crash_whose_frame_differs_by_release_is_the_newest_releases_crash_said_as_a_guess(
        releases, tmp_path, capsys):
    """A thread that reports a crash and quotes no frame, on releases that die in different
    frames: no one message fits them all, so the bug is the newest release's crash (a
    guess, said); releases that crash elsewhere are hidden, never the bug's window."""
    from test_history import install_fake

    for version in ("3.0.0", "3.1.0", "3.2.0", "3.3.0", "3.4.0", "3.5.0"):
        (releases.builds / version / "behaviour").write_text(f"{version} crash\n")
    install_fake(releases.builds, ("iree-compile",), CRASH_BY_RELEASE)
    (tmp_path / "crash.md").write_text(THREAD.replace("m.mlir:1:1: error: failed to bufferize op 'foo'\n",
                                                      "Segmentation fault (core dumped)\n")
                                       .replace("failed to bufferize a foo", "iree-compile segfaults"))
    assert cli_main(["harvest", "crash.md", "--slug", "frames-differ"]) == 0
    out = capsys.readouterr().out
    assert "taken to be the newest release's failure: compile-crash" in out and "a guess" in out
    text = (tmp_path / "cases" / "frames-differ" / "case.toml").read_text()
    assert "getContext" in text and 'first_bad = "3.2.0"' in text and "first_good" not in text
    assert cli_main(["prove", "frames-differ"]) == 0


DIFFER_THREAD = """\
# Data tiling gives different results than without

https://github.com/iree-org/iree/issues/99001

```mlir
func.func @main(%lhs: tensor<4x8xf32>, %rhs: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %0 = tensor.empty() : tensor<4x4xf32>
  %1 = linalg.matmul ins(%lhs, %rhs : tensor<4x8xf32>, tensor<8x4xf32>) outs(%0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}
```

```
iree-compile --iree-hal-target-backends=llvm-cpu --iree-opt-data-tiling=true mm.mlir -o tiled.vmfb
iree-compile --iree-hal-target-backends=llvm-cpu mm.mlir -o plain.vmfb
iree-run-module --module=tiled.vmfb --device=local-task --function=main --input=@lhs.npy --input=@rhs.npy
```

Compiling with `--iree-opt-data-tiling=true` gives different results than without.
"""

# Over fake releases: the module remembers its flags; on the bug's releases a data-tiled
# module's run is off by one, the plain one right (a product of the seeded inputs).
FAKE_DIFFER = FAKE_HEADER + """\
if os.path.basename(sys.argv[0]) == "iree-compile":
    tiled = any(a.startswith("--iree-opt-data-tiling") for a in sys.argv)
    open(sys.argv[sys.argv.index("-o") + 1], "wb").write(b"PK\\x03\\x04" + (b"TILED" if tiled else b"PLAIN"))
    sys.exit(0)
import numpy as np
value = lambda p: np.load(p[len("--input=@"):])
lhs, rhs = [value(a) for a in sys.argv if a.startswith("--input=@")]
module = open(next(a for a in sys.argv if a.startswith("--module="))[len("--module="):], "rb").read()
out = lhs @ rhs + (1 if mode == "bug" and b"TILED" in module else 0)
for a in sys.argv:  # a run case's matrix items name no outputs: the run ending is their pass
    if a.startswith("--output=@"):
        np.save(a[len("--output=@"):], out.astype(np.float32))
"""


def test_a_thread_whose_bug_is_a_difference_between_two_compiles_becomes_a_differential_case(
        releases, tmp_path, capsys):
    """Two iree-compile commands that differ by one flag, a run that only names its .npy
    inputs, "different results": a [[differ]] item on seeded inputs of the signature's
    types, whose window is the releases where the two compiles disagree."""
    import numpy as np

    install_fake(releases.builds, ("iree-compile", "iree-run-module"), FAKE_DIFFER)
    (tmp_path / "thread.md").write_text(DIFFER_THREAD)
    assert cli_main(["harvest", "thread.md", "--slug", "differ-shape"]) == 0
    out = capsys.readouterr().out
    assert "the bug is a difference: a cpu (no more flags) vs b cpu --iree-opt-data-tiling=true" in out
    case = tmp_path / "cases" / "differ-shape"
    text = (case / "case.toml").read_text()
    assert "[[differ]]" in text and 'name = "opt-data-tiling"' in text and "outputs = 1" in text
    assert 'b = {target = "cpu", flags = ["--iree-opt-data-tiling=true"]}' in text
    assert 'bad_outcome = "differ-fail"' in text and 'bad_items = ["differ-opt-data-tiling"]' in text
    assert 'first_bad = "3.3.0"' in text and 'last_bad = "3.4.0"' in text and 'first_good = "3.5.0"' in text
    assert [a.shape for a in map(np.load, sorted((case / "inputs").glob("*.npy")))] == [(4, 8), (8, 4)]
    readme = (case / "README.md").read_text()
    assert "The thread's bug is a difference" in readme and "`lhs.npy`" in readme
    assert cli_main(["lint", "differ-shape"]) == 0
    assert cli_main(["prove", "differ-shape"]) == 0
