"""Every command README.md shows, checked: the cheap ones run as written; the ones that
install releases, reach GitHub or write a case are parsed by the real command line, and
the cases, items, sweeps and files they name must exist. The two set-up commands, and
the lint over a run's results, are what CI itself runs (.ci/run)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
# Run as written (cheap, no writes). `iree-regress lint --results reports/results.jsonl` is
# .ci/run's own last step, run there after the results it reads are complete.
RUN = {("iree-regress", "sweep", "ops")}
SET_UP = ("bash ci/install.sh", "bash .ci/run")


def commands() -> list[list[str]]:
    found = []
    for block in re.findall(r"```sh\n(.*?)```", README.read_text(), re.S):
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip()
            if line and not line.startswith(SET_UP):
                found.append(shlex.split(line))
    return found


def _names_exist(words: list[str]) -> None:
    """Cases (SLUG or SLUG::ITEM), sweeps and files a command names are there."""
    from harness.sweep.spec import sweeps_by_name

    cases = {p.name for p in (ROOT / "cases").iterdir() if (p / "case.toml").is_file()}
    after = words[3 if words[1] == "sweep" else 2:]  # (after `sweep`, its action)
    for before, word in zip(["", *after], after):
        # options, versions and tags (v3.9.0), levels, placeholders the reader fills (IREE_CLONE)
        if word.startswith("-") or re.fullmatch(r"v?[\d.,]+|O\d(,O\d)*|triage/|[A-Z][A-Z_]+", word):
            continue
        if before == "--holding":  # ops of the library, not names of the tree (the command checks them)
            continue
        slug = word.split("::", 1)[0]
        assert slug in cases or slug in sweeps_by_name() or (ROOT / word).exists() or \
            word in ("harvested-example", "reports/results.jsonl"), f"README names {word!r}: no such case, sweep or file"


@pytest.mark.harness
def test_the_readme_shows_the_daily_commands_and_is_short():
    shown = {tuple(c[:2]) for c in commands()}
    for daily in (("pytest", "cases/"), ("iree-regress", "report"), ("iree-regress", "prove"),
                  ("iree-regress", "bisect"), ("iree-regress", "triage"), ("iree-regress", "harvest"),
                  ("iree-regress", "sweep")):
        assert daily in shown, f"README shows no {' '.join(daily)} command"
    assert len(README.read_text().splitlines()) <= 250


@pytest.mark.harness
@pytest.mark.parametrize("words", [c for c in commands() if c[0] == "iree-regress"], ids=" ".join)
def test_each_iree_regress_command_parses_and_what_it_names_exists(words):
    parser, handlers = build_parser()
    args, rest = parser.parse_known_args(words[1:])
    assert not rest and args.command in handlers or args.command == "run"
    _names_exist(words)


@pytest.mark.parametrize("words", [c for c in commands() if tuple(c[:3]) in RUN or tuple(c[:2]) in RUN],
                         ids=" ".join)
def test_the_cheap_iree_regress_commands_run_as_written(words):
    proc = subprocess.run([sys.executable, "-m", "harness.cli", *words[1:]], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


@pytest.mark.parametrize("words", [c for c in commands() if c[0] == "pytest"], ids=" ".join)
def test_each_pytest_command_collects_what_it_names(words):
    """Collected as written (the options are the plugin's, the ids exist); one item is run."""
    proc = subprocess.run([sys.executable, "-m", *words, "--collect-only", "-q", "-p", "no:cacheprovider"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "collected" in proc.stdout, \
        proc.stdout[-2000:] + proc.stderr[-2000:]
