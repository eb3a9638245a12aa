#!/usr/bin/env bash
# The test command (README, CI): format, lints (with and without the command line's feature),
# then every test on the best adapter found (lavapipe on a machine without a GPU) and the tour;
# on Linux, the GPU tests and the tour again on wgpu's GL back end (llvmpipe through EGL).
# Tests that need an adapter fail when none is found. PROPTEST_CASES raises the property-test
# case count (default: what fits CI's budget).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/vulkan.sh
# tests/numpy.rs compares every kernel's .npy output with NumPy's answer.
if ! python3 -c "import numpy" 2>/dev/null; then
  echo "no NumPy found: installing python3-numpy" >&2
  apt_install python3-numpy
fi
# tests/html.rs opens the HTML reports in headless Chromium (Debian's package).
if ! command -v chromium >/dev/null 2>&1; then
  echo "no Chromium found: installing chromium (the HTML report's browser test)" >&2
  apt_install chromium
fi
cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo clippy --lib --no-default-features -- -D warnings
cargo test
./target/debug/tilekit tour --quick
if [ "$(uname -s)" = Linux ]; then
  ensure_gl
  echo "== the GPU tests and the tour on the GL back end ==" >&2
  WGPU_BACKEND=gl cargo test --tests
  WGPU_BACKEND=gl ./target/debug/tilekit tour --quick
fi
