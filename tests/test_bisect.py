"""The bisect search and version ordering, on fake version sources (no IREE needed).
What counts as bad, and git-bisect-run's exit codes, are in test_history.py."""

import math

import pytest

from harness.history.bisect import BAD, GOOD, SKIP, Probe, bisect, format_result, with_retries
from harness.history.releases import sort_versions

pytestmark = pytest.mark.harness


def fake_source(states: dict[str, str]):
    """A probe over a dict version -> state that records the versions it was asked."""
    asked = []

    def probe(version):
        asked.append(version)
        return Probe(version, states[version], states[version], 0.0)

    return probe, asked


def releases(n):
    return [f"3.{i}.0" for i in range(n)]


def test_versions_sort_by_pep440_with_rc_and_dev():
    shuffled = ["3.10.0", "3.9.0", "3.10.0rc20250101", "3.2.0", "3.10.1.dev5", "2.9.0",
                "3.10.0rc20241231", "not-a-version"]
    assert sort_versions(shuffled) == ["2.9.0", "3.2.0", "3.9.0", "3.10.0rc20241231",
                                       "3.10.0rc20250101", "3.10.0", "3.10.1.dev5"]


@pytest.mark.parametrize("first_bad", range(1, 16))
def test_finds_first_broken_release_in_log_probes(first_bad):
    versions = releases(16)
    probe, asked = fake_source({v: (BAD if i >= first_bad else GOOD) for i, v in enumerate(versions)})
    result = bisect(versions, probe)
    assert result.first_bad == versions[first_bad]
    assert result.last_good == versions[first_bad - 1]
    assert not result.undecided
    assert len(asked) <= math.ceil(math.log2(15)) + 2 == result.max_probes
    assert len(set(asked)) == len(asked), "no version probed twice"


def test_finds_first_fixed_release_when_walking_from_the_new_end():
    # Bug present in 3.0..3.5, fixed from 3.6: the caller passes newest-first.
    versions = releases(12)
    states = {v: (BAD if i < 6 else GOOD) for i, v in enumerate(versions)}
    probe, _ = fake_source(states)
    result = bisect(list(reversed(versions)), probe)
    assert result.last_good == "3.6.0"  # the first fixed release
    assert result.first_bad == "3.5.0"  # the last broken one


def test_skipped_versions_are_stepped_around():
    versions = releases(10)
    states = {v: (BAD if i >= 6 else GOOD) for i, v in enumerate(versions)}
    states["3.4.0"] = states["3.5.0"] = SKIP  # e.g. not installable
    probe, asked = fake_source(states)
    result = bisect(versions, probe)
    assert result.first_bad == "3.6.0"
    assert result.last_good == "3.3.0"
    assert result.undecided == ["3.4.0", "3.5.0"]  # the boundary may lie among them


def test_skip_next_to_the_boundary_does_not_hide_it():
    versions = releases(10)
    states = {v: (BAD if i >= 6 else GOOD) for i, v in enumerate(versions)}
    states["3.7.0"] = SKIP
    probe, _ = fake_source(states)
    result = bisect(versions, probe)
    assert (result.last_good, result.first_bad, result.undecided) == ("3.5.0", "3.6.0", [])


def test_wrong_ends_are_reported_not_answered():
    versions = releases(5)
    probe, _ = fake_source({v: GOOD for v in versions})
    result = bisect(versions, probe)
    assert result.first_bad is None and "bad end 3.4.0 is not bad" in result.error
    probe, _ = fake_source({v: SKIP for v in versions})
    assert "good end 3.0.0 is not good" in bisect(versions, probe).error


def test_flaky_probe_becomes_skip_and_is_stepped_around():
    versions = releases(8)
    truth = {v: (BAD if i >= 5 else GOOD) for i, v in enumerate(versions)}
    flips = {"3.4.0": iter([GOOD, BAD] * 3)}  # disagrees with itself on every retry

    def probe(v):
        state = next(flips[v]) if v in flips else truth[v]
        return Probe(v, state, state, 0.0)

    steady = with_retries(probe, 1)
    flaky = steady("3.4.0")
    assert flaky.state == SKIP and "flaky" in flaky.outcome
    assert steady("3.1.0").state == GOOD
    result = bisect(versions, steady)
    assert (result.last_good, result.first_bad, result.undecided) == ("3.3.0", "3.5.0", ["3.4.0"])


def test_a_fix_search_with_skips_says_its_range_oldest_first():
    """A fix search runs from the newer (good) end down: its range still reads old -> new
    ('fixed somewhere after 3.10.0 up to 3.12.0', never the reverse)."""
    versions = ["3.12.0", "3.11.0", "3.10.0"]  # good end (fixed) first
    probe, _ = fake_source({"3.12.0": GOOD, "3.11.0": SKIP, "3.10.0": BAD})
    result = bisect(versions, probe)
    (line,) = [l for l in format_result(result, "fixed") if "somewhere" in l]
    assert line == "fixed somewhere after 3.10.0 up to 3.12.0; undecided (skipped): 3.11.0"
