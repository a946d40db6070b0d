"""pytest plugin: one item per (case, target, opt level), plus one per [[ir]] check.

    pytest cases/                                   every case, every default target/level
    pytest cases/ --target cpu,vulkan --opt-level O0,O3 -n auto
    pytest cases/ -m "hip and O3"                   markers: targets, levels, kinds
    pytest cases/topk-dynamic-dim/case.toml::hip-O3

Items are named `<case dir>/case.toml::<target>-<level>` and `...::ir-<check>`.
A malformed case.toml is a collection error naming the file and field; the other
cases still run (--continue-on-collection-errors is turned on for case runs).

Sweeps (`pytest sweeps/`) are a second source of the same items: each variant of
`sweeps/<family>.toml` is a node `sweeps/<family>.toml::<variant>` whose items are its
targets and levels; the variant is made into a case when its first item runs
(harness/sweep/materialize.py), and from there it runs as a case's item does.
"""

from __future__ import annotations

import atexit
import errno
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from . import path_options, shard, targets
from .cache import Cache
from .case import CaseError, Differ, load_case
from .history.releases import ReleaseUnavailable, ensure
from .item import ItemId, run_item
from .outcomes import (COLLECT_ERROR, CRASHED, ERROR, FAIL, HARNESS_ERROR, INFRA_ERROR, PASS, SKIP, UNOBSERVED, WORKER_CRASH,
                       XFAIL, XPASS)
from .process import BOUNDS, MACHINE_ERRNOS, Bounds, become_subreaper, children, kill_descendants, kill_tree_root
from .record import ItemRecord, ItemRef, StageResult
from .report.majority import blame
from .results import ResultsWriter, environment, link_newest, new_run_id, read_results, run_file
from .sandbox import NONE_ASKED, probe as sandbox_probe, use_for_tools
from .runner import ItemResult, expectation_for, verdict
from .stages import Settings
from .sweep.materialize import materialize
from .sweep.spec import SWEEPS_DIR, Sweep, Variant, load_sweep
from .toolchain import ToolchainError, resolve
KIND_MARKERS = {"numeric": "compiles, runs and compares with PyTorch",
                "compile": "compile-only case", "run": "compiles and runs, no golden (a run-time failure case)",
                "ir": "IR-level FileCheck check",
                "differ": "two compiles of one program that must agree (a differential item)"}


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
    g.addoption("--target", type=_csv(targets.TARGETS), default=targets.DEFAULT_TARGETS,
                help=f"comma-separated targets to collect (default: {','.join(targets.DEFAULT_TARGETS)}; "
                     f"known: {','.join(targets.TARGETS)})")
    g.addoption("--opt-level", type=_csv(targets.OPT_LEVELS), default=targets.OPT_LEVELS,
                help="comma-separated optimization levels (default: O0,O1,O2,O3)")
    g.addoption("--iree-tools-dir", default=None,
                help="folder with iree-compile, iree-opt, iree-run-module (a local build); "
                     "default: the installed iree-base-compiler/runtime packages")
    g.addoption("--iree-release", default=None, metavar="VERSION",
                help="run with this PyPI release of IREE, installed side by side under the cache "
                     "on first use (as prove and bisect do), e.g. 3.4.0")
    g.addoption("--iree-cache-dir", default=None,
                help="cache of imports and compiled modules (default $IREE_REGRESS_CACHE "
                     "or ~/.cache/iree-regress)")
    g.addoption("--no-iree-cache", action="store_true",
                help="ignore cached imports/compiles/runs (results are still written)")
    g.addoption("--iree-compile-flag", action="append", default=[], metavar="FLAG",
                help="one more iree-compile flag for every compile (repeatable): what does a "
                     "flag change? (report --previous against a run without it)")
    g.addoption("--compile-timeout", type=float, default=BOUNDS["compile"].timeout_s,
                help="seconds before one iree-compile is killed and recorded as a timeout")
    g.addoption("--compile-memory-mb", type=float, default=BOUNDS["compile"].memory_mb,
                help="resident MB at which one compile is killed and recorded as oom")
    g.addoption("--run-timeout", type=float, default=BOUNDS["run"].timeout_s,
                help="seconds before one iree-run-module is killed and recorded as a timeout")
    for row in targets.ROWS:
        if row.arch_option:
            g.addoption(row.arch_option, default=row.arch,
                        help=f"the chip the {row.name} target compiles for")
    g.addoption("--retries", type=int, default=0,
                help="run a failing item (FAIL or XPASS) this many more times, uncached; "
                     "one that disagrees with itself is reported flaky with every outcome")
    g.addoption("--shard", default=None,
                help="K/N: run the K-th of N even shares of the cases (harness/shard.py)")
    g.addoption("--shard-durations", default=None,
                help="a previous results.jsonl whose item seconds balance the shards "
                     "(default: every item counts the same)")
    g.addoption("--sweep-sample", action="store_true",
                help="run each sweep's fixed, stratified sample ([sweep].sample variants), not its "
                     "whole grid (CI's share)")
    g.addoption("--generated-share", default=None, metavar="K/N",
                help="of the generated sweeps (a seed axis), only the seeds s with s %% N == K-1: "
                     "the nightly's rotating share (K = the day of the week, N = 7: each seed once a week)")
    g.addoption("--no-sandbox", action="store_true",
                help="run case code (model.py, reference.py) and the tools it drives outside the "
                     "sandbox: for debugging a case you trust (harness/sandbox.py)")
    g.addoption("--iree-reports-dir", default="reports",
                help="where results.jsonl (and junit.xml, unless --junitxml) are written")


def _is_worker(config) -> bool:
    return hasattr(config, "workerinput")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """With -n and no --dist: a case's (or sweep variant's) items go to one worker
    (xdist's loadgroup, each CaseItem grouped by its program), so that no worker waits on
    another's import of the same program (cache.compute_once) while it could run
    something else; the harness's own tests, ungrouped, are spread one by one."""
    if getattr(config.option, "numprocesses", None) and getattr(config.option, "dist", None) == "no":
        config.option.dist = "loadgroup"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    for t in targets.TARGETS:
        config.addinivalue_line("markers", f"{t}: items for the {t} target")
    for level in targets.OPT_LEVELS:
        config.addinivalue_line("markers", f"{level}: items at optimization level {level}")
    for kind, text in KIND_MARKERS.items():
        config.addinivalue_line("markers", f"{kind}: {text}")
    config.addinivalue_line("markers", "sweep: an item of a generated sweep variant (sweeps/)")
    config.option.continue_on_collection_errors = True
    if _is_worker(config) and config.workerinput.get("iree_dist") == "loadgroup":
        # A worker reads its own command line, which names no --dist: xdist groups the
        # items it collects (the "@group" of each id) only when told so.
        config.option.loadgroup = True
    # Orphaned tool processes (setsid children, or those of a worker that died) are
    # re-parented here and killed, so nothing of a run outlives it.
    become_subreaper()
    reports = Path(config.getoption("iree_reports_dir"))
    if not config.option.xmlpath and not _is_worker(config):
        config.option.xmlpath = str(reports / "junit.xml")
    session = RegressSession(config, reports, config.workerinput.get("iree_run_id", "")
                             if _is_worker(config) else new_run_id())
    if config.getoption("shard"):
        try:
            session.shard = shard.parse(config.getoption("shard"))
        except shard.ShardError as e:
            raise pytest.UsageError(str(e)) from None
    # Resolved now: reports/results.jsonl is re-linked to this run's file at its start.
    if _is_worker(config):
        given = config.workerinput.get("iree_shard_durations")
    else:
        given = config.getoption("shard_durations")
        if given and not Path(given).is_file():
            raise pytest.UsageError(f"--shard-durations {given}: no such results file")
        previous = reports / "results.jsonl"  # the last run here: what orders the cases
        given = given or (str(previous.resolve()) if previous.is_file() else "")
    session.durations = str(Path(given).resolve()) if given else ""
    if config.getoption("generated_share"):
        try:
            session.generated_share = shard.parse(config.getoption("generated_share"), "--generated-share")
        except shard.ShardError as e:
            raise pytest.UsageError(str(e)) from None
    config.stash[_SESSION] = session
    if not _is_worker(config):
        # xdist's hooks exist only when xdist is installed and not disabled (-p no:xdist).
        recorder = XdistRecorder if config.pluginmanager.hasplugin("xdist") else RunRecorder
        config.pluginmanager.register(recorder(config), "iree-regress-recorder")


@dataclass
class RegressSession:
    """One run's state, made in pytest_configure for each pytest process (the controller,
    and each xdist worker its own): the run id, the reports folder, the shard, and, made
    when first needed, the settings (toolchain, cache, bounds), the results writer, the
    environment fingerprint and a worker's in-flight note."""
    config: pytest.Config
    reports: Path
    run_id: str
    shard: tuple[int, int] | None = None
    durations: str = ""  # a previous run's results.jsonl that balances the shards
    generated_share: tuple[int, int] | None = None  # --generated-share K/N, parsed
    env: dict | None = None  # set when this process starts a results file (the controller)
    _settings: Settings | None = None
    _writer: ResultsWriter | None = None
    _inflight: "InflightNote | None" = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = _settings(self.config)
        return self._settings

    @property
    def writer(self) -> ResultsWriter:
        if self._writer is None:
            self._writer = ResultsWriter(run_file(self.reports, self.run_id))
        return self._writer

    def record(self, record: ItemRecord) -> None:
        record.run_id = self.run_id
        self.writer.append(record)

    def progress(self, nodeid: str):
        """The stage callback of an item: noted for the controller under xdist (elsewhere a
        dying harness takes the whole run with it, and nothing is left to record it)."""
        if not _is_worker(self.config):
            return None
        if self._inflight is None:
            self._inflight = InflightNote(self.reports, self.config.workerinput["workerid"])
        note = self._inflight
        return lambda stage: note.note(nodeid, stage)


_SESSION = pytest.StashKey[RegressSession]()


def session_of(config) -> RegressSession:
    return config.stash[_SESSION]


def settings_for(config) -> Settings:
    """The run's Settings, made once per process (each xdist worker makes its own)."""
    return session_of(config).settings


def _settings(config) -> Settings:
    release = config.getoption("iree_release")
    if release and config.getoption("iree_tools_dir"):
        raise pytest.UsageError("--iree-release and --iree-tools-dir name two toolchains: pick one")
    try:
        toolchain = ensure(release, log=lambda _: None) if release else resolve(config.getoption("iree_tools_dir"))
    except (ToolchainError, ReleaseUnavailable) as e:
        raise pytest.UsageError(str(e)) from None
    cache_dir = config.getoption("iree_cache_dir")
    cache = Cache(Path(cache_dir) if cache_dir else None, enabled=not config.getoption("no_iree_cache"))
    problem = cache.unusable()
    if problem:  # go on uncached, in a folder of this run's own, and say so once (sessionstart)
        scratch = Path(tempfile.mkdtemp(prefix="iree-regress-uncached-"))
        atexit.register(shutil.rmtree, scratch, ignore_errors=True)
        cache = Cache(scratch, enabled=False)
        cache.note = f"unusable ({problem}): this run is uncached"
    sandbox = NONE_ASKED if config.getoption("no_sandbox") else sandbox_probe()
    use_for_tools(sandbox)  # the compiler and runtime a case drives run where its code runs
    return Settings(
        toolchain=toolchain,
        cache=cache,
        compile_bounds=Bounds(config.getoption("compile_timeout"), config.getoption("compile_memory_mb")),
        run_bounds=Bounds(config.getoption("run_timeout"), config.getoption("compile_memory_mb")),
        target_options=targets.TargetOptions(tuple(
            (row.name, config.getoption(row.arch_option)) for row in targets.ROWS if row.arch_option)),
        extra_flags=_own_flags(config.getoption("iree_compile_flag"), sandbox),
        sandbox=sandbox,
    )


def _own_flags(flags: list[str], sandbox) -> tuple[str, ...]:
    """--iree-compile-flag, read as a case's flags are (path_options.py): in the sandbox an
    option that runs, writes or reads outside the item could not do what it says, and the
    compile would look the same as one without it; so it is refused here, by name."""
    refused = path_options.refusals(flags, None) if sandbox.bwrap else []
    if refused:
        raise pytest.UsageError("--iree-compile-flag: " + "; ".join(refused)
                                + " (the tools run in the sandbox: use `iree-regress triage` for dumps, "
                                  "or --no-sandbox on a trusted case)")
    return tuple(g.flag for g in path_options.read(flags))


def pytest_collect_file(file_path: Path, parent):
    if file_path.name == "case.toml":
        return CaseFile.from_parent(parent, path=file_path)
    if file_path.suffix == ".toml" and file_path.parent.name == SWEEPS_DIR.name:
        return SweepFile.from_parent(parent, path=file_path)
    return None


def _runs_cases(config) -> bool:
    """Whether the command line names cases (under xdist the controller collects no
    items, so this is read from the arguments, not from the collected items)."""
    for arg in config.args:
        p = Path(arg.split("::")[0])
        if p.name == "case.toml" or (p.is_dir() and (any(p.glob("case.toml"))
                                                     or any(p.glob("*/case.toml")))):
            return True
        if (p.parent.name == SWEEPS_DIR.name and p.suffix == ".toml") or \
                (p.is_dir() and p.name == SWEEPS_DIR.name):
            return True
    return False


def pytest_collection_modifyitems(session, config, items):
    """--shard K/N: keep the cases of share K (the same on every machine and worker). Under
    xdist, the costliest cases first (a previous run's seconds, else their item counts):
    each worker takes whole cases in this order, so a big case never starts last and
    leaves the other workers idle at the end."""
    session = session_of(config)
    cases: dict[str, list[str]] = {}
    for item in items:
        if isinstance(item, CaseItem):
            cases.setdefault(item.ref.case, []).append(item.name)
    seconds = shard.durations(session.durations or None) if (session.shard or _is_worker(config)) else {}
    if session.shard is not None:
        k, n = session.shard
        placed = shard.assign(cases, seconds, n)
        kept = [i for i in items if not isinstance(i, CaseItem) or placed[i.ref.case] == k - 1]
        dropped = [i for i in items if i not in kept]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
    if _is_worker(config):
        rank = {case: n for n, case in enumerate(shard.heaviest_first(cases, seconds))}
        items.sort(key=lambda i: rank.get(i.ref.case, -1) if isinstance(i, CaseItem) else -1)


def pytest_sessionstart(session):
    """Start this run's results file, linked as reports/results.jsonl (controller only;
    workers append to it)."""
    config = session.config
    if _is_worker(config) or config.option.collectonly or not _runs_cases(config):
        return
    run = session_of(config)
    sandbox = run.settings.sandbox  # the plugin's settings always name one
    run.env = environment(run.settings.toolchain, sandbox)
    terminal = session.config.get_terminal_writer()
    if not sandbox.bwrap:  # said once, here; the report header says it too
        terminal.line(f"iree-regress: case code and tools: {sandbox.description}", yellow=True)
    if run.settings.cache.note:
        run.env["cache"] = run.settings.cache.note
        terminal.line(f"iree-regress: WARNING: the cache {run.settings.cache.note}", yellow=True)
    shutil.rmtree(run.reports / ".inflight", ignore_errors=True)  # an old run's notes
    header = {"environment": run.env, "run_id": run.run_id}
    if run.shard is not None:
        header["shard"] = "{}/{}".format(*run.shard)
    run.writer.start(header)
    link_newest(run.reports, run.writer.path)


class InflightNote:
    """A worker notes which item and stage it is in, so that if it dies the controller
    records that item with that stage. One small file per worker, rewritten in place
    (a stage change costs a write, not a file creation)."""

    def __init__(self, reports: Path, worker: str):
        folder = reports / ".inflight"
        folder.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(folder / f"{worker}.json", os.O_RDWR | os.O_CREAT, 0o644)

    def note(self, nodeid: str, stage: str) -> None:
        data = json.dumps({"nodeid": nodeid, "stage": stage}).encode()
        os.pwrite(self.fd, data, 0)
        os.ftruncate(self.fd, len(data))

    @staticmethod
    def stage_of(reports: Path, nodeid: str) -> str:
        for path in (reports / ".inflight").glob("*.json"):
            try:
                note = json.loads(path.read_text() or "{}")
            except (OSError, ValueError):
                continue
            if note.get("nodeid") == nodeid:
                return note.get("stage", "?")
        return "?"


def pytest_report_header(config):
    try:
        tc = settings_for(config).toolchain
    except pytest.UsageError as e:
        return f"iree-regress: {e}"
    return f"iree-regress: {tc.describe()}"


class RunRecorder:
    """The controller's part of "no item without a result": a case that did not load gets
    a results line too (registered in pytest_configure)."""

    def __init__(self, config):
        self.config = config

    def pytest_collectreport(self, report):
        config = self.config
        if not report.failed or not report.nodeid.endswith(".toml") or session_of(config).env is None:
            return
        session_of(config).record(ItemRecord(case=ItemRef.of_nodeid(report.nodeid).case, item="(collect)",
                                   outcome=COLLECT_ERROR, verdict=ERROR,
                                   message=str(report.longrepr)[-2000:], nodeid=report.nodeid))


class XdistRecorder(RunRecorder):
    """With pytest-xdist: workers write the controller's run id, and a worker that dies
    leaves a result for the item it was running."""

    def pytest_configure_node(self, node):
        node.workerinput["iree_run_id"] = session_of(self.config).run_id
        node.workerinput["iree_shard_durations"] = session_of(self.config).durations
        node.workerinput["iree_dist"] = self.config.option.dist

    def pytest_handlecrashitem(self, crashitem, report, sched):
        """xdist: a worker died while running `crashitem`; record it with its last stage,
        and kill its tools (re-parented here: this process is their subreaper)."""
        _kill_tools()
        stage = InflightNote.stage_of(session_of(self.config).reports, crashitem)
        ref = ItemRef.of_nodeid(crashitem)
        session_of(self.config).record(ItemRecord(
            case=ref.case, item=ref.item, outcome=WORKER_CRASH,
            verdict=ERROR, message=f"the pytest worker died during the {stage} stage",
            stages=[StageResult(stage, CRASHED, "worker process died")], nodeid=crashitem))


class CaseFile(pytest.File):
    def collect(self):
        case = load_case(self.path)  # CaseError -> a collection error for this file only
        opts = self.config.option
        checks = {c.name: c for c in case.ir_checks}
        extra = [t for t in opts.target if not targets.BY_NAME[t].default]
        for item in ItemId.of(case, extra):
            check = checks.get(item.ir_check)
            if item.is_differ:
                wanted = _differ_wanted(case.differ_named(item.differ), opts)
            else:
                # An IR check belongs to the target its own flags compile for, or to none.
                target = targets.target_of_flags(check.args) if check else item.target
                wanted = ((target is None or target in opts.target)
                          and (item.opt_level is None or item.opt_level in opts.opt_level))
            if wanted:
                yield CaseItem.from_parent(self, name=item.name, case=case, item=item, check=check)

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
    def __init__(self, *, case, item: ItemId, check, **kwargs):
        super().__init__(**kwargs)
        self.case = case
        self.item = item
        self.target = item.target
        self.opt_level = item.opt_level
        self.check = check
        kind = "ir" if item.is_ir else "differ" if item.is_differ else case.kind
        for marker in (item.target, item.opt_level, kind):
            if marker:
                self.add_marker(marker)
        self.add_marker(pytest.mark.xdist_group(case.slug))  # pytest_cmdline_main

    @property
    def ref(self) -> ItemRef:
        return ItemRef(self.case.slug, self.name)

    def _about(self) -> dict:
        """What a record says of the item's case, even when the item could not run."""
        return {"title": self.case.title, "issues": list(self.case.threads), "family": self.case.family}

    def _harness_error(self, e: Exception) -> ItemRecord:
        trouble = isinstance(e, OSError) and errno.errorcode.get(e.errno) in MACHINE_ERRNOS
        message = (f"machine trouble: {errno.errorcode[e.errno]}: {e.strerror}: {e.filename}" if trouble
                   else f"{type(e).__name__}: {e}")
        return ItemRecord(
            case=self.ref.case, item=self.name, outcome=INFRA_ERROR if trouble else HARNESS_ERROR, verdict=ERROR,
            message=message, target=self.target, opt_level=self.opt_level,
            ir_check=self.item.ir_check, differ=self.item.differ, nodeid=self.nodeid, **self._about())

    def runtest(self):
        try:
            result, v = self._run()
        except Exception as e:  # the harness's own failure: still a result, never lost
            session_of(self.config).record(self._harness_error(e))
            raise
        attempts = self._retry(result) if v.kind in (FAIL, XPASS) else []
        record = result.record(v, nodeid=self.nodeid, attempts=attempts)
        session_of(self.config).record(record)
        if record.flaky:
            raise ItemFailure(f"FLAKY: {' then '.join(attempts)}: {v.message}", result)
        for key in ("outcome", "verdict", "compiler", "seconds", "compile_only"):
            self.user_properties.append((key, getattr(record, key)))
        if v.kind in (FAIL, XPASS, ERROR) or (v.kind == XFAIL and self.config.option.runxfail):
            self.user_properties.append(("reproducer", record.reproducer))
            prefix = {XPASS: "UNEXPECTED PASS: ", XFAIL: "known bug (--runxfail): ",
                      ERROR: "NO VERDICT: "}.get(v.kind, "")
            raise ItemFailure(prefix + v.message, result)
        if v.kind == XFAIL:
            pytest.xfail(v.message)
        if v.kind in (SKIP, UNOBSERVED):  # never a pass: pytest counts it skipped, records say why
            pytest.skip(v.message)

    def _retry(self, first: ItemResult) -> list[str]:
        """Outcomes of --retries reruns (first included), each with an empty cache: a
        cached result would only repeat itself."""
        retries = self.config.getoption("retries")
        if retries <= 0:
            return []
        settings = settings_for(self.config)
        outcomes = [first.outcome]
        settings.cache.root.mkdir(parents=True, exist_ok=True)
        for _ in range(retries):
            scratch = Path(tempfile.mkdtemp(prefix="retry-", dir=settings.cache.root))
            try:
                again = replace(settings, cache=Cache(scratch))
                outcomes.append(self._result(again).outcome)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
        return outcomes

    def _result(self, settings: Settings, progress=None) -> ItemResult:
        """The item run once with `settings` (the run's, or a retry's empty cache)."""
        return run_item(self.case, self.item, settings, progress)

    def _run(self):
        settings = settings_for(self.config)
        result = self._result(settings, session_of(self.config).progress(self.nodeid))
        return result, verdict(result, expectation_for(result, settings.toolchain.release))

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
        return self.path, None, str(self.ref)


class SweepFile(pytest.File):
    """sweeps/<family>.toml: one node per variant (the sample with --sweep-sample)."""

    def collect(self):
        sweep = load_sweep(self.path)  # CaseError -> a collection error for this file only
        variants = sweep.sample_of() if self.config.getoption("sweep_sample") else sweep.variants()
        share = session_of(self.config).generated_share
        if share and not self.config.getoption("sweep_sample"):
            variants = sweep.seed_share(*share)
        for variant in variants:
            yield VariantNode.from_parent(self, name=variant.id, sweep=sweep, variant=variant)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CaseError):
            return f"malformed sweep: {excinfo.value}"
        return super().repr_failure(excinfo, style)


def _differ_wanted(differ: Differ, opts) -> bool:
    """A differential item runs when both sides' targets and levels are asked for."""
    return all(s.target in opts.target and s.opt_level in opts.opt_level for s in (differ.a, differ.b))


class VariantNode(pytest.Collector):
    def __init__(self, *, sweep: Sweep, variant: Variant, **kwargs):
        super().__init__(**kwargs)
        self.sweep = sweep
        self.variant = variant

    def collect(self):
        opts = self.config.option
        for target, levels in self.sweep.levels.items():
            if target not in opts.target:
                continue
            for level in levels:
                if level in opts.opt_level:
                    yield SweepItem.from_parent(self, name=f"{target}-{level}", sweep=self.sweep,
                                                variant=self.variant, item=ItemId(target, level))
        # A differential sweep's verdicts (the sides read as a case's: sweep.differ_tables).
        for differ in self.sweep.differs:
            if _differ_wanted(differ, opts):
                item = ItemId(differ=differ.name)
                yield SweepItem.from_parent(self, name=item.name, sweep=self.sweep, variant=self.variant, item=item)


class SweepItem(CaseItem):
    """A variant's item: made into a case each time it runs (cached by program and torch
    version, so a retry's empty cache makes it anew), then run as a case's item."""

    def __init__(self, *, sweep: Sweep, variant: Variant, item: ItemId, **kwargs):
        pytest.Item.__init__(self, **kwargs)  # no case yet: it is made when the item runs
        self.sweep, self.variant = sweep, variant
        self.item = item
        self.target, self.opt_level, self.check = item.target, item.opt_level, None
        for marker in (item.target, item.opt_level, "differ" if item.is_differ else sweep.kind, "sweep"):
            if marker:
                self.add_marker(marker)
        self.add_marker(pytest.mark.xdist_group(variant.case_id.replace("::", "/")))  # no "::" in a group

    @property
    def ref(self) -> ItemRef:
        return ItemRef(self.variant.case_id, self.name)

    def _about(self) -> dict:
        return {"title": f"{self.sweep.title}: {self.variant.id}", "family": self.sweep.family}

    def _result(self, settings: Settings, progress=None) -> ItemResult:
        if progress:
            progress("reference")
        case, golden = materialize(self.sweep, self.variant, settings)
        if not golden.ok:  # no golden, no program to judge: the item ends on that stage
            return ItemResult(case, self.name, self.target, self.opt_level, None,
                              settings.toolchain.compiler_version, [golden])
        return run_item(case, self.item, settings, progress)


def pytest_unconfigure(config):
    """Kill what is left of the run's tools. The xdist workers share this session and
    have exited by now; tools run in sessions of their own."""
    _kill_tools()


def _kill_tools() -> None:
    """Kill the tools re-parented to this process (it is their subreaper): children in a
    session of their own (every tool starts one), with all they started. Workers share
    this session and are spared, and so are the tools of live workers (grandchildren)."""
    sid = os.getsid(0)
    for child in children(os.getpid()):
        try:
            orphan = os.getsid(child) != sid
        except ProcessLookupError:
            continue
        if orphan:
            kill_descendants(pid=child)
            kill_tree_root(child)


def pytest_terminal_summary(terminalreporter, config):
    """Say which items ran compile-only, so a pass without a run is never silent."""
    if _is_worker(config) or session_of(config).env is None:
        return
    path = session_of(config).writer.path
    if not path.is_file():
        return
    _, items = read_results(path)
    compile_only = [i for i in items if i.compile_only and i.verdict == PASS]
    errors = [i for i in items if i.verdict == ERROR]
    if errors:
        terminalreporter.write_sep("-", f"{len(errors)} item(s) without a verdict (errors)")
        for i in errors:
            last = i.message.strip().splitlines()[-1] if i.message.strip() else ""
            terminalreporter.write_line(f"  {i.key}: {i.outcome}: {last}")
    splits = blame(items)
    if splits:
        terminalreporter.write_sep("-", f"{len(splits)} program(s) whose compiles disagree, read by majority")
        for case, said in sorted(splits.items()):
            terminalreporter.write_line(f"  {case}: {said}")
    if compile_only:
        reasons: dict[str, int] = {}
        for i in compile_only:
            why = i.stage("run").detail
            reasons[why] = reasons.get(why, 0) + 1
        terminalreporter.write_sep("-", f"{len(compile_only)} item(s) passed compile-only")
        for r, n in sorted(reasons.items()):
            terminalreporter.write_line(f"  {n:4} {r}")
    terminalreporter.write_line(f"iree-regress results: {path}")
