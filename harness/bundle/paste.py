"""The steps of an ISSUE.md: a shell script a maintainer pastes into an empty folder and
runs unedited.

Everything the steps need is in the text:
  - each release's compiler and runtime together, in a venv of its own named after it (a
    runtime of another release refuses or misreads a module: "bytecode version mismatch");
    a venv already there is reused;
  - the program in a heredoc whose delimiter no line of the program equals (a line of a
    stranger's program cannot close it and run what follows);
  - the case's flags only as the reader of path_options.py accepts them (nothing that runs
    a program, writes or reads outside the folder), said in a comment;
  - the inputs and the expected values inline: exact literals when small, a compressed
    .npz in base64 when large (the expected values are PyTorch's for exactly these
    inputs, so they cannot be drawn afresh);
  - each release's iree-compile command with that release's own flag spellings;
  - the comparison as a short numpy snippet that says, per release and output, how many
    elements differ from the expected values.
A failing compile does not stop the script: the next release still shows its behaviour.
"""

from __future__ import annotations

import base64
import io
import shlex
from dataclasses import dataclass

import numpy as np

from .. import path_options

INLINE_ELEMENTS = 256  # an array this small is written as a literal


@dataclass(frozen=True)
class PastedRelease:
    version: str  # as pip spells it
    flags: tuple[str, ...]  # iree-compile flags as this release spells them (no input, no -o)
    note: str  # what it shows: "has the bug", "does not"

    @property
    def venv(self) -> str:
        return f"iree-{self.version}"


@dataclass(frozen=True)
class Indices:
    """Output `output` holds indices into input `input` along `axis`: compared by the
    values they select (ties may come in any order)."""
    output: int
    input: int
    axis: int


def _array(name: str, a: np.ndarray) -> list[str]:
    a = np.asarray(a)
    if a.size <= INLINE_ELEMENTS and a.dtype.kind in "biuf" and np.isfinite(a.astype(np.float64)).all():
        return [f"{name} = np.array({np.array2string(a, separator=', ', threshold=a.size + 1, floatmode='unique', max_line_width=100)}, "
                f"dtype=np.{a.dtype.name})"]
    buffer = io.BytesIO()
    np.savez_compressed(buffer, a=a)
    text = base64.b64encode(buffer.getvalue()).decode()
    chunks = [text[i:i + 96] for i in range(0, len(text), 96)]
    return [f"{name} = np.load(io.BytesIO(base64.b64decode(", *[f'    "{c}"' for c in chunks],
            f")))['a']  # {a.dtype.name}{list(a.shape)}, exact"]


def heredoc(path: str, text: str, stem: str = "EOF_MLIR") -> list[str]:
    """`cat > path` of `text`, ended by a delimiter that no line of the text equals."""
    lines = text.rstrip("\n").split("\n")
    delimiter, n = stem, 0
    while delimiter in lines:
        n += 1
        delimiter = f"{stem}_{n}"
    return [f"cat > {path} <<'{delimiter}'", *lines, delimiter]


VETTED = ("# The flags below were read as iree-compile reads them (iree-regress's path_options.py) and "
          "accepted: none runs a program, writes or reads a file outside this folder.")


def _comment(text: str) -> str:
    return " ".join(str(text).split())  # one line: a newline in a note would end the comment


def _venv_line(r: PastedRelease, tool: str, more: str) -> str:
    """Make the release's venv unless one is there: its compiler, and `more` packages."""
    return (f"[ -x {r.venv}/bin/{tool} ] || {{ python3 -m venv {r.venv} && {r.venv}/bin/pip install -q "
            f"iree-base-compiler=={r.version} {more}; }}")


def steps(program: str | dict[str, str], releases: list[PastedRelease], function: str, device: str,
          inputs: list[np.ndarray], expected: list[np.ndarray] | None, atol: float, rtol: float,
          indices: list[Indices] = (), expected_from: str = "PyTorch") -> str:
    """The script. `program`: the MLIR, or per release version its spelling for that
    release. `expected` None: a compile-time bug (the steps stop after compiling); []:
    run, nothing to compare (a run-time failure)."""
    first = releases[0]
    texts = program if isinstance(program, dict) else {r.version: program for r in releases}
    one = len(set(texts.values())) == 1
    source = {r.version: "input.mlir" if one else f"input-{r.version}.mlir" for r in releases}
    out = ["set -u", "rm -f module-*.vmfb output-*.npy  # a step that fails must not find an earlier run's files",
           "# Each release's compiler and runtime together, in a venv of its own:"]
    out += [_venv_line(r, "iree-compile", f"iree-base-runtime=={r.version} numpy") for r in releases]
    written = set()
    for r in releases:
        if source[r.version] in written:
            continue
        written.add(source[r.version])
        if not one:
            out.append(f"# the program as IREE {r.version} spells it")
        out += heredoc(source[r.version], texts[r.version])
    runs = expected is not None
    if runs and inputs:
        out += [f"{first.venv}/bin/python - <<'EOF_PY'  # the inputs",
                "import base64, io", "import numpy as np"]
        for i, a in enumerate(inputs):
            out += _array(f"input{i}", a) + [f'np.save("input{i}.npy", input{i})']
        out.append("EOF_PY")
    out.append(VETTED)
    for r in releases:
        module = f"module-{r.version}.vmfb"
        out.append(f"# IREE {r.version}: {_comment(r.note)}")
        out.append(shlex.join([f"{r.venv}/bin/iree-compile", source[r.version], *path_options.vetted(r.flags), "-o", module])
                   + f' || echo "IREE {r.version}: iree-compile failed (exit $?)"')
        if runs:
            run = [f"{r.venv}/bin/iree-run-module", f"--module={module}", f"--device={device}",
                   f"--function={function}", *[f"--input=@input{i}.npy" for i in range(len(inputs))],
                   *[f"--output=@output-{r.version}-{i}.npy" for i in range(len(expected))]]
            out.append(f"[ -f {module} ] && {{ {shlex.join(run)}"
                       f' || echo "IREE {r.version}: iree-run-module failed (exit $?)"; }}')
    if expected:  # (none to compare for a run-time failure: its message above is the observation)
        out += [f"{first.venv}/bin/python - <<'EOF_PY'  # compare with {expected_from}'s values",
                "import base64, io", "import numpy as np"]
        for i, a in enumerate(expected):
            out += _array(f"expected{i}", a)
        for rule in indices:
            out += _array(f"source{rule.output}", inputs[rule.input])
        out += [f"expected = [{', '.join(f'expected{i}' for i in range(len(expected)))}]",
                f"for release in {[r.version for r in releases]!r}:",
                "    for i, want in enumerate(expected):",
                "        try:",
                '            got = np.load(f"output-{release}-{i}.npy")',
                "        except FileNotFoundError:",
                '            print(f"IREE {release}: output {i}: not produced"); continue']
        for rule in indices:
            out += [f"        if i == {rule.output}:  # indices: compare the values they select",
                    f"            got, want = (np.take_along_axis(source{rule.output}, x.astype(np.int64), "
                    f"{rule.axis}) for x in (got, want))"]
        out += ["        if got.shape != want.shape:",
                '            print(f"IREE {release}: output {i}: shape {got.shape}, expected {want.shape}"); continue',
                # as compare.py: NaN where NaN is expected, and the same infinity, match
                f"        wrong = ~np.isclose(got.astype(np.float64), want.astype(np.float64), atol={atol!r}, "
                f"rtol={rtol!r}, equal_nan=True)",
                "        err = np.abs(got.astype(np.float64) - want.astype(np.float64))[wrong].max() if wrong.any() else 0.0",
                f'        print(f"IREE {{release}}: output {{i}}: {{int(wrong.sum())}}/{{wrong.size}} elements differ '
                f'from {expected_from}\'s (max abs err {{err:.6g}})")',
                "EOF_PY"]
    return "\n".join(out)


def ir_steps(program: str, checks: str, releases: list[PastedRelease], tool: str, args: list[str],
             prefix: str) -> str:
    """An IR check as pasted: each release's tool on the program, then FileCheck."""
    prefix = shlex.quote(prefix)
    out = ["set -u", "# Each release's compiler in a venv of its own (and FileCheck's Python port):"]
    out += [_venv_line(r, tool, "filecheck") for r in releases]
    out += [*heredoc("input.mlir", program), *heredoc("checks.mlir", checks), VETTED]
    for r in releases:
        out += [f"# IREE {r.version}: {_comment(r.note)}",
                shlex.join([f"{r.venv}/bin/{tool}", "input.mlir", *path_options.vetted(args), "-o", f"output-{r.version}.mlir"])
                + f" && {r.venv}/bin/python -m filecheck checks.mlir --check-prefix={prefix} "
                f"--input-file=output-{r.version}.mlir"
                + f' && echo "IREE {r.version}: the check passes" || echo "IREE {r.version}: the check fails"']
    return "\n".join(out)
