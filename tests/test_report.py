"""Reports: failure signatures, run diffs, Markdown, and the HTML matrix as headless
Chromium renders it (cell count and colours read back from the rendered page)."""

import json
import re
import shutil
import subprocess

import pytest

from harness.cli import main as cli_main
from harness.outcomes import CELL_STATES
from harness.record import ItemRecord
from harness.report.render import html_page, markdown
from harness.results import ResultsWriter, read_results
from harness.report.rundiff import diff_runs
from harness.signatures import group_failures, normalise
from harness.report.summary import build

ENV = {"compiler_version": "3.13.0rc20261016", "compiler_revision": "89ece87b8985" + "0" * 28,
       "runtime_version": "3.13.0rc20261016", "packages": {"torch": "2.13.0"},
       "host_cpu": "Test CPU", "machine": "x86_64",
       "device_info": {"vulkan": [{"name": "llvmpipe", "driver": "llvmpipe", "driver_info": "Mesa"}]}}


def stage(name, status="ok", detail="", log="", seconds=0.5, data=None):
    return {"stage": name, "status": status, "detail": detail, "log": log, "command": f"{name} cmd",
            "seconds": seconds, "peak_rss_mb": 10.0, "cached": False, "data": data or {}}


def item(case, name, verdict, stages, compile_only=False, ir_check=None):
    bad = next((s for s in stages if s["status"] not in ("ok", "skip")), None)
    outcome = f"{bad['stage']}-{bad['status']}" if bad else "pass"
    target, _, level = name.rpartition("-")
    return ItemRecord.from_dict({"case": case, "title": f"title of {case}", "item": name, "target": None if ir_check else target,
            "opt_level": None if ir_check else level, "ir_check": ir_check, "compiler": "3.13.0",
            "outcome": outcome, "verdict": verdict, "compile_only": compile_only,
            "issues": ["iree-org/iree#1234"], "stages": stages, "message": f"{verdict} {outcome}",
            "reproducer": f"iree-compile {case}.mlir --flags # {name}"})


WRONG = {"comparisons": [{"against": "golden", "ok": False, "problem": "",
                          "outputs": [{"index": 0, "ok": False}]}]}


def current_items():
    ok = [stage("import"), stage("compile"), stage("run"), stage("compare")]
    return [
        item("alpha", "cpu-O0", "PASS", ok),
        item("alpha", "cpu-O3", "FAIL", [stage("import"), stage("compile"), stage("run"),
                                         stage("compare", "fail", "vs golden: output 0: 3/8 differ", data=WRONG)]),
        item("alpha", "hip-O0", "PASS", [stage("import"), stage("compile"), stage("run", "skip", "compile-only")],
             compile_only=True),
        item("alpha", "hip-O3", "XFAIL", [stage("import"), stage("compile", "fail", "error: failed to bufferize op")]),
        item("beta", "cpu-O0", "FAIL", [stage("import"), stage("compile", "crash", "crashed (SIGSEGV)")]),
        item("beta", "cpu-O3", "FAIL", [stage("import"), stage("compile", "timeout", "killed after 300 s")]),
        item("beta", "vulkan-O0", "FAIL", [stage("import"), stage("compile", "oom", "killed at 9000 MB")]),
        item("beta", "vulkan-O3", "FAIL", [stage("import"), stage("compile"), stage("run", "garbage", "unreadable")]),
        item("beta", "cuda-O0", "XPASS", ok),
        item("beta", "cuda-O3", "UNOBSERVED", [stage("import"), stage("compile"), stage("run", "skip", "no cuda device here")],
             compile_only=True),
        item("gamma", "ir-strip", "SKIP", [stage("ir", "skip", "not for this compiler")], ir_check="strip"),
        item("gamma", "cpu-O0", "FAIL", [stage("import"), stage(
            "compile", "fail", "/tmp/a/model.mlir:12:3: error: 'tensor.pad' op %arg3 has 4x?x8xf32 type")]),
        item("gamma", "cpu-O1", "FAIL", [stage("import"), stage(
            "compile", "fail", "/other/dir/model.mlir:99:7: error: 'tensor.pad' op %11 has 16x?x2xf32 type")]),
        ItemRecord(case="delta", item="(collect)", outcome="collect-error", verdict="ERROR",
                   message="malformed case: cases/delta/case.toml: field 'kind': unknown kind"),
    ]


def previous_items():
    ok = [stage("import"), stage("compile", seconds=0.5), stage("run"), stage("compare")]
    return [
        item("alpha", "cpu-O0", "PASS", [stage("import"), stage("compile", seconds=4.0), stage("run"),
                                         stage("compare")]),
        item("alpha", "cpu-O3", "PASS", ok),
        item("beta", "cpu-O0", "FAIL", [stage("import"), stage("compile", "crash", "crashed (SIGSEGV)")]),
        item("gamma", "cpu-O0", "PASS", ok),
        item("old", "cpu-O0", "PASS", ok),
    ]


def write_results(path, items):
    w = ResultsWriter(path)
    w.start({"environment": ENV})
    for i in items:
        w.append(i)
    return path


@pytest.fixture
def results(tmp_path):
    return (write_results(tmp_path / "now.jsonl", current_items()),
            write_results(tmp_path / "before.jsonl", previous_items()))


def test_signature_strips_paths_ssa_numbers_and_shapes():
    a = normalise("/tmp/a/model.mlir:12:3: error: 'tensor.pad' op %arg3 has 4x?x8xf32 type")
    b = normalise("/other/dir/model.mlir:99:7: error: 'tensor.pad' op %11 has 16x?x2xf32 type")
    assert a == b
    assert "tensor.pad" in a and "/tmp" not in a and "%arg3" not in a
    assert normalise("error: failed to legalize") != normalise("error: failed to bufferize")


def test_failures_grouped_and_miscompiles_first():
    groups = group_failures(current_items())
    assert groups[0].outcome == "compare-fail"
    pad = [g for g in groups if "tensor.pad" in g.signature]
    assert len(pad) == 1 and len(pad[0].items) == 2  # two items, one reason
    order = [g.outcome for g in groups]
    assert order.index("compile-crash") < order.index("compile-fail") < order.index("compile-timeout")


def test_run_diff():
    d = diff_runs(previous_items(), current_items())
    assert {i.key for i in d.new_failures} >= {"alpha::cpu-O3", "gamma::cpu-O0", "gamma::cpu-O1"}
    assert "beta::cpu-O0" not in {i.key for i in d.new_failures}  # failed before too
    assert [i.item for i in d.unexpected_passes] == ["cuda-O0"]
    assert [i.key for i in d.errors] == ["delta::(collect)"]
    assert [c.key for c in d.time_changes] == ["alpha::cpu-O0"]  # 4.0 s -> 0.5 s
    assert d.gone == ["old::cpu-O0"] and d.regressed
    calm = [i for i in current_items() if i.verdict in ("PASS", "XFAIL")]
    assert not diff_runs(calm, calm).regressed
    assert diff_runs(current_items(), calm).gone  # items that vanished count


def test_markdown_has_environment_matrix_links_and_reproducers(results):
    md = markdown(build(*results))
    assert "3.13.0rc20261016 @ 89ece87b8985" in md and "llvmpipe" in md and "Test CPU" in md
    assert "[iree-org/iree#1234](https://github.com/iree-org/iree/issues/1234)" in md
    assert "iree-compile alpha.mlir --flags # cpu-O3" in md
    assert "New failures" in md and "Unexpected passes" in md
    assert md.index("compare-fail") < md.index("compile-crash")


def test_report_command_fails_only_on_regressions(results, tmp_path):
    now, before = results
    out = tmp_path / "out"
    assert cli_main(["report", str(now), "--previous", str(before), "--out", str(out),
                     "--fail-on-regression"]) == 1
    assert (out / "summary.md").is_file() and (out / "report.html").is_file()
    calm = write_results(tmp_path / "calm.jsonl", [i for i in current_items() if i.verdict == "PASS"])
    assert cli_main(["report", str(calm), "--previous", str(calm), "--out", str(out),
                     "--fail-on-regression"]) == 0


@pytest.mark.parametrize("change", ["case deleted", "case unloadable", "harness error", "worker crash"])
def test_a_vanished_or_broken_case_fails_the_gate(tmp_path, change):
    ok = [stage("import"), stage("compile"), stage("run"), stage("compare")]
    before = [item("alpha", "cpu-O0", "PASS", ok), item("beta", "cpu-O0", "PASS", ok)]
    now = [before[0]]
    if change == "case unloadable":
        now.append(ItemRecord(case="beta", item="(collect)", outcome="collect-error", verdict="ERROR",
                              message="malformed case"))
    elif change in ("harness error", "worker crash"):
        outcome = "harness-error" if change == "harness error" else "worker-crash"
        now.append(ItemRecord(case="beta", item="cpu-O0", outcome=outcome, verdict="ERROR",
                              message="the pytest worker died during the compile stage"))
    old = write_results(tmp_path / "old.jsonl", before)
    new = write_results(tmp_path / "new.jsonl", now)
    out = tmp_path / "out"
    assert cli_main(["report", str(new), "--previous", str(old), "--out", str(out),
                     "--fail-on-regression"]) == 1
    summary = (out / "summary.md").read_text()
    assert "## Gate: FAIL" in summary and "beta::" in summary
    # Without --previous an error still fails the gate; a deleted case needs the previous run.
    if change != "case deleted":
        assert cli_main(["report", str(new), "--out", str(out), "--fail-on-regression"]) == 1


def test_a_line_cut_short_is_skipped_with_a_warning(tmp_path, capsys):
    path = write_results(tmp_path / "r.jsonl", current_items()[:2])
    with open(path, "a") as f:
        f.write('{"type": "item", "case": "alp')
    warnings = []
    _, items = read_results(path, warnings.append)
    assert len(items) == 2 and "not JSON" in warnings[0]
    assert cli_main(["report", str(path), "--out", str(tmp_path / "out")]) == 0
    assert "cut short" in capsys.readouterr().err


def _rgb(hex_colour):
    h = hex_colour.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(h[i:i + 2], 16) for i in (0, 2, 4)))


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian package chromium not installed")
def test_html_matrix_renders_in_headless_chromium(results, tmp_path):
    model = build(*results)
    page = tmp_path / "report.html"
    page.write_text(html_page(model))
    dom = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=2000", "--dump-dom",
         page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    m = re.search(r'<pre id="render-check" hidden="">(.*?)</pre>', dom, re.S)
    assert m, f"no render check in the rendered page: {dom[:500]}"
    seen = json.loads(m.group(1).replace("&quot;", '"'))
    assert seen["cells"] == len(model.items) - 1 == 13  # the collect error sits in the case column
    want = {_rgb(CELL_STATES[s].colour): n for s, n in model.counts.items() if n and s != "error"}
    assert seen["colours"] == want
    assert {i.cell_state for i in model.items} == set(CELL_STATES)  # every state is drawn


def test_docs_families_is_what_list_markdown_prints(capsys, monkeypatch):
    """docs/families.md is generated: regenerate it with `iree-regress list --markdown`."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    monkeypatch.chdir(root)
    assert cli_main(["list", "--markdown"]) == 0
    assert capsys.readouterr().out == (root / "docs" / "families.md").read_text(), \
        "docs/families.md is stale: run `iree-regress list --markdown > docs/families.md`"


def _wide_results(tmp_path):
    """Every target and level, IR checks with long names, a long case name."""
    from harness.targets import OPT_LEVELS, TARGETS

    items = []
    for n, slug in enumerate(["a-rather-long-case-name-about-scatter-and-dynamic-shapes", "b", "c"]):
        for t in TARGETS:
            for o in OPT_LEVELS:
                items.append(ItemRecord(case=slug, item=f"{t}-{o}", outcome="pass", verdict="PASS",
                                        target=t, opt_level=o, windows="3.2.0 < [3.3.0 .. 3.13.0] open"))
        for name in ("strip-compilation-info-from-attention", "no-huge-vector"):
            items.append(ItemRecord(case=slug, item=f"ir-{name}", outcome="ir-fail", verdict="XFAIL",
                                    ir_check=name, message="known", windows="<= [2.9.0 .. 3.7.0] < 3.8.0"))
    return write_results(tmp_path / "wide.jsonl", items)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian package chromium not installed")
def test_the_whole_matrix_fits_1400_by_1000_in_chromium(tmp_path):
    """At 1400x1000 the matrix's last column (cuda O3, then the IR checks) is on screen."""
    page = tmp_path / "report.html"
    page.write_text(html_page(build(_wide_results(tmp_path))))
    dom = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,1000",
         f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=2000", "--dump-dom",
         page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    seen = json.loads(re.search(r'<pre id="render-check" hidden="">(.*?)</pre>', dom, re.S)
                      .group(1).replace("&quot;", '"'))
    assert seen["viewport"] == 1400
    assert 0 < seen["last_column_right"] <= seen["viewport"], seen


def test_compile_only_cells_say_why_and_known_bugs_are_listed_by_issue(results):
    page = html_page(build(*results))
    assert "pass (PASS)" not in page
    assert "Known bugs by issue" in page and "New failures by signature" in page


def test_every_cell_state_has_a_mark_of_its_own():
    marks = [s.mark for s in CELL_STATES.values()]
    assert all(len(m) == 1 for m in marks) and len(set(marks)) == len(marks)


@pytest.mark.harness
def test_summary_md_carries_no_raw_markup(tmp_path):
    """GitHub renders summary.md as the job summary: a slug, title, issue or compiler
    message holding markup appears escaped, or inside a code span, never raw."""
    evil = "<img src=x onerror=alert(1)>"
    hostile = item(f"case{evil}", "cpu-O0", "FAIL",
                   [stage("import"), stage("compile", "fail", f"error: {evil} in the compiler's words")])
    hostile.title = f"title {evil}"
    hostile.issues = [f"iree-org/iree#1{evil}"]
    hostile.reproducer = f"iree-compile {evil}"
    now = write_results(tmp_path / "now.jsonl", [hostile])
    before = write_results(tmp_path / "before.jsonl", [item("gone" + evil, "cpu-O0", "PASS", [stage("import")])])
    text = markdown(build(now, before))
    outside_code = []
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            outside_code.append(re.sub(r"`[^`]*`", "", line))  # code spans show markup as written
    assert not any("<img" in line for line in outside_code), "\n".join(l for l in outside_code if "<img" in l)
    assert "&lt;img" in text


def test_a_results_file_that_cannot_be_read_is_one_line_naming_it(tmp_path, capsys):
    """`expect --update --from R CASE` takes CASE for a second results file (nargs='+'):
    that, like a misspelt path, is said in one line, never a traceback."""
    from harness.cli import main as cli_main

    with pytest.raises(SystemExit, match=r"no-such\.jsonl: cannot read these results \(No such file"):
        cli_main(["report", str(tmp_path / "no-such.jsonl")])
    (tmp_path / "run.jsonl").write_text("")
    with pytest.raises(SystemExit, match="topk-sigmoid: cannot read these results"):
        cli_main(["expect", "--update", "--from", str(tmp_path / "run.jsonl"), "topk-sigmoid"])


def _nightly_items():
    """A nightly's shape: four families' sweeps with hundreds of variants (grid axes and
    generated programs with traits), a few cases, one variant failing anew."""
    ok = [stage("import"), stage("compile"), stage("run"), stage("compare")]
    known = [stage("import"), stage("compile", "fail", "error: known")]
    items = [item("a-case-about-topk", f"cpu-{lvl}", "PASS", ok) for lvl in ("O0", "O3")]
    for family in ("attention", "scatter", "topk", "transpose"):
        for n in range(150):
            grid = f"{family}::dtype={('f16', 'f32', 'i32')[n % 3]},dims={('static', 'dynamic')[n % 2]},n={n}"
            deep = f"{family}-deep::flags={('default', 'data_tiling')[n % 2]},seed={n}"
            for case, traits in ((grid, []), (deep, [f"dtype=f{16 * (1 + n % 2)}", f"context=ctx{n % 9}"])):
                for lvl in ("O0", "O3"):
                    failing = n % 3 == 0 and case == grid
                    record = item(case, f"cpu-{lvl}", "XFAIL" if failing else "PASS", known if failing else ok)
                    record.family, record.traits = family, traits
                    items.append(record)
    last = items[-1]  # transpose-deep seed 149: dtype=f32, context=ctx5
    items[-1] = item(last.case, last.item, "FAIL", known)
    items[-1].family, items[-1].traits = last.family, last.traits
    return items


@pytest.mark.harness
def test_sweeps_are_heat_maps_and_only_variants_that_need_a_reader_are_matrix_rows(tmp_path):
    from harness.report.heatmap import heat_maps

    model = build(write_results(tmp_path / "night.jsonl", _nightly_items()))
    heats = {h.family: h for h in heat_maps(model)}
    assert sorted(heats) == ["attention", "scatter", "topk", "transpose"]
    topk = heats["topk"]
    assert topk.variants == 300 and topk.sweeps == {"topk", "topk-deep"}
    f16 = topk.rows["dtype=f16"]["cpu"]  # 50 grid variants (all failing as recorded) + 75 generated
    assert (f16.failing, f16.new, f16.items) == (100, 0, 250)
    assert "seed=0" not in topk.rows and "context=ctx3" in topk.rows  # seeds are draws, not axes
    assert heats["transpose"].rows["context=ctx5"]["cpu"].new == 1
    page = html_page(model)
    assert page.count("<td class='case'") == 2  # the case and the one variant failing anew
    assert "transpose-deep::flags=data_tiling,seed=149" in page and "seed=148" not in page


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian package chromium not installed")
def test_a_nightly_reports_first_screen_at_1400_shows_the_gate_changes_and_heat_maps(tmp_path):
    """Screenshot test: at 1400x1000 the gate, what changed and the heat maps are on the
    first screen, and no case or axis name runs over its cell."""
    night = write_results(tmp_path / "night.jsonl", _nightly_items())
    before = write_results(tmp_path / "before.jsonl", [i for i in _nightly_items()[:-1]])
    page = tmp_path / "report.html"
    page.write_text(html_page(build(night, before)))
    flags = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,1000",
             "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=2000"]
    dom = subprocess.run([*flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    seen = json.loads(re.search(r'<pre id="render-check" hidden="">(.*?)</pre>', dom, re.S)
                      .group(1).replace("&quot;", '"'))
    assert seen["viewport"] == 1400 and seen["overflowing_names"] == 0, seen
    assert 0 < seen["gate_top"] < seen["heat_top"] < seen["viewport_height"] - 250, seen
    shot = tmp_path / "first-screen.png"
    subprocess.run([*flags, f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120)
    header = shot.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(header[16:20], "big") == 1400


def test_releases_table_counts_each_release_and_gates_on_red(tmp_path, capsys):
    """ci/releases' table: a release a row per target; a failure, an unexpected pass or an
    error anywhere makes `--fail-on-red` exit 1 and names the item (planted on 3.5.0)."""
    from harness.report.releases import read_runs, table

    ok = [stage("import"), stage("compile"), stage("run"), stage("compare")]
    bad = [stage("import"), stage("compile", "fail", "error: boom")]
    runs = tmp_path / "releases"
    write_results(runs / "3.4.0-cpu" / "results.jsonl",
                  [item("alpha", "cpu-O0", "PASS", ok), item("alpha", "cpu-O3", "XFAIL", bad)])
    write_results(runs / "3.10.0-cpu" / "results.jsonl", [item("alpha", "cpu-O0", "PASS", ok)])
    write_results(runs / "3.4.0-vulkan" / "results.jsonl", [item("alpha", "vulkan-O0", "PASS", ok)])
    (runs / "not-a-run").mkdir()
    assert [(r.release, r.target) for r in read_runs(runs)] == [
        ("3.4.0", "cpu"), ("3.10.0", "cpu"), ("3.4.0", "vulkan")]  # 3.10.0 after 3.4.0
    text = table(read_runs(runs))
    assert "| 3.4.0 | 1 | 1 | 0 | 0 | 0 | 0 |" in text and "cpu: 0 red on every release." in text
    assert cli_main(["releases", str(runs), "--fail-on-red"]) == 0

    write_results(runs / "3.5.0-vulkan" / "results.jsonl",
                  [item("alpha", "vulkan-O0", "FAIL", bad), item("alpha", "vulkan-O3", "XPASS", ok)])
    capsys.readouterr()
    assert cli_main(["releases", str(runs), "--fail-on-red"]) == 1
    out, err = capsys.readouterr()
    assert "vulkan: red on 3.5.0." in out
    assert "red on 3.5.0 vulkan: alpha::vulkan-O0" in err and "alpha::vulkan-O3" in err
    assert cli_main(["releases", str(runs)]) == 0  # without the gate: the table only
