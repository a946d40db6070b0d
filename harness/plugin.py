"""pytest plugin: one item per (case, target, opt level), plus one per [[ir]] check.

    pytest cases/                                   every case, every default target/level
    pytest cases/ --target cpu,vulkan --opt-level O0,O3 -n auto
    pytest cases/ -m "hip and O3"                   markers: targets, levels, kinds
    pytest cases/topk-dynamic-dim/case.toml::hip-O3

Items are named `<case dir>/case.toml::<target>-<level>` and `...::ir-<check>`.
A malformed case.toml is a collection error naming the file and field; the other
cases still run (--continue-on-collection-errors is turned on for case runs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from . import targets
from .cache import Cache
from .case import CaseError, load_case
from .process import Bounds
from .report import RESULTS_NAME, ResultsWriter, environment
from .runner import (FAIL, SKIP, XFAIL, XPASS, ItemResult, expectation_for, run_ir_item,
                     run_matrix_item, verdict)
from .stages import Settings
from .toolchain import ToolchainError, resolve

KIND_MARKERS = {"numeric": "compiles, runs and compares with PyTorch",
                "compile": "compile-only case", "ir": "IR-level FileCheck check"}


def _csv(allowed):
    def parse(text):
        values = [v.strip() for v in text.split(",") if v.strip()]
        bad = [v for v in values if v not in allowed]
        if bad:
            import argparse
            raise argparse.ArgumentTypeError(f"unknown {bad}; choose from {','.join(allowed)}")
        return tuple(values)
    return parse


def pytest_addoption(parser):
    g = parser.getgroup("iree-regress", "IREE regression cases")
    g.addoption("--target", type=_csv(targets.TARGETS), default=targets.TARGETS,
                help="comma-separated targets to collect (default: cpu,vulkan,hip,cuda)")
    g.addoption("--opt-level", type=_csv(targets.OPT_LEVELS), default=targets.OPT_LEVELS,
                help="comma-separated optimization levels (default: O0,O1,O2,O3)")
    g.addoption("--iree-tools-dir", default=None,
                help="folder with iree-compile, iree-opt, iree-run-module (a local build); "
                     "default: the installed iree-base-compiler/runtime packages")
    g.addoption("--iree-cache-dir", default=None,
                help="cache of imports and compiled modules (default $IREE_REGRESS_CACHE "
                     "or ~/.cache/iree-regress)")
    g.addoption("--no-iree-cache", action="store_true",
                help="ignore cached imports/compiles/runs (results are still written)")
    g.addoption("--compile-timeout", type=float, default=300.0,
                help="seconds before one iree-compile is killed and recorded as a timeout")
    g.addoption("--compile-memory-mb", type=float, default=8192.0,
                help="resident MB at which one compile is killed and recorded as oom")
    g.addoption("--hip-arch", default=targets.DEFAULT_HIP_ARCH, help="HIP target chip")
    g.addoption("--cuda-arch", default=targets.DEFAULT_CUDA_ARCH, help="CUDA target arch")
    g.addoption("--iree-reports-dir", default="reports",
                help="where results.jsonl (and junit.xml, unless --junitxml) are written")


def _is_worker(config) -> bool:
    return hasattr(config, "workerinput")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    for t in targets.TARGETS:
        config.addinivalue_line("markers", f"{t}: items for the {t} target")
    for level in targets.OPT_LEVELS:
        config.addinivalue_line("markers", f"{level}: items at optimization level {level}")
    for kind, text in KIND_MARKERS.items():
        config.addinivalue_line("markers", f"{kind}: {text}")
    config.option.continue_on_collection_errors = True
    reports = Path(config.getoption("iree_reports_dir"))
    if not config.option.xmlpath and not _is_worker(config):
        config.option.xmlpath = str(reports / "junit.xml")
    config.stash[_REPORTS_KEY] = reports


_REPORTS_KEY = pytest.StashKey[Path]()
_SETTINGS_KEY = pytest.StashKey[Settings]()
_WRITER_KEY = pytest.StashKey[ResultsWriter]()


def settings_for(config) -> Settings:
    """The run's Settings, made once per process (each xdist worker makes its own)."""
    if _SETTINGS_KEY not in config.stash:
        try:
            toolchain = resolve(config.getoption("iree_tools_dir"))
        except ToolchainError as e:
            raise pytest.UsageError(str(e)) from None
        cache_dir = config.getoption("iree_cache_dir")
        config.stash[_SETTINGS_KEY] = Settings(
            toolchain=toolchain,
            cache=Cache(Path(cache_dir) if cache_dir else None,
                        enabled=not config.getoption("no_iree_cache")),
            compile_bounds=Bounds(config.getoption("compile_timeout"),
                                  config.getoption("compile_memory_mb")),
            target_options=targets.TargetOptions(config.getoption("hip_arch"),
                                                 config.getoption("cuda_arch")),
        )
    return config.stash[_SETTINGS_KEY]


def _writer(config) -> ResultsWriter:
    if _WRITER_KEY not in config.stash:
        config.stash[_WRITER_KEY] = ResultsWriter(config.stash[_REPORTS_KEY] / RESULTS_NAME)
    return config.stash[_WRITER_KEY]


def pytest_collect_file(file_path: Path, parent):
    if file_path.name == "case.toml":
        return CaseFile.from_parent(parent, path=file_path)
    return None


def _runs_cases(config) -> bool:
    """Whether the command line names cases (under xdist the controller collects no
    items, so this is read from the arguments, not from the collected items)."""
    for arg in config.args:
        p = Path(arg.split("::")[0])
        if p.name == "case.toml" or (p.is_dir() and (any(p.glob("case.toml"))
                                                     or any(p.glob("*/case.toml")))):
            return True
    return False


def pytest_sessionstart(session):
    """Start results.jsonl once per run (controller only; workers append to it)."""
    config = session.config
    if _is_worker(config) or config.option.collectonly or not _runs_cases(config):
        return
    env = environment(settings_for(config).toolchain)
    config.stash[_ENV_KEY] = env
    _writer(config).start({"environment": env})


_ENV_KEY = pytest.StashKey[dict]()


def pytest_report_header(config):
    try:
        tc = settings_for(config).toolchain
    except pytest.UsageError as e:
        return f"iree-regress: {e}"
    return f"iree-regress: {tc.describe()}"


class CaseFile(pytest.File):
    def collect(self):
        case = load_case(self.path)  # CaseError -> a collection error for this file only
        opts = self.config.option
        if case.kind != "ir":
            for target in case.targets:
                if target not in opts.target:
                    continue
                for level in case.opt_levels:
                    if level in opts.opt_level:
                        yield CaseItem.from_parent(self, name=f"{target}-{level}", case=case,
                                                   target=target, opt_level=level, check=None)
        for check in case.ir_checks:
            yield CaseItem.from_parent(self, name=f"ir-{check.name}", case=case, target=None,
                                       opt_level=None, check=check)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CaseError):
            return f"malformed case: {excinfo.value}"
        return super().repr_failure(excinfo, style)


class ItemFailure(Exception):
    def __init__(self, message: str, result: ItemResult):
        super().__init__(message)
        self.message = message
        self.result = result


class CaseItem(pytest.Item):
    def __init__(self, *, case, target, opt_level, check, **kwargs):
        super().__init__(**kwargs)
        self.case = case
        self.target = target
        self.opt_level = opt_level
        self.check = check
        for marker in (target, opt_level, "ir" if check else case.kind):
            if marker:
                self.add_marker(marker)

    def runtest(self):
        settings = settings_for(self.config)
        if self.check is not None:
            result = run_ir_item(self.case, self.check, settings)
        else:
            result = run_matrix_item(self.case, self.target, self.opt_level, settings)
        v = verdict(result, expectation_for(result, settings.toolchain.release))
        record = result.as_dict() | {"verdict": v.kind, "message": v.message,
                                     "reproducer": result.reproducer(), "nodeid": self.nodeid}
        _writer(self.config).append(record)
        for key in ("outcome", "verdict", "compiler", "seconds", "compile_only"):
            self.user_properties.append((key, record[key]))
        if v.kind in (FAIL, XPASS):
            self.user_properties.append(("reproducer", record["reproducer"]))
            raise ItemFailure(("UNEXPECTED PASS: " if v.kind == XPASS else "") + v.message, result)
        if v.kind == XFAIL:
            pytest.xfail(v.message)
        if v.kind == SKIP:
            pytest.skip(v.message)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, pytest.xfail.Exception):
            # The reason is the whole story; pytest's traceback of our own frames would
            # cost a fifth of a second per known bug (it parses the source of each frame).
            return str(excinfo.value)
        if not isinstance(excinfo.value, ItemFailure):
            return super().repr_failure(excinfo, style)
        result = excinfo.value.result
        lines = [excinfo.value.message]
        bad = result.failing_stage
        if bad and bad.log:
            lines += ["", f"--- {bad.stage} output (tail) ---", bad.log.rstrip()[-2500:]]
        lines += ["", f"REPRO: {result.reproducer()}"]
        return "\n".join(lines)

    def reportinfo(self):
        return self.path, None, f"{self.case.slug}::{self.name}"


def pytest_terminal_summary(terminalreporter, config):
    """Say which items ran compile-only, so a pass without a run is never silent."""
    if _is_worker(config) or _ENV_KEY not in config.stash:
        return
    from .report import read_results

    path = config.stash[_REPORTS_KEY] / RESULTS_NAME
    if not path.is_file():
        return
    _, items = read_results(path)
    compile_only = [i for i in items if i.get("compile_only") and i.get("verdict") == "PASS"]
    if compile_only:
        reasons = sorted({s["detail"] for i in compile_only for s in i["stages"]
                          if s["stage"] == "run" and s["status"] == "skip"})
        terminalreporter.write_sep("-", f"{len(compile_only)} item(s) passed compile-only")
        for r in reasons:
            terminalreporter.write_line(f"  {r}")
    terminalreporter.write_line(f"iree-regress results: {path}")
