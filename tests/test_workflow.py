"""The nightly workflow: valid for GitHub (its published schema), and shaped as the suite
needs: sharded suite jobs, GPU jobs that run the shards' bundles, a merge job with one
gate, and the weekly prove as a matrix of shards merged into one proof."""

import shutil
import subprocess
from pathlib import Path

import pytest

GITHUB = Path(__file__).resolve().parent.parent / ".github"
WORKFLOW = GITHUB / "workflows" / "nightly.yml"
PR_WORKFLOW = GITHUB / "workflows" / "pr.yml"
MERGE_ACTION = GITHUB / "actions" / "merge-night" / "action.yml"


@pytest.mark.parametrize("path, schema", [(WORKFLOW, "vendor.github-workflows"),
                                          (PR_WORKFLOW, "vendor.github-workflows"),
                                          (MERGE_ACTION, "vendor.github-actions")])
def test_the_workflow_validates_against_githubs_schema(path, schema):
    tool = shutil.which("check-jsonschema")
    if tool is None:
        pytest.fail("check-jsonschema is missing: ci/install.sh installs it (pip install -e '.[dev]')")
    done = subprocess.run([tool, "--builtin-schema", schema, str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_broken_workflow_is_refused(tmp_path):
    """The validator is not a rubber stamp: a job without runs-on fails it."""
    tool = shutil.which("check-jsonschema") or pytest.fail("check-jsonschema is missing")
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text().replace("    runs-on: ubuntu-24.04\n    timeout-minutes: 30\n",
                                                   "    timeout-minutes: 30\n", 1))
    done = subprocess.run([tool, "--builtin-schema", "vendor.github-workflows", str(broken)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0


def test_shards_gpu_runs_merge_and_weekly_prove_are_all_there():
    from ruamel.yaml import YAML  # check-jsonschema's own YAML reader

    flow = YAML(typ="safe").load(WORKFLOW.read_text())
    jobs = flow["jobs"]
    shards = int(flow["env"]["SHARDS"])
    assert jobs["suite"]["strategy"]["matrix"]["shard"] == list(range(1, shards + 1))
    assert "--shard" in str(jobs["suite"]["steps"]) and "repro" in str(jobs["suite"]["steps"])
    assert jobs["gpu"]["needs"] == "suite" and "run-bundle" in str(jobs["gpu"]["steps"])
    assert jobs["merge"]["needs"] == "suite" and jobs["merge-gpu"]["needs"] == ["suite", "gpu"]
    for job in ("merge", "merge-gpu"):
        assert "./.github/actions/merge-night" in str(jobs[job]["steps"])
    assert "ci/merge" in MERGE_ACTION.read_text() and "--results" in str(jobs["gpu"]["steps"])
    prove = jobs["prove"]["strategy"]["matrix"]
    assert len(prove["releases"]) * len(prove["shard"]) > 1 and "--release-shard" in str(jobs["prove"]["steps"])
    assert jobs["prove-merge"]["needs"] == "prove" and "prove --merge" in str(jobs["prove-merge"]["steps"])


def test_the_pull_request_check_runs_strangers_code_with_nothing_to_steal():
    """pull_request only (pull_request_target would hand the PR's code a write token and
    secrets), a read-only token, no secrets, no stored credentials, and ci/pr-check."""
    from ruamel.yaml import YAML

    text = PR_WORKFLOW.read_text()
    flow = YAML(typ="safe").load(text)
    on = flow.get("on", flow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert set(on) == {"pull_request"}
    assert {"cases/**", "sweeps/**"} <= set(on["pull_request"]["paths"])
    assert flow["permissions"] == {"contents": "read"}
    assert "secrets." not in text
    (job,) = flow["jobs"].values()
    checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["persist-credentials"] is False
    assert any("ci/pr-check" in s.get("run", "") for s in job["steps"])
    assert "bubblewrap" in (GITHUB.parent / "ci" / "install.sh").read_text()


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"})


@pytest.mark.harness
def test_pr_check_runs_exactly_what_the_branch_changed(tmp_path):
    """ci/pr-check in a repository of its own, with iree-regress and python3 stubbed to log
    their arguments: the changed case and sweep are linted, proved and run; an unchanged
    case and a deleted one are not; with nothing changed it exits 0 at once."""
    import stat

    repo = tmp_path / "repo"
    (repo / "ci").mkdir(parents=True)
    (repo / "ci" / "pr-check").write_text((GITHUB.parent / "ci" / "pr-check").read_text())
    for slug in ("kept", "changed", "deleted"):
        (repo / "cases" / slug).mkdir(parents=True)
        (repo / "cases" / slug / "case.toml").write_text("title = 'x'\n")
    (repo / "sweeps").mkdir()
    (repo / "sweeps" / "topk.toml").write_text("")
    (repo / "sweeps" / "topk.py").write_text("")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "calls.log"
    for name in ("iree-regress", "python3"):
        (bin_ / name).write_text(f'#!/bin/sh\necho "{name} $*" >> {log}\n')
        (bin_ / name).chmod(stat.S_IRWXU)
    env = {"PATH": f"{bin_}:/usr/bin:/bin", "HOME": str(tmp_path)}
    nothing = subprocess.run(["bash", "ci/pr-check", "HEAD"], cwd=repo, capture_output=True, text=True, env=env)
    assert nothing.returncode == 0 and "no case or sweep changed" in nothing.stdout and not log.exists()

    (repo / "cases" / "changed" / "model.py").write_text("# changed\n")
    (repo / "cases" / "deleted" / "case.toml").unlink()
    (repo / "sweeps" / "topk.py").write_text("# changed\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "change")
    done = subprocess.run(["bash", "ci/pr-check", "HEAD~1"], cwd=repo, capture_output=True, text=True, env=env)
    calls = log.read_text().splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "iree-regress lint" in calls and "iree-regress prove changed" in calls
    run = next(c for c in calls if c.startswith("python3 -m pytest"))
    assert "cases/changed sweeps/topk.toml --sweep-sample" in run and "kept" not in run and "deleted" not in run
    assert any(c.startswith("python3 -c from harness.sandbox import probe") for c in calls)  # the sandbox asked
