"""The one bug definition (harness/bug.py) and everything that asks it: windows read
from a scan, written back to the case, prove, bisect and git-bisect-run, on fake
releases whose older versions fail in an unrelated way."""

import re
import stat
import sys
import textwrap
from types import SimpleNamespace

import pytest
from packaging.version import Version

from harness.bug import Bug
from harness.outcomes import PROBE_BAD as BUG, PROBE_GOOD as GOOD, PROBE_UNDECIDED as SKIP
from harness.case import load_case
from harness.cli import main as cli_main
from harness.history.prove import ReleaseRun
from harness.history.message import derive_match, sample_of
from harness.history.window import windows
from harness.lint import lint_case
from harness.toolchain import from_tools_dir

# The fake releases here are named 3.0.0-3.6.0; their subject is windows, not levels.
pytestmark = [pytest.mark.harness, pytest.mark.usefixtures("levels_everywhere")]



def result(outcome, text="", compile_only=False, name="cpu-O0", compiler=""):
    stage = SimpleNamespace(detail=text)
    return SimpleNamespace(name=name, outcome=outcome, compile_only=compile_only, compiler=compiler,
                           failing_stage=stage, failure_text=lambda: text)


# ---------------------------------------------------------------------- the bug itself

def test_only_the_bug_is_the_bug():
    crash = Bug(("compile-crash",), None, ())
    assert crash.state(result("pass")).kind == GOOD
    assert crash.state(result("compile-crash")).kind == BUG
    # an unrelated compile error in an old release must not be taken for the crash
    assert crash.state(result("compile-fail")).kind == SKIP
    assert "unrelated" in crash.state(result("import-fail")).why
    # a pass that never ran cannot clear a wrong-numbers bug, but can clear a compile bug
    numbers = Bug(("compare-fail",), None, ())
    assert numbers.state(result("pass", compile_only=True)).kind == SKIP
    assert numbers.needs_device() and not crash.needs_device()
    assert crash.state(result("pass", compile_only=True)).kind == GOOD
    # with the bug's message: the same outcome for another reason is a skip
    bufferize = Bug(("compile-fail",), re.compile("failed to bufferize"), ())
    assert bufferize.state(result("compile-fail", "error: failed to bufferize op")).kind == BUG
    assert bufferize.state(result("compile-fail", "error: unknown op")).kind == SKIP


def run(version, **items):
    """A release's results: item -> outcome, or (outcome, failure text)."""
    return ReleaseRun(version, [result(*(o if isinstance(o, tuple) else (o,)), name=n, compiler=version)
                                for n, o in {k.replace("_", "-"): v for k, v in items.items()}.items()])


BUFFERIZE = Bug(("compile-fail",), re.compile("failed to bufferize"), ())
BAD = ("compile-fail", "error: failed to bufferize op")
OTHER = ("compile-fail", "error: unknown op 'foo'")


def test_a_wrong_numbers_bug_ends_where_the_runs_pass_whatever_the_compile_only_items_say():
    """cpu runs show the bug and then its fix; hip beside them only compiles (no GPU): its
    passes say nothing of wrong numbers, so they neither end the window nor hide its end."""
    numbers = Bug(("compare-fail",), None, ())
    hip = lambda: result("pass", compile_only=True, name="hip-O0")  # noqa: E731

    def release(version, cpu):
        return ReleaseRun(version, [result(cpu, name="cpu-O0", compiler=version), hip()])

    (w,) = windows([release("3.9.0", "compare-fail"), release("3.10.0", "compare-fail"),
                    release("3.11.0", "pass")], numbers).windows
    assert (w.last_bad, w.first_good, w.hidden_after) == ("3.10.0", "3.11.0", None)
    # a release with nothing but the blind items measured nothing: never good
    (w,) = windows([release("3.10.0", "compare-fail"), ReleaseRun("3.11.0", [hip()])], numbers).windows
    assert w.first_good is None


def test_windows_have_an_onset_and_an_end_and_ignore_unrelated_failures():
    runs = [run("3.0.0", cpu_O0="pass"), run("3.1.0", cpu_O0=OTHER), run("3.2.0", cpu_O0=OTHER),
            run("3.3.0", cpu_O0=BAD), run("3.4.0", cpu_O0=BAD), run("3.5.0", cpu_O0=OTHER),
            run("3.6.0", cpu_O0="pass")]
    m = windows(runs, BUFFERIZE)
    (w,) = m.windows
    # onset: the newest release before the bug where the items pass; 3.1.0 and 3.2.0 fail
    # otherwise, which hides the bug: recorded as such, never as good. End: the first
    # release after it that passes (3.5.0 fails otherwise).
    assert (w.last_good, w.first_bad, w.last_bad, w.first_good) == ("3.0.0", "3.3.0", "3.4.0", "3.6.0")
    assert w.hidden_before == "3.2.0" and w.hidden_by == "compile-fail on cpu-O0: error: unknown op 'foo'"
    assert m.status == "fixed" and m.items == ("cpu-O0",)
    assert windows(runs[:2], BUFFERIZE).status == "unknown"  # the parse error is not the bug
    # nothing passes before it: no last_good at all, only what hides the onset
    (w,) = windows(runs[1:], BUFFERIZE).windows
    assert (w.last_good, w.hidden_before) == (None, "3.2.0")


def test_a_bug_that_comes_back_has_two_windows_and_the_newest_may_be_open():
    runs = [run("3.0.0", cpu_O0=BAD), run("3.1.0", cpu_O0="pass"), run("3.2.0", cpu_O0="pass"),
            run("3.3.0", cpu_O0=BAD), run("3.4.0", cpu_O0=BAD)]
    m = windows(runs, BUFFERIZE)
    assert [(w.last_good, w.first_bad, w.last_bad, w.first_good) for w in m.windows] == [
        (None, "3.0.0", "3.0.0", "3.1.0"), ("3.2.0", "3.3.0", "3.4.0", None)]
    assert m.status == "open"


def test_the_measured_message_is_specific():
    numbers = [result("compare-fail", "vs golden: output 1: 12/64 elements differ (atol=1e-05, "
                                      "rtol=1e-05); max abs err 0.8317, max rel err 2; worst"),
               result("compare-fail", "vs golden: output 1: 16/64 elements differ (atol=1e-05, "
                                      "rtol=1e-05); max abs err 0.25, max rel err 1; worst")]
    pattern = derive_match(numbers)
    assert pattern == r"output 1(?: \(indices[^)]*\))?: (12|16)/64 elements differ[^;]*; max abs err (0\.[1-9]\d*)"
    assert all(re.search(pattern, r.failure_text()) for r in numbers)
    # an indices output is named so in the diagnosis; the pattern allows for it
    assert re.search(pattern, "output 1 (indices, compared by the values they select): 12/64 elements "
                              "differ (atol=0, rtol=0); max abs err 0.5,")
    # a golden moved by a new miscompile: all elements differ, or by errors of another size
    assert not re.search(pattern, "output 1: 64/64 elements differ (atol=1e-05, rtol=1e-05); max abs err 0.5,")
    assert not re.search(pattern, "output 1: 12/64 elements differ (atol=1e-05, rtol=1e-05); max abs err 100.5,")
    errors = [result("compile-fail", "exit code 1: /x/m.mlir:3:5: error: failed to bufferize op %3")]
    assert derive_match(errors) == "failed to bufferize op"
    # a diagnostic that starts with the op it is about keeps it (it is the specific part)
    quoted = [result("compile-fail", "exit code 1: /x/m.mlir:9:10: error: 'tensor.expand_shape' op "
                                     "invalid dimension 3 for %12 of type 'tensor<?x4xf32>'")]
    pattern = derive_match(quoted)
    assert pattern == r"'tensor\.expand_shape' op invalid dimension \d+ for %[\w.$-]+ of type 'tensor"
    assert re.search(pattern, quoted[0].failure_text())
    assert not re.search(pattern, "error: 'tensor.collapse_shape' op invalid dimension 3 for %1")


# ------------------------------------------- prove, scan, bisect, git-bisect-run agree

# Every fake release tool starts so: its release and mode from the build's `behaviour` file.
FAKE_HEADER = """\
#!{python}
import os, signal, sys
here = os.path.dirname(os.path.abspath(__file__))
version, mode = open(os.path.join(here, "behaviour")).read().split()
if "--version" in sys.argv:
    print(f"IREE compiler version {{version}} @ 0123abcd"); sys.exit(0)
"""

FAKE_TOOL = FAKE_HEADER + """\
if mode == "bug":
    print("m.mlir:1:1: error: failed to bufferize op 'foo'", file=sys.stderr); sys.exit(1)
if mode == "other":
    print("m.mlir:1:1: error: unknown op 'old.spelling'", file=sys.stderr); sys.exit(1)
out = sys.argv[sys.argv.index("-o") + 1]
open(out, "wb").write(b"PK\\x03\\x04" + b"\\0" * 64)
"""

# 3.1.0 and 3.2.0 fail in an unrelated way (same outcome, another message).
RELEASES = {"3.0.0": "ok", "3.1.0": "other", "3.2.0": "other", "3.3.0": "bug", "3.4.0": "bug",
            "3.5.0": "ok"}


def install_fake(builds, tools, script: str) -> None:
    """`script` (FAKE_HEADER and a body) as each of `tools` in every fake release build."""
    for build in builds.iterdir():
        for name in tools:
            p = build / name
            p.write_text(script.format(python=sys.executable))
            p.chmod(p.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def releases(tmp_path, monkeypatch):
    builds = tmp_path / "builds"
    for version, mode in RELEASES.items():
        d = builds / version
        d.mkdir(parents=True)
        (d / "behaviour").write_text(f"{version} {mode}\n")
    install_fake(builds, ("iree-compile", "iree-opt", "iree-run-module"), FAKE_TOOL)
    case = tmp_path / "cases" / "fake-case"
    case.mkdir(parents=True)
    (case / "model.mlir").write_text("func.func @main() { return }\n")
    (case / "case.toml").write_text(textwrap.dedent("""
        title = "fake"
        kind = "compile"
        issues = ["iree-org/iree#1"]
        [source]
        mlir = "model.mlir"
        [matrix]
        targets = ["cpu"]
        opt_levels = ["O0"]
        [[expect]]
        targets = ["cpu"]
        compiler = "<3.3"
        outcome = "compile-fail"
        match = "unknown op 'old.spelling'"
        reason = "older releases spell the op otherwise"
        [history]
        bad_outcome = "compile-fail"
        bad_match = "failed to bufferize"
        [[history.window]]
        first_bad = "3.4.0"
        last_bad = "3.4.0"
    """))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("IREE_REGRESS_CACHE", str(tmp_path / "cache"))
    from harness.history import prove, releases as rel

    monkeypatch.setattr(rel, "available", lambda source=None: list(RELEASES))
    monkeypatch.setattr(prove, "ensure", lambda v, source=None, log=None: from_tools_dir(builds / v))
    return SimpleNamespace(builds=builds, manifest=case / "case.toml")


def test_scan_prove_bisect_and_git_bisect_run_agree(releases, capsys):
    # --scan measures the window and writes it, with the bug's [[expect]], into the case.
    assert cli_main(["prove", "fake-case", "--scan", "--write"]) == 0
    case = load_case(releases.manifest)
    (w,) = case.history.windows
    assert (w.last_good, w.first_bad, w.last_bad, w.first_good) == ("3.0.0", "3.3.0", "3.4.0", "3.5.0")
    assert w.hidden_before == "3.2.0" and "old.spelling" in w.hidden_by  # another failure, not good
    # what the bug printed on first_bad is kept verbatim (paths cut to file names)
    assert (w.sample.outcome, w.sample.release, w.sample.item) == ("compile-fail", "3.3.0", "cpu-O0")
    assert "failed to bufferize" in w.sample.text and "/" not in w.sample.text
    assert case.history.bad_match.pattern == "failed to bufferize"
    written = [e for e in case.expectations if e.outcome == "compile-fail" and "bufferize" in e.match.pattern]
    assert [str(e.compiler) for e in written] == ["<=3.4.0,>=3.3.0"]
    assert any("old.spelling" in e.match.pattern for e in case.expectations)  # the other bug is kept
    assert lint_case(releases.manifest, []) == []

    # prove checks the onset (3.0.0 passes; 3.2.0 still fails otherwise) and the end.
    capsys.readouterr()
    assert cli_main(["prove", "fake-case"]) == 0
    out = capsys.readouterr().out
    assert "fake-case: PROVEN 3.0.0 < (hidden to 3.2.0) [3.3.0 .. 3.4.0] < 3.5.0" in out
    assert "last_good  3.0.0" in out and "hidden     3.2.0" in out

    # bisect over the same builds: the unrelated failures are skips, never the bug.
    assert cli_main(["bisect", "fake-case::cpu-O0", "--good", "3.0.0", "--bad", "3.4.0",
                     "--tools-dir", str(releases.builds)]) == 0
    out = capsys.readouterr().out
    assert "broken somewhere after 3.0.0 up to 3.3.0; undecided (skipped): 3.1.0, 3.2.0" in out
    assert cli_main(["bisect", "fake-case::cpu-O0", "--good", "3.5.0", "--bad", "3.3.0",
                     "--tools-dir", str(releases.builds)]) == 0
    assert "answer: first fixed release: 3.5.0" in capsys.readouterr().out

    # git bisect run: 0 good, 1 the bug, 125 an unrelated failure.
    codes = {v: cli_main(["git-bisect-run", "fake-case::cpu-O0", "--tools-dir", str(releases.builds / v)])
             for v in RELEASES}
    assert codes == {"3.0.0": 0, "3.1.0": 125, "3.2.0": 125, "3.3.0": 1, "3.4.0": 1, "3.5.0": 0}


def test_git_bisect_run_without_a_usable_build_is_skip_not_bad(releases, tmp_path):
    assert cli_main(["git-bisect-run", "fake-case::cpu-O0", "--tools-dir", str(tmp_path / "no-build")]) == 125


def test_prove_fails_when_the_onset_release_shows_the_bug(releases, capsys):
    text = releases.manifest.read_text().replace('first_bad = "3.4.0"', 'last_good = "3.3.0"\nfirst_bad = "3.4.0"')
    releases.manifest.write_text(text)
    assert cli_main(["prove", "fake-case"]) == 1
    assert "NOT PROVEN" in capsys.readouterr().out


def test_prove_refuses_a_last_good_where_another_failure_hides_the_bug(releases, capsys):
    """'No bug' is not 'good': 3.2.0 fails for another reason, so it cannot be last_good."""
    assert cli_main(["prove", "fake-case", "--scan", "--write"]) == 0
    text = releases.manifest.read_text()
    text = text.replace('last_good = "3.0.0"\n', "").replace('hidden_before = "3.2.0"', 'last_good = "3.2.0"')
    text = "\n".join(l for l in text.splitlines() if not l.startswith("hidden_by")) + "\n"
    releases.manifest.write_text(text)
    capsys.readouterr()
    assert cli_main(["prove", "fake-case"]) == 1
    out = capsys.readouterr().out
    assert "NOT PROVEN" in out and "NO  last_good  3.2.0" in out


def test_the_bug_outcome_is_inferred_only_when_one_failure_stands_out():
    from harness.history.window import failures_seen, inferred_outcome

    one = [run("3.0.0", cpu_O0="pass"), run("3.1.0", cpu_O0=BAD), run("3.2.0", cpu_O0="pass")]
    assert inferred_outcome(one) == "compile-fail"
    two = one + [run("3.3.0", cpu_O0="compile-crash")]
    assert inferred_outcome(two) is None
    assert failures_seen(two) == {"compile-fail": ["3.1.0"], "compile-crash": ["3.3.0"]}
    assert inferred_outcome([run("3.0.0", cpu_O0=BAD)]) is None  # nothing passes: no bug stands out


def test_scan_without_an_outcome_infers_it_and_says_what_else_it_saw(releases, capsys):
    text = releases.manifest.read_text()
    text = text[:text.index("[history]")]  # no bug recorded yet
    releases.manifest.write_text(text)
    assert cli_main(["prove", "fake-case", "--scan", "--bad-match", "failed to bufferize"]) == 0
    out = capsys.readouterr().out
    assert "records no bug outcome" in out.split("3.0.0")[0]  # said before the scan
    assert "bug outcome inferred: compile-fail" in out


def test_two_failures_in_two_windows_keep_each_its_own_message():
    """Wrong numbers, fixed; later a new compile error: each window gets its own outcome
    and message, and a release is judged by its own window's, never by the other's."""
    wrong = ("compare-fail", "vs golden: output 0: 12/64 elements differ (atol=1e-05, rtol=1e-05); "
                             "max abs err 0.8317, max rel err 2; worst")
    crash = ("compile-crash", "crashed (SIGSEGV): at mlir::(anonymous namespace)::FoldFoo::matchAndRewrite(x)")
    runs = [run("3.0.0", cpu_O0="pass"), run("3.1.0", cpu_O0=wrong), run("3.2.0", cpu_O0="pass"),
            run("3.3.0", cpu_O0=crash), run("3.4.0", cpu_O0="pass")]
    m = windows(runs, Bug(("compare-fail", "compile-crash"), None, ()))
    first, second = m.windows
    assert m.match is None  # nothing they share
    assert first.bad_outcomes == ("compare-fail",) and first.bad_match.search(wrong[1])
    assert second.bad_outcomes == ("compile-crash",) and second.bad_match.search(crash[1])
    assert not first.bad_match.search(crash[1]) and not second.bad_match.search(wrong[1])
    from harness.bug import Definition
    from packaging.version import Version

    bug = Bug(("compare-fail", "compile-crash"), None, (), tuple(
        Definition(w.bad_outcomes, w.bad_match, Version(w.last_good), Version(w.first_good)) for w in m.windows))
    assert bug.state(result(*wrong, compiler="3.1.0")).kind == BUG
    assert bug.state(result(*crash, compiler="3.1.0")).kind == SKIP  # the later bug's crash, on 3.1.0
    assert bug.state(result(*wrong, compiler="3.3.0")).kind == SKIP  # wrong numbers are not 3.3.0's bug
    assert bug.state(result(*crash, compiler="3.3.0")).kind == BUG


def test_scan_write_refuses_a_window_without_a_message(releases, capsys):
    text = releases.manifest.read_text()
    releases.manifest.write_text(text[:text.index("[history]")])
    before = releases.manifest.read_text()
    # every failing release is compile-fail, with two different messages: none is derived
    assert cli_main(["prove", "fake-case", "--scan", "--bad-outcome", "compile-fail", "--write"]) == 1
    assert "not written: no message could be derived" in capsys.readouterr().out
    assert releases.manifest.read_text() == before


def test_an_interim_failure_before_the_fix_is_recorded_and_never_good():
    """The bug turned into another failure on one release before its fix: that release is
    hidden_after (prove checks it still fails that way), and first_good is the real pass."""
    runs = [run("3.0.0", cpu_O0="pass"), run("3.1.0", cpu_O0=BAD), run("3.2.0", cpu_O0=OTHER),
            run("3.3.0", cpu_O0="pass")]
    (w,) = windows(runs, BUFFERIZE).windows
    assert (w.last_good, w.first_bad, w.last_bad, w.hidden_after, w.first_good) == \
        ("3.0.0", "3.1.0", "3.1.0", "3.2.0", "3.3.0")
    assert "unknown op 'foo'" in w.hidden_after_by


def test_an_interim_failure_gets_its_own_expectation_written_once(tmp_path):
    """What hides the bug inside its window's span is written as an [[expect]] of its own
    (its outcome, its message, its releases), so a run there is judged by it and prove
    checks it; a rescan writes it again, never twice."""
    from types import SimpleNamespace

    from harness.history.writeback import expectations_for

    runs = [run("3.0.0", cpu_O0="pass"), run("3.1.0", cpu_O0=BAD), run("3.2.0", cpu_O0=OTHER),
            run("3.3.0", cpu_O0="pass")]
    m = windows(runs, BUFFERIZE)
    (h,) = m.hidden
    assert (h.scope, h.outcome, h.names, h.versions, h.where) == ("cpu", OTHER[0], ("O0",), ("3.2.0",), "after")
    assert re.search(h.match, OTHER[1]) and not re.search(h.match, BAD[1])
    case = SimpleNamespace(threads=("iree-org/iree#1",), found_by="")
    blocks = expectations_for(case, BUFFERIZE, m)
    hidden = [b for b in blocks if "another failure hides the bug" in b]
    assert len(hidden) == 1 and 'compiler = ">=3.2.0,<=3.2.0"' in hidden[0] and f'outcome = "{OTHER[0]}"' in hidden[0]
    from harness.history.writeback import write_scan

    manifest = tmp_path / "case.toml"
    manifest.write_text('title = "x"\n')
    case = SimpleNamespace(threads=("iree-org/iree#1",), found_by="", manifest=manifest, slug="x")
    write_scan(case, BUFFERIZE, m)
    write_scan(case, BUFFERIZE, m)
    assert manifest.read_text().count("another failure hides the bug") == 1
    # measured again, the interim now spans two releases: the old entry is replaced, not kept beside it
    wider = windows([run("3.0.0", cpu_O0="pass"), run("3.1.0", cpu_O0=BAD), run("3.2.0", cpu_O0=OTHER),
                     run("3.3.0", cpu_O0=OTHER), run("3.4.0", cpu_O0="pass")], BUFFERIZE)
    write_scan(case, BUFFERIZE, wider)
    text = manifest.read_text()
    assert text.count("another failure hides the bug") == 1 and 'compiler = ">=3.2.0,<=3.3.0"' in text


def test_levels_that_show_the_bug_from_different_releases_get_an_entry_each():
    """O0 fails from 3.1.0, O3 only from 3.3.0 (measured: abs of an i32 matmul, math.absi,
    O2/O3 from 3.8.0): one entry over both levels would expect O3 to fail where it passes."""
    from types import SimpleNamespace

    from harness.history.writeback import expectations_for

    runs = [run("3.0.0", cpu_O0="pass", cpu_O3="pass"), run("3.1.0", cpu_O0=BAD, cpu_O3="pass"),
            run("3.2.0", cpu_O0=BAD, cpu_O3="pass"), run("3.3.0", cpu_O0=BAD, cpu_O3=BAD),
            run("3.4.0", cpu_O0="pass", cpu_O3="pass")]
    blocks = expectations_for(SimpleNamespace(threads=(), found_by="sweep"), BUFFERIZE, windows(runs, BUFFERIZE))
    scoped = sorted((re.search(r"opt_levels = (.*)", b).group(1), re.search(r"compiler = (.*)", b).group(1))
                    for b in blocks)
    assert scoped == [('["O0"]', '">=3.1.0,<=3.3.0"'), ('["O3"]', '">=3.3.0,<=3.3.0"')]


def test_a_failure_hiding_the_bug_on_two_runs_of_releases_gets_an_entry_each():
    """Before the onset the items fail one way, then another, then the first way again
    (measured: a self index_put's wrong values on 2.9.0..3.0.0 and 3.6.0..3.11.0, compile
    failures between): one entry over 2.9.0..3.11.0 would expect wrong values where the
    compile fails."""
    from types import SimpleNamespace

    from harness.history.writeback import expectations_for

    crash = ("compile-crash", "crashed (SIGABRT): at foo")
    runs = [run("3.0.0", cpu_O0=OTHER), run("3.1.0", cpu_O0=crash), run("3.2.0", cpu_O0=OTHER),
            run("3.3.0", cpu_O0=BAD)]
    blocks = expectations_for(SimpleNamespace(threads=(), found_by="sweep"), BUFFERIZE, windows(runs, BUFFERIZE))
    hidden = sorted(re.search(r"compiler = (.*)", b).group(1) for b in blocks if OTHER[0] in b and "unknown op" in b)
    assert hidden == ['">=3.0.0,<=3.0.0"', '">=3.2.0,<=3.2.0"']


def test_an_item_fixed_inside_a_window_another_target_keeps_open_is_not_expected_to_fail_after():
    """cpu shows the bug on 3.0.0..3.1.0 and passes on 3.2.0, where vulkan fails another
    way (measured: a self scatter_reduce, right on cpu from 3.12.0, vulkan failing on every
    release): the window stays open, but cpu's entry ends where cpu stopped showing it."""
    from types import SimpleNamespace

    from harness.history.writeback import expectations_for

    runs = [run("3.0.0", cpu_O0=BAD, vulkan_O0=OTHER), run("3.1.0", cpu_O0=BAD, vulkan_O0=OTHER),
            run("3.2.0", cpu_O0="pass", vulkan_O0=OTHER)]
    m = windows(runs, BUFFERIZE)
    blocks = expectations_for(SimpleNamespace(threads=(), found_by="sweep"), BUFFERIZE, m)
    cpu = [b for b in blocks if 'targets = ["cpu"]' in b]
    assert [re.search(r"compiler = (.*)", b).group(1) for b in cpu] == ['">=3.0.0,<=3.1.0"']
    # and its reason does not call it open where it passes: "still open" is for open entries
    assert "still open" not in cpu[0] and "not shown on these items after 3.1.0" in cpu[0]


def test_a_hand_written_expectation_is_never_replaced_silently(tmp_path):
    """The scan replaces the [[expect]] entries it wrote; one a person wrote for the same
    bug is kept and returned for the caller to show, unless forced."""
    from types import SimpleNamespace

    from harness.history.writeback import write_scan

    runs = [run("3.0.0", cpu_O0="pass"), run("3.1.0", cpu_O0=BAD), run("3.2.0", cpu_O0="pass")]
    m = windows(runs, BUFFERIZE)
    hand = ('[[expect]]\ntargets = ["cpu"]\ncompiler = ">=3.1,<3.2"\noutcome = "compile-fail"\n'
            'match = "failed to bufferize"\nreason = "seen by hand in the thread; bisected to #1234"\n')
    manifest = tmp_path / "case.toml"
    manifest.write_text('title = "x"\n\n' + hand)
    case = SimpleNamespace(threads=("iree-org/iree#1",), found_by="", manifest=manifest, slug="x")
    kept = write_scan(case, BUFFERIZE, m)
    assert kept == [hand.strip()] and "seen by hand" in manifest.read_text()
    assert manifest.read_text().count("[[expect]]") == 2  # beside the scan's own
    write_scan(case, BUFFERIZE, m)  # a rescan replaces its own entry, keeps the person's
    assert manifest.read_text().count("[[expect]]") == 2
    assert write_scan(case, BUFFERIZE, m, force=True) == [] and "seen by hand" not in manifest.read_text()
    # what expect --update wrote for the bug is the tool's, not a person's: replaced
    from harness.history.update import UPDATE_REASON

    manifest.write_text('title = "x"\n\n' + hand.replace("seen by hand in the thread; bisected to #1234",
                                                          f"measured on IREE 3.1.0 {UPDATE_REASON}"))
    assert write_scan(case, BUFFERIZE, m) == [] and UPDATE_REASON not in manifest.read_text()


def test_a_window_without_its_own_message_is_not_given_the_shared_one():
    """A rescan of a case whose [history] message covers its window: the window stays
    without a message of its own (it was written back as 'this window's own message')."""
    from harness.bug import Definition
    from packaging.version import Version

    runs = [run("3.0.0", cpu_O0="pass"), run("3.1.0", cpu_O0=BAD), run("3.2.0", cpu_O0="pass")]
    shared = re.compile("failed to bufferize")
    bug = Bug(("compile-fail",), shared, (), (Definition(("compile-fail",), shared, Version("3.0.0"), Version("3.2.0")),))
    (w,) = windows(runs, bug).windows
    assert w.bad_match is None and w.bad_outcomes == ()


def test_the_case_file_editor_writes_atomically_in_the_files_own_line_endings(tmp_path):
    from harness.history.casefile import read_text, write_atomic

    path = tmp_path / "case.toml"
    path.write_bytes(b'title = "x"\r\n# a comment \xc3\xa9\r\n')
    text = read_text(path)
    assert text == 'title = "x"\n# a comment \u00e9\n'
    write_atomic(path, text + "kind = \"compile\"\n")
    assert path.read_bytes() == b'title = "x"\r\n# a comment \xc3\xa9\r\nkind = "compile"\r\n'
    assert [p.name for p in tmp_path.iterdir()] == ["case.toml"]  # no temporary file left
    plain = tmp_path / "plain.toml"
    write_atomic(plain, "a = 1\n")
    assert plain.read_bytes() == b"a = 1\n"


def test_a_partial_scan_is_never_written(releases, capsys):
    """prove --scan --versions/--items --write would forget what it did not measure: refused
    before anything is scanned, and the case is untouched."""
    before = releases.manifest.read_text()
    assert cli_main(["prove", "fake-case", "--scan", "--versions", "3.0.0,3.1.0", "--write"]) == 1
    assert "not written: a scan of some releases or items would forget the others" in capsys.readouterr().out
    assert releases.manifest.read_text() == before
    assert cli_main(["prove", "fake-case", "--scan", "--versions", "3.0.0,3.1.0"]) == 0  # looking is fine


def test_scan_write_keeps_crlf_line_endings(releases):
    releases.manifest.write_bytes(releases.manifest.read_bytes().replace(b"\n", b"\r\n"))
    assert cli_main(["prove", "fake-case", "--scan", "--write"]) == 0
    data = releases.manifest.read_bytes()
    assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    assert load_case(releases.manifest).history.windows  # and it still loads


def test_a_rescan_keeps_each_windows_own_definition():
    """A case whose windows each hold their own message, scanned again: the windows found
    carry those messages (else --write would refuse a window without one)."""
    from harness.bug import Definition
    from packaging.version import Version

    wrong = ("compare-fail", "vs golden: output 0: 12/64 elements differ (atol=1e-05, rtol=1e-05); "
                             "max abs err 0.8317, max rel err 2; worst")
    crash = ("compile-crash", "crashed (SIGSEGV): at mlir::(anonymous namespace)::FoldFoo::matchAndRewrite(x)")
    runs = [run("3.0.0", cpu_O0="pass"), run("3.1.0", cpu_O0=wrong), run("3.2.0", cpu_O0="pass"),
            run("3.3.0", cpu_O0=crash), run("3.4.0", cpu_O0="pass")]
    first = Definition(("compare-fail",), re.compile(r"output 0: \d+/64 elements differ"), Version("3.0.0"), Version("3.2.0"))
    second = Definition(("compile-crash",), re.compile(r"FoldFoo::"), Version("3.2.0"), Version("3.4.0"))
    m = windows(runs, Bug(("compare-fail", "compile-crash"), None, (), (first, second)))
    assert [w.bad_match.pattern for w in m.windows] == [first.match.pattern, second.match.pattern]
    assert [w.bad_outcomes for w in m.windows] == [("compare-fail",), ("compile-crash",)]


def test_prove_checks_a_hidden_release_still_fails_the_other_way(releases, capsys):
    """A planted hidden_before on a release where every item passes (3.0.0) is refused: it
    is a last_good, not a release that hides the bug."""
    assert cli_main(["prove", "fake-case", "--scan", "--write"]) == 0
    text = releases.manifest.read_text().replace('last_good = "3.0.0"\n', "")
    releases.manifest.write_text(text.replace('hidden_before = "3.2.0"', 'hidden_before = "3.0.0"'))
    capsys.readouterr()
    assert cli_main(["prove", "fake-case"]) == 1
    assert "NO  hidden     3.0.0" in capsys.readouterr().out


def test_a_failure_on_some_items_inside_a_window_is_written_and_never_the_bug(releases, capsys):
    """On 3.3.0 the bug shows at O0 while O1 crashes; on 3.4.0 both show it (the scatter
    sweep's index_put: cpu crashed where vulkan had the wrong sums). The scan writes O1's
    crash as its own expectation and names O1 in the window's hidden_items, so lint, prove
    and a run on 3.3.0 agree."""
    text = releases.manifest.read_text().replace('opt_levels = ["O0"]', 'opt_levels = ["O0", "O1"]')
    releases.manifest.write_text(text)
    tool = releases.builds / "3.3.0" / "iree-compile"
    tool.write_text(tool.read_text().replace(
        'if mode == "bug":', 'if mode == "bug" and "--iree-opt-level=O1" in sys.argv:\n'
        '    print("LLVM ERROR: out of luck", file=sys.stderr); sys.stderr.flush(); os.kill(os.getpid(), signal.SIGSEGV)\n'
        'if mode == "bug":', 1))
    assert cli_main(["prove", "fake-case", "--scan", "--write"]) == 0
    case = load_case(releases.manifest)
    (w,) = case.history.windows
    assert (w.first_bad, w.last_bad, w.hidden_items) == ("3.3.0", "3.4.0", ("cpu-O1",))
    inside = case.expectation_for("cpu", "O1", None, Version("3.3.0"))
    assert inside.outcome == "compile-crash" and "out of luck" in inside.match.pattern
    assert "inside its window" in inside.reason
    assert "bufferize" in case.expectation_for("cpu", "O1", None, Version("3.4.0")).match.pattern
    assert lint_case(releases.manifest, []) == []
    capsys.readouterr()
    assert cli_main(["prove", "fake-case"]) == 0


def test_a_rescan_of_the_bugs_items_keeps_what_it_wrote_for_the_others(releases, capsys):
    """O1 crashes on both bad releases (never the bug: like cuda beside a CPU bug), so the
    first scan writes its crash as an expectation; a rescan runs only the bug's items
    (cpu-O0) and must keep O1's entry, which nothing it measured replaces."""
    text = releases.manifest.read_text().replace('opt_levels = ["O0"]', 'opt_levels = ["O0", "O1"]')
    releases.manifest.write_text(text)
    for version in ("3.3.0", "3.4.0"):
        tool = releases.builds / version / "iree-compile"
        tool.write_text(tool.read_text().replace(
            'if mode == "bug":', 'if mode == "bug" and "--iree-opt-level=O1" in sys.argv:\n'
            '    print("LLVM ERROR: out of luck", file=sys.stderr); sys.stderr.flush(); os.kill(os.getpid(), signal.SIGSEGV)\n'
            'if mode == "bug":', 1))
    assert cli_main(["prove", "fake-case", "--scan", "--write"]) == 0
    assert load_case(releases.manifest).history.bad_items == ("cpu-O0",)
    assert cli_main(["prove", "fake-case", "--scan", "--write"]) == 0
    case = load_case(releases.manifest)
    kept = case.expectation_for("cpu", "O1", None, Version("3.3.0"))
    assert kept is not None and kept.outcome == "compile-crash" and "out of luck" in kept.match.pattern
    assert releases.manifest.read_text().count("out of luck") == 1  # kept once, not written twice
    assert lint_case(releases.manifest, []) == []



def test_a_scan_measures_the_whole_matrix_and_writes_what_the_other_items_showed(releases, capsys):
    """The bug is cpu's (bad_items); vulkan fails its own way on 3.5.0 (and with 3.1.0-3.2.0's
    old spelling, expected on cpu only), where nothing expects it. The scan runs vulkan
    too and writes those as not the bug; a rescan finds nothing left (the old scan, bug
    items only, never saw it: planted by scanning cpu-O0 alone)."""
    text = releases.manifest.read_text().replace('targets = ["cpu"]\nopt_levels', 'targets = ["cpu", "vulkan"]\nopt_levels')
    text = text.replace('[history]\n', '[history]\nbad_items = ["cpu-O0"]\n')
    releases.manifest.write_text(text)
    assert load_case(releases.manifest).targets == ("cpu", "vulkan")
    for version in RELEASES:  # vulkan: never the bug; its own failure on 3.5.0
        tool = releases.builds / version / "iree-compile"
        tool.write_text(tool.read_text().replace(
            'if mode == "bug":', 'if "vulkan" in " ".join(sys.argv) and version == "3.5.0":\n'
            '    print("m.mlir:2:2: error: SPIR-V cannot lower op \'bar\'", file=sys.stderr); sys.exit(1)\n'
            'if "vulkan" in " ".join(sys.argv) and mode == "bug":\n'
            '    mode = "ok"\n'
            'if mode == "bug":', 1))
    assert cli_main(["prove", "fake-case", "--scan", "--items", "cpu-O0"]) == 0
    assert "SPIR-V" not in capsys.readouterr().out  # the bug's items alone never show it
    assert cli_main(["prove", "fake-case", "--scan", "--write"]) == 0
    out = capsys.readouterr().out
    assert "also seen beside the bug, no expectation takes it (vulkan-O0)" in out and "SPIR-V cannot lower op" in out
    case = load_case(releases.manifest)
    assert case.history.bad_items == ("cpu-O0",)  # the bug's items are still the bug's
    other = case.expectation_for("vulkan", "O0", None, Version("3.5.0"))
    assert other is not None and other.outcome == "compile-fail" and "SPIR-V" in other.match.pattern
    assert "not the case's bug; not yet triaged" in other.reason and str(other.compiler) == "<=3.5.0,>=3.5.0"
    assert case.expectation_for("vulkan", "O0", None, Version("3.0.0")) is None  # it passes there
    assert cli_main(["prove", "fake-case", "--scan"]) == 0
    assert "also seen beside the bug" not in capsys.readouterr().out  # nothing left unexplained
    assert lint_case(releases.manifest, []) == []


def test_the_bugs_own_item_failing_another_way_away_from_the_window_is_written_beside(releases, capsys):
    """The bug's own item (cpu-O0) fails with a message of its own on 3.0.0, away from the
    window (3.1.0 passes between; measured: vulkan on 3.9.0-3.11.0 beside a 3.5.0 bug): the
    scan writes it as not the bug, so a run on 3.0.0 is not red (before, a bug item's other
    failures were never looked at)."""
    (releases.builds / "3.1.0" / "behaviour").write_text("3.1.0 ok")
    text = releases.manifest.read_text()  # the old spelling's entry: only where it shows
    releases.manifest.write_text(text.replace('compiler = "<3.3"', 'compiler = ">=3.2,<3.3"', 1))
    for version in RELEASES:
        tool = releases.builds / version / "iree-compile"
        tool.write_text(tool.read_text().replace(
            'if mode == "bug":', 'if version == "3.0.0":\n'
            '    print("m.mlir:3:3: error: \'memref.collapse_shape\' op expected collapsed type", file=sys.stderr)\n'
            '    sys.exit(1)\n'
            'if mode == "bug":', 1))
    assert cli_main(["prove", "fake-case", "--scan", "--write"]) == 0
    assert "also seen beside the bug, no expectation takes it (cpu-O0)" in capsys.readouterr().out
    case = load_case(releases.manifest)
    other = case.expectation_for("cpu", "O0", None, Version("3.0.0"))
    assert other is not None and "collapse_shape" in other.match.pattern
    assert "not the case's bug; not yet triaged" in other.reason
    (w,) = case.history.windows
    assert (w.first_bad, w.last_bad) == ("3.3.0", "3.4.0")  # the bug's window is unchanged
    assert lint_case(releases.manifest, []) == []


def test_an_item_outside_bad_items_that_shows_the_bug_becomes_one_of_its_items(releases, capsys):
    text = releases.manifest.read_text().replace('targets = ["cpu"]\nopt_levels', 'targets = ["cpu", "vulkan"]\nopt_levels')
    releases.manifest.write_text(text.replace('[history]\n', '[history]\nbad_items = ["cpu-O0"]\n'))
    assert cli_main(["prove", "fake-case", "--scan", "--write"]) == 0
    assert "the bug shows on vulkan-O0 too" in capsys.readouterr().out  # its own message, 3.3.0-3.4.0
    case = load_case(releases.manifest)
    assert case.history.bad_items == ("cpu-O0", "vulkan-O0")
    bug = case.expectation_for("vulkan", "O0", None, Version("3.4.0"))
    assert bug is not None and "bufferize" in bug.match.pattern

UNKNOWN_OPTION_TOOL = FAKE_HEADER + """\
if mode != "ok":  # 3.1.0-3.4.0: an option of the case's was renamed
    print("iree-compile: Unknown command line argument '--iree-old-spelling=1'.  Try: 'iree-compile --help'",
          file=sys.stderr)
    print("iree-compile: Did you mean '--iree-new-spelling=1'?", file=sys.stderr); sys.exit(1)
out = sys.argv[sys.argv.index("-o") + 1]
open(out, "wb").write(b"PK\\x03\\x04" + b"\\0" * 64)
"""


def test_a_release_that_does_not_know_an_option_measured_nothing(releases, capsys):
    """A compiler refusing an option of the case's said nothing of its program: those
    releases are no window's bad (nor good) release, and the scan says which option."""
    install_fake(releases.builds, ("iree-compile", "iree-opt", "iree-run-module"), UNKNOWN_OPTION_TOOL)
    text = releases.manifest.read_text()
    releases.manifest.write_text(text[:text.index("[history]")])
    assert cli_main(["prove", "fake-case", "--scan", "--bad-outcome", "compile-fail", "--write"]) == 0
    out = capsys.readouterr().out
    assert "3.3.0 does not know --iree-old-spelling (it suggests --iree-new-spelling): nothing measured" in out
    assert "[[history.window]]" not in releases.manifest.read_text()


def test_failures_hiding_the_bug_with_different_messages_are_one_expectation_each():
    """2.9.0 cannot parse the program, 3.0.0 lacks a pass option, then the bug: each
    hiding failure is written with its own message, never as one unmatched expectation."""
    parse = ("ir-fail", "exit code 1: m.mlir:1:25: error: duplicate or unknown struct parameter name: sizes")
    option = ("ir-fail", "exit code 1: <unknown>:0: error: <Pass-Options-Parser>: no such option test-resolver")
    bug = ("ir-fail", "exit code 1: m.mlir:6:8: error: 'tensor.expand_shape' op expected collapsed rank (2)")
    runs = [run("2.9.0", ir_passes=parse), run("3.0.0", ir_passes=option), run("3.1.0", ir_passes=bug)]
    runs = [ReleaseRun(r.version, [result(*o, name="ir-passes") for o in ([parse], [option], [bug])[j]])
            for j, r in enumerate(runs)]
    m = windows(runs, Bug(("ir-fail",), re.compile("expected collapsed rank"), ()))
    assert sorted((h.versions, h.match) for h in m.hidden) == [
        (("2.9.0",), "duplicate or unknown struct parameter name: sizes"),
        (("3.0.0",), "no such option test-resolver")]


def test_a_tool_killed_at_a_bound_is_matched_by_the_bounds_words():
    """An out-of-memory or time-out hiding the bug has no diagnostic: its expectation is
    matched by the bound's own words, never written without a match."""
    oom = result("compile-oom", "killed at 8193 MB resident (memory bound)\nlog tail")
    slow = result("compile-timeout", "killed after 600 s (time bound)")
    assert derive_match([oom]) == r"killed at \d+ MB resident \(memory bound\)"
    assert re.search(derive_match([slow]), "killed after 1200 s (time bound)")


def test_a_stack_overflow_is_matched_by_its_recursion_not_its_top_frame():
    """bmm-permuted-lhs-amdgpu-fat-pointer-crash: two AMDGPU methods call each other until
    the stack runs out, so the top frame is wherever it ended (a DenseMap on one run, the
    visitor on another): the match is the recurring frame's class in the dump."""
    dump = "\n".join(f"#{i} 0x00007efe7c7b01fe (anonymous namespace)::SplitPtrStructs::"
                     + ("getPtrParts(llvm::Value*)" if i % 2 else "visitGetElementPtrInst(llvm::GetElementPtrInst&)")
                     + " AMDGPULowerBufferFatPointers.cpp:0:0" for i in range(238, 256))
    cold = result("compile-crash", "crashed (SIGSEGV): at llvm::ValueHandleBase::AddToUseList()\n" + dump)
    match = derive_match([cold])
    assert match == r"crashed \(SIGSEGV\)(?s:.*)SplitPtrStructs::"
    assert re.search(match, "crashed (SIGSEGV): at (anonymous namespace)::SplitPtrStructs::getPtrParts(llvm::Value*)")
    short = result("compile-crash", "crashed (SIGSEGV): at mlir::Foo::bar()\n" + "\n".join(dump.splitlines()[:4]))
    assert derive_match([short]) == r"crashed \(SIGSEGV\): at .*\bFoo::"  # a few frames are no recursion
    # the class name whole: another class whose name ends so is another frame
    assert not re.search(derive_match([short]), "crashed (SIGSEGV): at mlir::BarFoo::bar()")


def test_a_crash_sample_keeps_the_frames_under_a_container_top_frame():
    """gather-plus-ones-fusion-crash-before-3-1: the top frame is a DenseMap inside the type
    uniquer; the bug (elementwise fusion concatenating no indexing maps) is frames below.
    The window's sample keeps them, so a match naming them takes the sample (lint checks)."""
    # as the compiler prints it: each frame with its library's path and offset, or its file
    text = ("crashed (SIGSEGV): at llvm::DenseMapBase<llvm::DenseMap<mlir::TypeID, X>>::operator[]\n"
            "Please report issues to https://example.invalid and include the crash backtrace.\n"
            " #0 0x00007faad68dded8 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/opt/iree/lib/libIREECompiler.so+0x54dded8)\n"
            " #1 0x00007faad68dbc7e llvm::sys::RunSignalHandlers() (/opt/iree/lib/libIREECompiler.so+0x54dbc7e)\n"
            " #2 0x00007faad68de58d SignalHandler(int) Signals.cpp:0:0\n"
            " #3 0x00007faad125a050 (/lib/x86_64-linux-gnu/libc.so.6+0x3c050)\n"
            " #4 0x00007faad6a13f05 llvm::DenseMapBase<llvm::DenseMap<mlir::TypeID, X>>::operator[] StorageUniquer.cpp:0:0\n"
            " #5 0x00007faad690e4c4 mlir::concatAffineMaps(llvm::ArrayRef<mlir::AffineMap>) (/opt/iree/lib/libIREECompiler.so+0x550e4c4)\n"
            " #6 0x00007faad9e04f27 mlir::linalg::fuseElementwiseOps(mlir::RewriterBase&, mlir::OpOperand*) (/opt/iree/lib/libIREECompiler.so+0x8a04f27)\n")
    sample = sample_of(text)
    assert re.search(r"crashed \(SIGSEGV\)(?s:.*)concatAffineMaps(?s:.*)fuseElementwiseOps", sample)
    assert "PrintStackTrace" not in sample and "SignalHandler" not in sample and "0x" not in sample
    assert "mlir::concatAffineMaps(llvm::ArrayRef<mlir::AffineMap>)" in sample.splitlines()
    # a diagnostic is not a crash: its sample is what it was
    assert "concatAffineMaps" not in sample_of("exit code 1: model.mlir:1:1: error: boom\n" + text.split("\n", 2)[2])


def test_a_release_that_measured_only_some_items_is_never_good():
    """A compiler that does not know one item's option measured nothing of that item: the
    items it did measure passing make it neither a window's good release nor prove's."""
    from harness.history.prove import judge
    from harness.history.window import UNKNOWN, release_state

    partial = run("3.2.0", cpu_O0="pass")
    partial.unmeasured = {"hip-O0": "--iree-old-spelling"}
    assert release_state(partial, BUFFERIZE) == UNKNOWN
    check = judge(partial, "first_good", BUFFERIZE)
    assert check.ok is None and "hip-O0 not measured: does not know --iree-old-spelling" in check.detail
    runs = [run("3.0.0", cpu_O0="pass"), run("3.1.0", cpu_O0=BAD), partial, run("3.3.0", cpu_O0="pass")]
    (w,) = windows(runs, BUFFERIZE).windows
    assert w.first_good == "3.3.0"  # not the partly measured 3.2.0


def test_a_failure_beside_the_bug_with_no_message_is_never_written_without_one():
    from harness.history.others import Other
    from harness.item import ItemId

    wordless = Other(frozenset({ItemId.parse("vulkan-O0")}), "run-crash", None, "3.4.0", "3.5.0")
    block = wordless.block()
    assert "match =" not in block and "# match: none could be derived" in block
    said = Other(frozenset({ItemId.parse("vulkan-O0")}), "run-crash", r"crashed \(SIGSEGV\)", "3.4.0", "3.5.0")
    assert 'match = "crashed \\\\(SIGSEGV\\\\)"' in said.block() and 'compiler = ">=3.4.0,<=3.5.0"' in said.block()


def test_a_failure_hiding_the_bug_before_its_onset_is_written_once(releases, capsys):
    """3.1.0 and 3.2.0 fail another way right before the bug's onset, with no expectation
    of their own: the scan writes one entry for what hides the bug there, and does not
    also write the same failure again as one "beside the bug" (planted: it did, for every
    hidden release but the last; a case had ten such entries twice)."""
    text = releases.manifest.read_text()
    hand = text[text.index("[[expect]]"):text.index("[history]")]
    releases.manifest.write_text(text.replace(hand, ""))
    assert cli_main(["prove", "fake-case", "--scan", "--write"]) == 0
    written = releases.manifest.read_text()
    assert written.count("old\\\\.spelling") == 1, written
    case = load_case(releases.manifest)
    for version in ("3.1.0", "3.2.0"):
        e = case.expectation_for("cpu", "O0", None, Version(version))
        assert e is not None and "hides the bug before" in e.reason
    assert lint_case(releases.manifest, []) == []


def test_an_item_whose_bug_turns_into_another_failure_is_still_open():
    """cpu shows the bug on 3.0.0..3.1.0 and fails another way on 3.2.0, no fix seen (as
    index-put-self-updates-overwritten-before-read: wrong values, then refused): its entry
    ends at 3.1.0 and its reason says still open, not that the bug stopped."""
    from types import SimpleNamespace

    from harness.history.writeback import expectations_for

    runs = [run("3.0.0", cpu_O0=BAD), run("3.1.0", cpu_O0=BAD), run("3.2.0", cpu_O0=OTHER)]
    blocks = expectations_for(SimpleNamespace(threads=(), found_by="sweep"), BUFFERIZE, windows(runs, BUFFERIZE))
    bug = [b for b in blocks if "measured 3.0.0..3.1.0" in b]
    assert len(bug) == 1 and "still open (another failure after it" in bug[0]
