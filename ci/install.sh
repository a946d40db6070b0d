#!/usr/bin/env bash
# Everything the suite needs on a fresh Debian machine: Mesa lavapipe (software
# Vulkan, so vulkan items run without a GPU), the Vulkan headers and gcc (the layer
# that shows lavapipe to IREE runtimes before 3.12, harness/vulkan_layer.py), Chromium
# (the HTML report's render test), bubblewrap (the sandbox case code runs in,
# harness/sandbox.py), then the Python packages. torch is pinned
# in pyproject.toml (an unpinned torch pulls a multi-GB CUDA build).
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"  # hosted CI runners: apt needs root, pip must not have it
if command -v apt-get >/dev/null && { [ -z "$sudo" ] || command -v sudo >/dev/null; }; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq mesa-vulkan-drivers libvulkan1 libvulkan-dev gcc chromium bubblewrap >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check -e ".[dev]"
