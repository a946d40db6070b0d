"""`iree-regress new-case`: scaffold a case directory from an MLIR file or a PyTorch module.

Writes case.toml (the family and targets the program shows, unless given; history left
for `prove --scan --write` to fill in),
a README skeleton, the input program, and for numeric cases the golden files from
PyTorch. The scaffold is a start: the issue links, the bug's description and the
expectations are for the author to write.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from .case import ISSUE_REF, SLUG, issue_url
from .history.casefile import toml_value
from .targets import DEFAULT_TARGETS, TARGETS

# The entry point: a func.func or a util.func (torch imports and many lit tests use the latter).
_FUNC = re.compile(r"(?:func\.func|util\.func)\s+(?:public\s+)?@([\w$.-]+)")


class ScaffoldError(ValueError):
    pass


# An IR case's one check (new_case's ir_args): the passes complete and print the program.
IR_CHECK = "passes"
IR_CHECKS_FILE = "checks/passes.mlir"


# What a program's text says of its family: the ops of each (first match wins, so a
# topk over a transpose is topk's).
_FAMILY_OPS = (
    ("attention", r"scaled_dot_product_attention|iree_linalg_ext\.(?:online_)?attention|\bsdpa\b"),
    ("topk", r"\btopk\b|\bargsort\b|\.sort\b|aten\.sort|torch\.sort|iree_linalg_ext\.(?:sort|topk)|stablehlo\.sort|top_k"),
    ("scatter", r"scatter|one_hot|index_put|index_add|\bgather\b|index_select|take_along_dim"),
    ("transpose", r"transpose|permute|\.T\b|\.mT\b"),
)
# What a reproducer says of its target: an executable target, a target flag or a chip.
_TARGET_MARKS = (
    ("hip", r'"rocm"|rocm-hsaco|--iree-(?:hip|rocm)-target|\bgfx\d{3,4}\b|hal-target-device=hip'),
    ("cuda", r'"cuda"|--iree-cuda-target|\bsm_\d{2}\b|hal-target-device=cuda'),
    ("vulkan", r'"vulkan|vulkan-spirv|spirv|hal-target-device=vulkan'),
    ("cpu", r'"llvm-cpu"|llvm-cpu|embedded-elf|hal-target-device=local'),
)


def guess_family(text: str) -> str:
    return next((family for family, ops in _FAMILY_OPS if re.search(ops, text)), "other")


def targets_named(text: str) -> list[str]:
    """The targets a reproducer names, in the matrix's order; [] when it names none."""
    named = {target for target, marks in _TARGET_MARKS if re.search(marks, text)}
    return [t for t in DEFAULT_TARGETS if t in named]


def case_toml(title: str, kind: str, issues: list[str], source_lines: list[str], family: str = "other",
              found_by: str = "", tolerance: tuple[float, float] = (1e-5, 1e-5), tolerance_reason: str = "",
              targets: list[str] = DEFAULT_TARGETS, flags: list[str] = (), ir_args: list[str] | None = None,
              differ: str = "", spread: bool = False) -> str:
    """spread: the golden carries its spread (a promoted generated program's). ir_args: an IR case (kind "ir"), whose one [[ir]] check runs iree-opt with them.
    differ: a [[differ]] table (differ_table), the bug being the difference of two compiles."""
    run = [
        "[matrix]",
        f"targets = {toml_value(list(targets))}",
        'opt_levels = ["O0", "O1", "O2", "O3"]',
        f"flags = {toml_value(list(flags))}  # the issue's own iree-compile flags",
        "",
        "[compare]",
        f"atol = {tolerance[0]:g}",
        f"rtol = {tolerance[1]:g}",
        *([f"tolerance_reason = {toml_value(tolerance_reason)}"] if tolerance_reason else []),
        *(["spread = true  # the golden's spread/ (reference.spread)"] if spread else []),
    ] if ir_args is None else [
        "[[ir]]",
        f"name = {toml_value(IR_CHECK)}",
        'tool = "iree-opt"',
        f"args = {toml_value(list(ir_args))}  # the issue's own iree-opt passes",
        f"checks = {toml_value(IR_CHECKS_FILE)}",
    ]
    return "\n".join([
        f"title = {toml_value(title)}",
        f"kind = {toml_value(kind)}",
        f"issues = {toml_value(list(issues))}",
        *([f"found_by = {toml_value(found_by)}"] if found_by else []),
        f"family = {toml_value(family)}",
        "# prs = [\"iree-org/iree#...\"]",
        "",
        "[source]",
        *source_lines,
        "",
        *run,
        *(["", differ] if differ else []),
        "",
        "# Known failures, e.g. for a bug still open on the newest release:",
        "# [[expect]]",
        '# targets = ["cpu"]',
        '# compiler = ">=3.4"',
        '# outcome = "compile-fail"',
        '# match = "the diagnostic"',
        '# reason = "iree-org/iree#NNNN: still open"',
        "",
        "# Filled in by `iree-regress prove <slug> --scan --write --bad-outcome ...`.",
        "[history]",
        'status = "unknown"',
        "",
    ])


def differ_table(a: tuple[str, list[str]], b: tuple[str, list[str]], outputs: int) -> str:
    """A [[differ]] named after what tells the sides apart: (target, flags) each."""
    (target_a, flags_a), (target_b, flags_b) = a, b
    told = flags_b or flags_a or [target_b]
    name = re.sub(r"[^a-z0-9]+", "-", told[0].split("=")[0].lstrip("-").removeprefix("iree-").lower()).strip("-")
    return "\n".join([
        "# The bug is a difference: the two compiles of the program must agree on the same inputs.",
        "[[differ]]", f"name = {toml_value(name or 'flags')}", f"outputs = {outputs}",
        f"a = {{target = {toml_value(target_a)}, flags = {toml_value(flags_a)}}}",
        f"b = {{target = {toml_value(target_b)}, flags = {toml_value(flags_b)}}}"])


def readme(slug: str, title: str, issues: list[str], source_note: str, golden: bool) -> str:
    links = ", ".join(f"[{ref}]({issue_url(ref)})" for ref in issues) or "none known yet (TODO: search)"
    lines = [f"# {slug}", "", f"{title}.", "", f"Upstream: {links}.", "", "## The bug", "",
             "TODO: what went wrong, in two paragraphs: the symptom as the issue reports it, "
             "then the cause and the fix.", "", "## The reproducer", "", source_note, "",
             "## Measured", "",
             f"TODO: paste `iree-regress prove {slug} --scan` (release x item outcomes).", ""]
    if golden:
        lines += [f"Regenerate goldens: `iree-regress golden {slug}`", ""]
    return "\n".join(lines)


def case_kind(golden: bool, ir_check: bool, run_inputs: bool) -> str:
    """The kind of case a program becomes: with a golden numeric, else an IR check, a run
    on given inputs, or a compile."""
    return "numeric" if golden else "ir" if ir_check else "run" if run_inputs else "compile"


def new_case(cases_dir: Path, slug: str, issues: list[str], title: str | None = None,
             from_mlir: Path | None = None, reference: Path | None = None,
             from_torch: str | None = None, function: str | None = None, family: str | None = None,
             found_by: str = "", tolerance: tuple[float, float] = (1e-5, 1e-5),
             tolerance_reason: str = "", targets: list[str] | None = None, flags: list[str] = (),
             ir_args: list[str] | None = None, run_inputs: list | None = None,
             frontend: str = "torch", differ: str = "", spread: bool = False) -> Path:
    """found_by: a case the suite found itself (a sweep variant) needs no issue yet.
    family / targets: None = what the program shows (its ops; the targets it names, else
    cpu alone: a scan of targets the reproducer never named costs four times as much).
    ir_args: an IR case of an MLIR program: iree-opt with these args must complete.
    run_inputs: a run case of an MLIR program (no golden): these arrays are its inputs/.
    frontend: how a PyTorch (or ONNX-building) model.py reaches IREE (onnx_frontend.py).
    differ: a [[differ]] table (differ_table): the bug is two compiles disagreeing."""
    if not SLUG.fullmatch(slug):
        raise ScaffoldError(f"slug {slug!r}: use lower-case words joined by '-'")
    if (not issues and not found_by) or any(not ISSUE_REF.fullmatch(i) for i in issues):
        raise ScaffoldError(f"--issue must be owner/repo#N, got {issues or 'nothing'}")
    if (from_mlir is None) == (from_torch is None):
        raise ScaffoldError("give exactly one of --from-mlir and --from-torch")
    if (ir_args is not None or run_inputs is not None) and (from_mlir is None or reference is not None):
        raise ScaffoldError("an IR or run case is an MLIR program with no reference")
    unknown = [t for t in targets or () if t not in TARGETS]
    if unknown:
        raise ScaffoldError(f"--target {','.join(unknown)}: not a target ({', '.join(TARGETS)})")
    case_dir = Path(cases_dir) / slug
    if case_dir.exists():
        raise ScaffoldError(f"{case_dir} already exists")
    title = title or slug.replace("-", " ")
    case_dir.mkdir(parents=True)
    try:
        if from_mlir is not None:
            text = Path(from_mlir).read_text()
            funcs = _FUNC.findall(text)
            entry = function or (funcs[0] if funcs else "main")
            (case_dir / "model.mlir").write_text(text)
            lines = ['mlir = "model.mlir"', f'function = "{entry}"']
            golden = reference is not None
            if ir_args is not None:
                (case_dir / "checks").mkdir()
                (case_dir / IR_CHECKS_FILE).write_text(_ir_checks(text, entry))
            if run_inputs is not None:  # the values the report ran it on, as given
                import numpy as np

                (case_dir / "inputs").mkdir()
                for i, array in enumerate(run_inputs):
                    np.save(case_dir / "inputs" / f"input{i}.npy", array)
            if golden:
                shutil.copy(reference, case_dir / "reference.py")
                lines.append('reference = "reference.py"')
            note = (f"`model.mlir` comes from {Path(from_mlir).name} (TODO: say which issue "
                    "comment or lit test it was written after).")
        else:
            module_path, _, class_name = from_torch.partition(":")
            text = Path(module_path).read_text()
            if class_name and class_name != "Model":
                text += f"\n\n# The harness imports `Model`.\nModel = {class_name}\n"
            (case_dir / "model.py").write_text(text)
            lines = ['torch = "model.py"'] + ([f'frontend = "{frontend}"'] if frontend != "torch" else [])
            golden = True
            note = (f"`model.py` comes from {Path(module_path).name} (TODO: say which issue "
                    "it reproduces and how it was reduced).")
        kind = case_kind(golden, ir_args is not None, run_inputs is not None)
        family = family or guess_family(text)
        targets = list(targets or targets_named(text) or ["cpu"])
        (case_dir / "case.toml").write_text(case_toml(title, kind, issues, lines, family, found_by, tolerance,
                                                      tolerance_reason, targets, flags, ir_args, differ, spread))
        (case_dir / "README.md").write_text(readme(slug, title, issues, note, golden))
        if golden:  # the program runs in the sandbox, as it will in the suite
            from .item import settings_with
            from .stages import write_golden_sandboxed
            from .toolchain import resolve

            program = case_dir / ("model.py" if from_torch else "reference.py")
            made = write_golden_sandboxed(program, case_dir, settings_with(resolve()), frontend, spread)
            if not made.ok:
                raise ScaffoldError(f"{program.name} could not make the golden: {made.detail}")
    except Exception:
        shutil.rmtree(case_dir, ignore_errors=True)
        raise
    return case_dir


def _ir_checks(program: str, entry: str) -> str:
    """FileCheck lines for an IR case: the passes ran to the end and printed the program
    (its entry function where the program names one). The bug is their failing or crashing."""
    named = re.search(r"@([\w$.-]+)|sym_name\s*=\s*\"([\w$.-]+)\"", program)
    symbol = entry if _FUNC.search(program) else next((g for g in named.groups() if g), "") if named else ""
    return ("// The passes the issue ran complete and print the program; the bug was their failing.\n"
            + (f"// CHECK: @{symbol}\n" if symbol else "// CHECK: module\n"))
