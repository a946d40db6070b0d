"""What triage may say of where a bug is: only what its experiments confirmed.

flow.py runs the experiments (phase swaps, the pass rerun alone, the crash reproducer,
the release options); this one sentence is what the terminal, ISSUE.md's summary and
TRIAGE.json say of them, and by which experiment.
"""

from __future__ import annotations

RUNTIME = "runtime"  # the "phase" named when the modules agree and the runtimes do not


def confirmed_where(t) -> tuple[str, str]:
    """(phase, pass) triage may name: a phase when both swap directions agreed, a pass
    when run alone on both releases it parts them, or the pass the bad release fails in
    (a crash, a compile error). '' where nothing was confirmed."""
    phase = t.phase.phase if t.phase is not None and t.phase_confirmed else ""
    confirmed_pass = t.pass_diff.argument if t.pass_diff is not None and t.pass_confirmed else ""
    return phase, t.failing_pass or confirmed_pass


def confirmed_option(t) -> str:
    """The release option the bug follows, as measured ('' when none): the bad release with
    the good release's value is right."""
    found = t.options
    return found.said(t.good.compiler_version, t.bad.compiler_version) if found and found.found else ""


def localized(t) -> str:
    """The one sentence of where the bug is, as the terminal, ISSUE.md and TRIAGE.json say
    it: only what was confirmed; otherwise 'not localized' with why."""
    phase, found = confirmed_where(t)
    option = confirmed_option(t)
    if option and not (phase or found):  # the releases' IR could not be swapped: the options answered
        return f"localized by the release options (phase swaps did not confirm a phase): {option}."
    if phase or found:
        how = (t.phase.missing if phase and t.phase.missing else
               "both swaps of its output carry the bug with the bad release")
        said = [f"the `{phase}` phase ({how})" if phase and phase != RUNTIME else
                "the runtime (the bug follows the bad release's runtime)" if phase else "",
                f"the pass `{found}` ({'the bad release fails in it' if found == t.failing_pass else 'run alone on both releases, it parts them'})"
                if found else ""]
        return "localized to " + ", ".join(p for p in said if p) + "." + (f" Also {option}." if option else "")
    if t.phase is None:
        why = "every compile phase's output is the same on both releases"
    else:
        why = (f"the first phase that differs, `{t.phase.phase}`, did not carry the bug both ways when its "
               "output was swapped between the releases")
    if t.pass_diff is not None and t.pass_diff.argument:
        why += f"; the pass `{t.pass_diff.argument}` was not confirmed run alone"
    return f"not localized: {why}. The evidence below is unconfirmed."
