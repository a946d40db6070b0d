"""Levels per release: before 3.3.0 there is no --iree-opt-level, so O0-O3 are one compile
(the runner's one verdict per target: tests/test_plugin.py), and a window whose onset is
the arrival of levels is no onset."""

from __future__ import annotations

import pytest

from harness.history.window import windows
from test_history import BAD, BUFFERIZE, run

pytestmark = pytest.mark.harness

def test_no_window_starts_where_levels_arrive(monkeypatch):
    """A bug of O0 only, first seen on 3.3.0 (the first release that can be asked for O0):
    3.2.0's items were its one default compile, so its pass says nothing of O0. The onset is
    hidden before 3.3.0, never `last_good = 3.2.0`. Where every level shows the bug, the
    default compile is one of them, and 3.2.0's pass stands."""
    from harness.history import window
    from harness.targets import no_levels

    runs = [run("3.1.0", cpu_O0="pass", cpu_O3="pass"), run("3.2.0", cpu_O0="pass", cpu_O3="pass"),
            run("3.3.0", cpu_O0=BAD, cpu_O3="pass"), run("3.4.0", cpu_O0=BAD, cpu_O3="pass")]
    (w,) = windows(runs, BUFFERIZE).windows
    assert (w.last_good, w.hidden_before, w.first_bad) == (None, "3.2.0", "3.3.0")
    assert w.hidden_by == no_levels("3.2.0") and "--iree-opt-level" in w.hidden_by
    every = [run("3.2.0", cpu_O0="pass"), run("3.3.0", cpu_O0=BAD, cpu_O1=BAD, cpu_O2=BAD, cpu_O3=BAD)]
    (w,) = windows(every, BUFFERIZE).windows
    assert (w.last_good, w.hidden_before) == ("3.2.0", None)
    # later onsets are the releases' own
    later = [run("3.3.0", cpu_O0="pass", cpu_O3="pass"), run("3.4.0", cpu_O0=BAD, cpu_O3="pass")]
    assert windows(later, BUFFERIZE).windows[0].last_good == "3.3.0"
    # The planted fault: the old rule reads 3.2.0's default compile as O0's last good.
    monkeypatch.setattr(window, "_before_levels", lambda *a: None)
    assert windows(runs, BUFFERIZE).windows[0].last_good == "3.2.0"


