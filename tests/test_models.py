"""The models table (harness/sweep/models.py): every architecture's program imports its
package in a fresh interpreter, as the sandbox runs it, with torchvision's compiled
extension unloadable beside the CPU torch wheel."""

import subprocess
import sys

import pytest

from harness.sweep.models import ARCHITECTURES, TORCHVISION_WITHOUT_EXTENSION, model_source

IMPORTS = "import torchvision, timm\nfrom transformers import BertModel\nprint('imported')\n"


def _fresh(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_every_program_imports_torchvision_without_its_extension():
    for arch in ARCHITECTURES:
        assert TORCHVISION_WITHOUT_EXTENSION in model_source(arch), arch


def test_the_packages_import_in_a_fresh_interpreter_with_the_prelude_and_not_without():
    """The planted fault is the machine's own: without the prelude, torchvision (and through it
    transformers' models) fail to import; with it, all three do."""
    with_prelude = _fresh(TORCHVISION_WITHOUT_EXTENSION + IMPORTS)
    assert with_prelude.returncode == 0 and "imported" in with_prelude.stdout, with_prelude.stderr[-2000:]
    without = _fresh(IMPORTS)
    if without.returncode == 0:
        pytest.skip("torchvision's extension loads here (a CUDA torch): nothing to leave out")
    assert "torchvision::nms" in without.stderr


@pytest.mark.parametrize("arch", ["shufflenet-v2", "levit"])
def test_a_torchvision_and_a_timm_model_build_and_run_as_their_program(arch):
    code = model_source(arch) + (
        "\nout = Model()(*example_inputs())\nprint(tuple(out.shape))\n")
    done = _fresh(code)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("(2, 10)")
