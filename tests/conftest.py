"""Fixtures for the harness's own tests (tests/); the cases live in cases/."""

import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

sys.path.insert(0, str(Path(__file__).parent))  # `import helpers` from any test module

from helpers import make_toolchain  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "real_compiler: runs a real iree-compile (only --help-hidden/--version: fast)")


@pytest.fixture(autouse=True)
def fake_tools_may_log(tmp_path_factory, monkeypatch):
    """The fake tools append to logs in the tests' folders: the tools' sandbox lets them,
    as it lets a user's own wrapper log (process.EXTRA_WRITABLE). A test of the sandbox
    itself removes this."""
    monkeypatch.setenv("IREE_REGRESS_TOOL_WRITABLE", str(tmp_path_factory.getbasetemp()))


@pytest.fixture
def fake_tools(tmp_path) -> Path:
    """A folder with fake iree-compile / iree-opt / iree-run-module (see helpers.py)."""
    return make_toolchain(tmp_path / "tools")


@pytest.fixture
def levels_everywhere(monkeypatch):
    """Every release has --iree-opt-level: for tests of windows, prove and bisect over fake
    releases named 3.0.0-3.6.0, whose subject is not the arrival of levels in 3.3.0
    (tests/test_levels.py is about that)."""
    from packaging.version import Version

    from harness import targets

    monkeypatch.setattr(targets, "OPT_LEVEL_FLAG", ((Version("0"), "--iree-opt-level={level}"),))
