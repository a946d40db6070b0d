"""Prove a case: its bug shows where its windows say, and nowhere next to them.

A case proves nothing until it has been seen failing on a release with the bug. For
each [[history.window]] the case's bug items run (releases installed and cached) on:

    last_good   (onset)  the items must pass (the release before the bug came)
    hidden      (onset, end)  another failure, not the bug: what hides the onset (or the
                         end, when the bug turned into another failure before its fix) still does
    first_bad   (onset)  the bug must show
    last_bad    (end)    the bug must show
    first_good  (end)    the items must pass; for an open window, the newest release
                         must still show the bug

"Shows" is harness/bug.py's judgement (outcome and the bug's own message), never an
outcome alone. Items whose bug only shows where this machine cannot run (HIP/CUDA
numerics) leave the check undecided ("needs hardware"), never proven.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from ..bug import Bug
from ..case import Case
from ..item import ItemId, bug_items, measured_as, run_item, settings_with
from ..outcomes import PASS_OUTCOME, PROBE_BAD, PROBE_GOOD, SKIP_OUTCOME
from ..runner import ItemResult
from ..stages import Settings
from ..targets import no_levels, opt_level_supported
from .releases import ReleaseSource, ReleaseUnavailable, ensure


@dataclass
class ReleaseRun:
    version: str
    results: list[ItemResult] = field(default_factory=list)
    error: str = ""
    # Items this release measured nothing of (its compiler does not know one of their
    # options), with why: such a release is never good, for any item it did measure.
    unmeasured: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    def outcomes(self) -> dict[str, str]:
        return {r.name: r.outcome for r in self.results}

    def summary(self) -> str:
        return self.error or ", ".join(f"{k}={v}" for k, v in self.outcomes().items())


@dataclass(frozen=True)
class Check:
    version: str
    role: str  # last_good | hidden | first_bad | last_bad | first_good | newest | guard
    ok: bool | None  # None: undecided (no device for a run-time bug, release unavailable)
    detail: str

    @property
    def want(self) -> str:
        return _WANT[self.role]

    def line(self) -> str:
        mark = {True: "ok ", False: "NO ", None: "?  "}[self.ok]
        return f"{mark} {self.role:<10} {self.version:<10} wants {self.want:<6}: {self.detail}"


@dataclass
class Proof:
    case: Case
    checks: list[Check] = field(default_factory=list)
    runs: dict[str, ReleaseRun] = field(default_factory=dict)
    note: str = ""

    @property
    def status(self) -> str:
        return status_of(self.checks, self.case.history.status == "guard", self.note)

    @property
    def failed(self) -> bool:
        return self.status not in ("PROVEN", "GUARD")

    def as_dict(self) -> dict:
        return {"case": self.case.slug, "status": self.status, "note": self.note,
                "guard": self.case.history.status == "guard",
                "checks": [{**c.__dict__, "want": c.want} for c in self.checks],
                "runs": {v: {"error": r.error, "outcomes": r.outcomes(), "seconds": round(r.seconds, 1)}
                         for v, r in self.runs.items()}}


def status_of(checks: list[Check], guard: bool, note: str = "") -> str:
    """A case's proof from its checks (of one machine, or merged from several)."""
    if note:
        return "NOT PROVEN"
    if guard:
        return "GUARD" if all(c.ok for c in checks) else "GUARD FAILING"
    if any(c.ok is False for c in checks):
        return "NOT PROVEN"
    if any(c.ok is None for c in checks):
        return "NEEDS HARDWARE"
    return "PROVEN"


def merge_proofs(proofs: list[dict]) -> dict[str, dict]:
    """Proofs of the same cases made on several machines (each on some releases, see
    prove_case's `only`) as one per case: every check once, the status recomputed. A
    case no machine checked at all is NOT PROVEN."""
    merged: dict[str, dict] = {}
    for p in proofs:
        m = merged.setdefault(p["case"], {"case": p["case"], "guard": p.get("guard", False),
                                          "note": "", "checks": {}})
        m["note"] = m["note"] or p.get("note", "")
        for c in p.get("checks", []):
            m["checks"][(c["version"], c["role"])] = c
    for m in merged.values():
        checks = [Check(c["version"], c["role"], c["ok"], c["detail"]) for c in m["checks"].values()]
        m["checks"] = [{**c.__dict__, "want": c.want} for c in checks]
        m["status"] = (status_of(checks, m["guard"], m["note"]) if checks
                       else "NOT PROVEN")
        if not checks and not m["note"]:
            m["note"] = "no machine checked any of its releases"
    return merged


def items_to_prove(case: Case) -> list[ItemId]:
    return bug_items(case)


def items_on(case: Case, items: list[ItemId], version: str) -> list[ItemId]:
    """The items a release measures (item.measured_as), each once."""
    return list(dict.fromkeys(measured_as(case, item, version) for item in items))


def run_release(case: Case, version: str, items: list[ItemId], settings: Settings,
                source: ReleaseSource, log) -> ReleaseRun:
    run = ReleaseRun(version)
    start = time.monotonic()
    try:
        toolchain = ensure(version, source, log=log)
    except ReleaseUnavailable as e:
        run.error = str(e)
        return run
    on_release = settings_with(toolchain, settings)
    results = [run_item(case, item, on_release) for item in items_on(case, items, version)]
    # A compiler that does not know an option of the item's measured nothing of its
    # program: never a verdict, so never a window's good or bad release.
    unknown = {r.name: _unknown_option(r) for r in results}
    run.results = [r for r in results if not unknown[r.name]]
    run.unmeasured = {n: u for n, u in unknown.items() if u}
    if run.unmeasured:
        what = "nothing measured" if not run.results else f"{', '.join(run.unmeasured)} not measured"
        note = (f"does not know {', '.join(sorted(set(run.unmeasured.values())))}: {what} (a renamed option is "
                "spelled per release in targets.RENAMED_OPTIONS)")
        run.error = note if not run.results else ""
        log(f"  {version} {note}")
    run.seconds = time.monotonic() - start
    return run


_UNKNOWN_OPTION = re.compile(r"Unknown command line argument '(-[^'=]+)[^']*'\.(?:.*\n.*Did you mean '(-[^'=]+))?")


def _unknown_option(result: ItemResult) -> str:
    """The option a tool of the item's did not know ("--x (it suggests --y)"), or ""."""
    if result.outcome in (PASS_OUTCOME, SKIP_OUTCOME):
        return ""
    m = _UNKNOWN_OPTION.search(result.failure_text())
    if not m:
        return ""
    return m.group(1) + (f" (it suggests {m.group(2)})" if m.group(2) else "")


def judge(run: ReleaseRun, role: str, bug: Bug) -> Check:
    """One release checked against what its role in a window wants."""
    if run.error:
        return Check(run.version, role, None, run.error)
    if role == "hidden by levels":  # the release could not be asked for the items' levels
        shows = [r.name for r in run.results if bug.state(r).kind == PROBE_BAD]
        return Check(run.version, role, not shows and not opt_level_supported(run.version),
                     f"the bug shows on {', '.join(shows)}" if shows else f"{no_levels(run.version)}; {run.summary()}")
    if all(r.outcome == SKIP_OUTCOME for r in run.results):
        return Check(run.version, role, None, "no item applies to this release")
    states = {r.name: bug.state(r) for r in run.results}
    showing = [n for n, s in states.items() if s.kind == PROBE_BAD]
    # An item that does not apply here (a level a release without levels runs as another
    # item's one compile) decides nothing either way.
    undecided = [r.name for r in run.results
                 if states[r.name].kind not in (PROBE_BAD, PROBE_GOOD) and r.outcome != SKIP_OUTCOME]
    outcomes = run.summary()
    if role in ("first_bad", "last_bad", "newest"):
        if showing:
            return Check(run.version, role, True, f"{bug.description} on {', '.join(showing)}")
        needs = [r.name for r in run.results if r.compile_only and bug.needs_device()]
        return Check(run.version, role, None if needs else False,
                     (f"compile-only here ({', '.join(needs)}): " if needs else "not shown: ") + outcomes)
    if role == "hidden":
        if showing:
            return Check(run.version, role, False, f"the bug shows on {', '.join(showing)}: "
                                                   "the window is wider than recorded")
        hiding = [r.name for r in run.results if r.outcome not in (PASS_OUTCOME, SKIP_OUTCOME)]
        return (Check(run.version, role, True, outcomes) if hiding else
                Check(run.version, role, False, f"every item passes: it is a last_good ({outcomes})"))
    # last_good, first_good: every item passes (ran where it can; compile-only passes are
    # undecided). A release where another failure hides the bug is never good, nor one
    # that measured only some items.
    if showing or any(r.outcome not in (PASS_OUTCOME, SKIP_OUTCOME) for r in run.results):
        return Check(run.version, role, False, outcomes)
    if run.unmeasured:
        return Check(run.version, role, None, f"{', '.join(run.unmeasured)} not measured: does not know "
                                              f"{', '.join(sorted(set(run.unmeasured.values())))}; {outcomes}")
    return Check(run.version, role, None if undecided else True, outcomes)


_WANT = {"last_good": PASS_OUTCOME, "hidden": "other", "hidden by levels": "levels", "first_bad": "bug", "last_bad": "bug", "newest": "bug",
         "first_good": PASS_OUTCOME, "guard": PASS_OUTCOME}


def prove_case(case: Case, settings: Settings, newest: str, source: ReleaseSource = ReleaseSource(),
               log=print, only: set[str] | None = None) -> Proof:
    """`only`: check just these releases (one machine of a matrix over releases; the
    proofs are merged with merge_proofs)."""
    h = case.history
    items = items_to_prove(case)
    proof = Proof(case)

    def on(version: str) -> ReleaseRun:
        if version not in proof.runs:
            proof.runs[version] = run_release(case, version, items, settings, source, log)
        return proof.runs[version]

    if h.status == "guard":
        # Nothing to reproduce: it must still pass where the fixes are.
        if only is not None and newest not in only:
            return proof
        run = on(newest)
        failing = [r for r in run.results if r.outcome not in (PASS_OUTCOME, SKIP_OUTCOME)]
        proof.checks.append(Check(newest, "guard", not failing and not run.error,
                                  run.summary()))
        return proof
    if h.status == "unreproduced":
        proof.note = f"unreproduced: {h.reason or 'no release showed the bug'}"
        return proof
    if not h.windows:
        proof.note = "no [[history.window]]: nothing to prove against (run prove --scan --write)"
        return proof
    bug = Bug.of(case)
    for w in h.windows:
        hidden = "hidden by levels" if w.hidden_before and w.hidden_by == no_levels(w.hidden_before) else "hidden"
        roles = [("last_good", w.last_good), (hidden, w.hidden_before), ("first_bad", w.first_bad),
                 ("last_bad", w.last_bad), ("hidden", w.hidden_after),
                 ("first_good", w.first_good) if w.first_good else ("newest", newest)]
        for role, version in roles:
            if version and (only is None or version in only):
                proof.checks.append(judge(on(version), role, bug))
    return proof
