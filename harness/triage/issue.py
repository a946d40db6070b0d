"""The triage's bundle: ISSUE.md ready to paste upstream, the files its steps use, and
TRIAGE.json with every measurement.

    ISSUE.md                summary, versions and revisions, first bad / last good, the
                            reduced program inline when short, the phase and pass with a
                            small diff, steps that run as pasted in this folder
    input.mlir              the program the steps compile (the reduced one when reduction
                            kept the bug)
    inputs/ expected/       .npy inputs and the good release's outputs (wrong numbers)
    run.sh, run_bundle.py, compare.py, bundle.json      as in `iree-regress repro`
    checks.mlir             an IR check's FileCheck file
    crash-reproducer.mlir   MLIR's local reproducer of the failing pass
    TRIAGE.json             what each step measured, and its seconds
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np

from .. import targets
from ..bundle import paste
from ..cache import cache_root
from ..bundle.write import case_steps, lay_out, reference_name
from ..outcomes import PASS_OUTCOME, plain_words
from ..reference import npy_files
from ..item import settings_with
from ..stages import compile_stage, import_stage
from .where import confirmed_where, localized
from .oracle import observe
from .program import size, write_inputs

INLINE_LINES = 60  # the reduced program goes into ISSUE.md when it is this short
REVISION_URL = "https://github.com/iree-org/iree/compare/{good}...{bad}"


def _versions(t) -> tuple[str, str]:
    """(bad, good) as pip spells them."""
    # A fix bisect walks from the good (newer) end, so its first_bad is the last broken.
    return t.bisect.first_bad, t.bisect.last_good


def _size_line(t) -> str:
    ops0, lines0 = size(t.start.read_text())
    if t.program is t.start:
        return f"{ops0} ops, {lines0} lines (not reduced: {t.reduction or 'see the triage log'})"
    ops1, lines1 = size(t.program.read_text())
    if (ops1, lines1) == (ops0, lines0):
        return f"{ops0} ops, {lines0} lines (the reduction removed nothing: {t.reduction})"
    return (f"{ops0} ops / {lines0} lines -> {ops1} ops / {lines1} lines "
            f"({100 * lines1 / max(lines0, 1):.0f}% of the lines, {t.reduction})")


def _the_bug(t) -> str:
    return " or ".join(plain_words(o) for o in t.bug.outcomes)


def _releases(t) -> list[paste.PastedRelease]:
    bad_v, good_v = _versions(t)
    q = t.question
    bad = paste.PastedRelease(bad_v, q.bad.flags, f"has the bug ({_the_bug(t)})")
    return [bad, paste.PastedRelease(good_v, q.good.flags, "does not")] if q.good else [bad]


def _write_files(t, out: Path) -> str:
    """The bundle's files; returns the steps, as pasted in an empty folder (paste.py)."""
    q, program = t.question, t.program
    releases = _releases(t)
    if q.mode == "ir":
        shutil.copy(program, out / "input.mlir")
        shutil.copy(q.ir["checks"], out / "checks.mlir")
        return paste.ir_steps(program.read_text(), Path(q.ir["checks"]).read_text(), releases,
                              q.ir["tool"], q.ir["args"], q.ir["prefix"])
    _, vmfb = compile_stage(program, list(q.bad.flags), q.settings(q.bad))
    runs = q.mode == "differential" or t.bug.needs_device()
    inputs = [Path(p) for p in q.inputs] if runs else []
    expected = []
    if runs and q.good:  # the good release's outputs are what the bad release should give
        outputs = observe(q, q.good, program, True).outputs or []
        expected = write_inputs(outputs, out / "work" / "expected")
    meta = {"case": t.case.slug, "item": t.item.name, "target": t.target,
            "opt_level": t.configuration[1], "atol": q.atol, "rtol": q.rtol, "output_rules": [],
            "outcome": t.bug.description, "issues": list(t.case.threads),
            "expected_from": f"IREE {releases[1].version} (the good release)" if len(releases) > 1 else ""}
    driver = targets.BY_NAME[t.target].driver
    lay_out(out, program, vmfb, inputs, expected, list(q.bad.flags), driver,
            q.function, meta, f"{t.case.slug}::{t.item.name}: triage, IREE {releases[0].version}")
    arrays = [np.load(p) for p in inputs]
    if q.mode == "differential":
        return paste.steps(program.read_text(), releases, q.function, driver, arrays,
                           [np.load(p) for p in expected], q.atol, q.rtol, expected_from=f"IREE {releases[1].version}")
    return paste.steps(program.read_text(), releases, q.function, driver, arrays, [] if runs else None,
                       q.atol, q.rtol)


def _golden_steps(t) -> str:
    """For wrong numbers: the case's own program on both releases against PyTorch's values
    (the reduced program has no PyTorch reference; this shows the good release agrees)."""
    case, q = t.case, t.question
    if q.mode != "differential" or not npy_files(case.expected_dir):
        return ""
    releases = _releases(t)
    texts = {}
    for r, side in zip(releases, (q.bad, q.good)):
        _, mlir = import_stage(case, settings_with(side.toolchain))  # the run's own cache: imported once
        if mlir is None:
            return ""
        texts[r.version] = mlir.read_text()
    return case_steps(case, texts, releases, targets.BY_NAME[t.target].driver,
                      [np.load(p) for p in npy_files(case.expected_dir)])


def _summary(t, bad_v: str, good_v: str | None) -> str:
    q = t.question
    if good_v is None:  # an open bug no release passes
        parts = [f"On IREE {bad_v}, `{t.case.slug}::{t.item.name}` fails ({_the_bug(t)}). No release measured "
                 f"passes it ({t.case.history.describe()}), so there is no boundary to bisect."]
        if t.reduced_check and t.reduced_check[0]:
            parts.append(f"Reduced from {_size_line(t)}; the reduced program fails the same way.")
        if t.failing_pass:
            parts.append(f"It fails in `{t.failing_pass}` (the pass MLIR's crash reproducer names).")
        return " ".join(parts)
    what = {"differential": "computes different numbers than",
            "outcome": f"fails ({_the_bug(t)}) where",
            "ir": "fails its IR check where"}[q.mode]
    parts = [f"On IREE {bad_v}, `{t.case.slug}::{t.item.name}` {what} IREE {good_v} "
             f"({'passes' if q.good_outcome == PASS_OUTCOME else 'gives ' + q.good_outcome})."]
    if t.item.is_differ:  # the bug is two compiles disagreeing: say which one moved
        differ = t.case.differ_named(t.item.differ)
        moved, other = (differ.b, differ.a) if t.side == "b" else (differ.a, differ.b)
        parts.append(f"The bug is a difference: on IREE {bad_v} the program compiled as {t.side} "
                     f"(`{moved.describe()}`) and as `{other.describe()}` disagree on the same inputs; "
                     f"what follows compares {t.side}'s compile on the two releases.")
    b = t.bisect
    parts.append(f"Bisect over {len(b.versions)} releases ({len(b.probes)} probes): "
                 + (f"first fixed {b.last_good}, last broken {b.first_bad}." if t.direction == "fixed"
                    else f"first bad {b.first_bad}, last good {b.last_good}."))
    if t.reduced_check and t.reduced_check[0]:
        parts.append(f"Reduced with iree-reduce from {_size_line(t)}; the reduced program still "
                     f"shows the bug on {bad_v} and not on {good_v}.")
    # Only what was confirmed: a phase both swaps agreed on, a pass that parts the releases
    # alone or that the bad release fails in; else "not localized", the evidence below.
    said = localized(t)
    parts.append(said[0].upper() + said[1:])
    return " ".join(parts)


def write_issue(t, out: Path, measured_only: bool = False) -> None:
    """measured_only: the log and problems alone (writing the whole issue failed)."""
    data = {"case": t.case.slug, "item": t.item.name, "bug": t.bug.description,
            "direction": t.direction, "seconds": t.seconds, "problems": t.problems, "log": t.log}
    if measured_only or t.bisect is None or t.question is None or t.start is None:
        (out / "TRIAGE.json").write_text(json.dumps(data, indent=1))
        (out / "ISSUE.md").write_text(f"# {t.case.title}: not triaged\n\n"
                                      + "\n".join(f"- {p}" for p in t.problems) + "\n")
        return
    bad_v, good_v = _versions(t)
    steps = _write_files(t, out)  # as pasted in an empty folder
    if t.crash_reproducer:
        shutil.copy(t.crash_reproducer, out / "crash-reproducer.mlir")
    ops0, lines0 = size(t.start.read_text())
    ops1, lines1 = size(t.program.read_text())
    data.update({
        "bad": {"version": bad_v, "compiler": t.bad.compiler_version, "revision": t.bad.compiler_revision},
        "good": {"version": good_v, "compiler": t.good.compiler_version, "revision": t.good.compiler_revision}
        if t.good else None,
        "probes": [p.__dict__ for p in t.bisect.probes],
        "mode": t.question.mode, "start": t.start_note, "inputs": t.inputs_note,
        "size": {"before": {"ops": ops0, "lines": lines0}, "after": {"ops": ops1, "lines": lines1}},
        "reduced_shows_bug": t.reduced_check[0] if t.reduced_check else None,
        "reduced_check": t.reduced_check[1] if t.reduced_check else "",
        "phase": t.phase.phase if t.phase else "", "phase_missing": t.phase.missing if t.phase else "",
        "confirmation": t.confirmation, "pass": t.pass_diff.argument if t.pass_diff else "",
        "localized": dict(zip(("phase", "pass"), confirmed_where(t))), "where": localized(t),
        "pass_confirmed": t.pass_confirmed, "pass_check": t.pass_check,
        "failing_pass": t.failing_pass, "options": _options_json(t)})
    (out / "TRIAGE.json").write_text(json.dumps(data, indent=1, default=str))
    # Messages name the files the triage compiled; the reader has them as input.mlir.
    text = _issue_text(t, bad_v, good_v, steps).replace(str(t.program), "input.mlir")
    (out / "ISSUE.md").write_text(_no_machine_paths(text.replace(str(out / "work") + "/", "")))
    if (out / "input.mlir").is_file():
        (out / "input.mlir").write_text(_no_machine_paths((out / "input.mlir").read_text()))


def _options_json(t) -> dict | None:
    o = t.options
    if o is None:
        return None
    return {"changes": [c.__dict__ for c in o.changes], "experiments": o.lines,
            "found": o.found.flag if o.found else "", "both_ways": o.on_bad and o.on_good, "why_none": o.why_none}


def _options_lines(t, bad_v: str, good_v: str | None) -> list[str]:
    """The bad release run with the good release's option defaults, and what it gave."""
    o = t.options
    if o is None or good_v is None:
        return []
    lines = ["", "The releases' own option defaults (read from each compiler library's session options), "
                 "each experiment on the same program:"]
    if o.changes:
        lines += [f"- differs: {c.describe(good_v, bad_v)}" for c in o.changes]
    lines += [f"- {line}" for line in o.lines]
    lines.append(f"- answer: {o.said(good_v, bad_v)}" if o.found else f"- answer: none ({o.why_none})")
    return lines


# A location that names a file on this machine (an import in the cache): its file name is
# all a reader upstream can use (the file itself is not theirs to read).
_LOC_PATH = re.compile(r'loc\("/[^"]*/([^"/]+)"')


def _no_machine_paths(text: str) -> str:
    """Locations and messages that name files in this machine's cache name the file only."""
    in_cache = re.compile(re.escape(str(cache_root())) + r"/[^\s\"':]*/")
    return in_cache.sub("", _LOC_PATH.sub(r'loc("\1"', text))


def _issue_text(t, bad_v: str, good_v: str, steps: str) -> str:
    q = t.question
    program_text = t.program.read_text()
    links = ", ".join(t.case.threads) or "none (found by iree-regress)"
    lines = [f"# {t.case.title}: {_the_bug(t)} with IREE {bad_v}" + (f", not {good_v}" if good_v else ""), "",
             _summary(t, bad_v, good_v), "",
             f"Related upstream: {links}. Triaged from the iree-regress case `{t.case.slug}`, "
             f"item `{t.item.name}` (`iree-regress triage {t.case.slug}::{t.item.name}`).", "",
             "## Versions", "",
             f"- bad: `pip install iree-base-compiler=={bad_v}`: iree-compile {t.bad.compiler_version} "
             f"@ {t.bad.compiler_revision or '?'}",
             (f"- good: `pip install iree-base-compiler=={good_v}`: iree-compile {t.good.compiler_version} "
              f"@ {t.good.compiler_revision or '?'}" if t.good else
              f"- good: none; no release measured passes ({t.case.history.describe()})")]
    if t.good and t.bad.compiler_revision and t.good.compiler_revision:
        older, newer = ((t.good, t.bad) if t.direction == "broken" else (t.bad, t.good))
        lines.append("- the commits between them: "
                     + REVISION_URL.format(good=older.compiler_revision[:12], bad=newer.compiler_revision[:12]))
    lines += ["", "## Reproducer", "",
              f"`input.mlir`: {_size_line(t)}. Reduced from {t.start_note}." if t.program is not t.start
              else f"`input.mlir`: {_size_line(t)}; it is {t.start_note}.", ""]
    if len(program_text.splitlines()) <= INLINE_LINES:
        lines += ["```mlir", program_text.rstrip(), "```", ""]
    golden = _golden_steps(t)
    if golden:
        reference = reference_name(t.case)
        lines += [f"## Steps to reproduce: the whole program against {reference}", "",
                  f"Paste into an empty folder (Linux, python3): each release gets a venv with its own "
                  f"compiler and runtime; the case's program runs on both and is compared with "
                  f"{reference}'s values.", "",
                  "```sh", golden, "```", ""]
    lines += [f"## Steps to reproduce{': the reduced program' if golden else ''}", "",
              "Paste into an empty folder (Linux, python3); each release gets a venv with its own "
              "compiler and runtime (a runtime of another release refuses or misreads a module)."
              + (f" No reference exists for the reduced program: its expected values are "
                 f"IREE {good_v}'s, which agree with the reference on the whole program above." if golden else ""), "",
              "```sh", steps, "```", "", "## Observed and expected", ""]
    if q.mode == "differential":
        lines.append(f"Observed on {bad_v}: outputs that differ from {good_v}'s on the same inputs "
                     f"({t.inputs_note}): {(t.reduced_check or (0, t.start_check))[1][:400]}")
        lines.append((f"Expected: {reference_name(t.case)}'s values for the whole "
                      f"program (the first steps), which {good_v} gives; for the reduced program, " if golden else
                      "Expected: ") + f"the outputs of {good_v}, within atol {q.atol:g}, rtol {q.rtol:g}.")
    else:
        lines.append(f"Observed on {bad_v}: {(t.reduced_check or (0, t.start_check))[1][:600]}")
        runs = t.bug.needs_device() or q.mode == "ir"
        done = "the check passes" if q.mode == "ir" else "it compiles and runs" if runs else "it compiles"
        lines.append(f"Expected: {done}." if good_v is None else
                     f"Expected: as on {good_v}, {done}." if q.good_outcome == PASS_OUTCOME
                     else f"Expected: not this bug; {good_v} {plain_words(q.good_outcome)} (another failure) here.")
    lines += ["", "## Where in the compiler", "", f"**{localized(t)}**", ""]
    if t.phase is not None:
        lines.append(f"First compilation phase whose output differs (`--dump-compilation-phases-to`, "
                     f"locations, SSA names and host CPU features ignored): "
                     f"**{t.phase.phase or 'none'}**{' (' + t.phase.missing + ')' if t.phase.missing else ''}.")
        lines += [f"- {c}" for c in t.confirmation]
        if t.phase.diff:
            lines += ["", "```diff", *t.phase.diff, "```"]
    if t.pass_diff is not None:
        instead = f" (from the same module the good release ran `{t.pass_diff.good_instead}`)" \
            if t.pass_diff.good_instead else ""
        lines += ["", f"The pass after which the bad release never again holds a module the good release produced "
                      f"(`--mlir-print-ir-after-change`): **{t.pass_diff.argument or 'none'}**{instead}."]
        if t.pass_check:
            verdict = {True: "confirmed", False: "not confirmed", None: "not checked"}[t.pass_confirmed]
            lines.append(f"Run alone by both releases' iree-opt on the same module (the bad release's, just "
                         f"before it): {verdict}: {t.pass_check}.")
        if t.pass_diff.only_bad or t.pass_diff.only_good:
            lines += ["", "Passes that changed the module in one release's pipeline only (the first suspects "
                          "when the named pass did the same in both):"]
            lines += [f"- only IREE {v}: {', '.join(f'`{a}`' for a in names)}"
                      for v, names in ((bad_v, t.pass_diff.only_bad), (good_v, t.pass_diff.only_good)) if names]
        if t.pass_diff.diff and (t.phase is None or t.pass_diff.diff[2:] != t.phase.diff[2:]):
            lines += ["", "```diff", *t.pass_diff.diff, "```"]
    lines += _options_lines(t, bad_v, good_v)
    if t.failing_pass:
        lines += ["", f"The bad release's failing pass (`--mlir-pass-pipeline-local-reproducer`): "
                      f"`{t.failing_pass}`; its input is `crash-reproducer.mlir` "
                      f"(`iree-opt crash-reproducer.mlir --run-reproducer`)."]
    lines += ["", "## Bisect", "", "| release | state | outcome | seconds |", "|---|---|---|---|"]
    lines += [f"| {p.version} | {p.state} | {p.outcome[:90].replace('|', '/')} | {p.seconds:.1f} |"
              for p in t.bisect.probes]
    if t.problems:
        lines += ["", "## Not done", ""] + [f"- {p}" for p in t.problems]
    return "\n".join(lines) + "\n"
