#!/usr/bin/env bash
# The test command (README, CI): format, lints (with and without the command line's feature),
# then every test on the best adapter found (lavapipe on a machine without a GPU) and the tour;
# on Linux, the GPU tests and the tour again on wgpu's GL back end (llvmpipe through EGL).
# Tests that need an adapter fail when none is found. PROPTEST_CASES raises the property-test
# case count (default: what fits CI's budget).
#
# TILEKIT_PYTHON names the interpreter of the NumPy tests (default: python3 on the PATH, whoever
# made it); NumPy is installed for that interpreter when it lacks it. TILEKIT_FRESH_PYTHON=1 (set
# by .ci/run) runs them with a new venv that has no NumPy instead: what a fresh machine whose
# python3 is not Debian's looks like.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/vulkan.sh
. scripts/python.sh
if [ -n "${TILEKIT_FRESH_PYTHON:-}" ]; then
  base=$(command -v python3 || true)
  if [ -z "$base" ]; then
    apt_install python3 python3-venv
    base=$(command -v python3)
  fi
  venv=$(mktemp -d)/python-without-numpy
  "$base" -m venv "$venv"
  if [ -n "$(numpy_version "$venv/bin/python")" ]; then
    echo "error: the fresh venv $venv already imports numpy; it stands in for no machine" >&2
    exit 1
  fi
  echo "== the NumPy tests with a new Python that has no NumPy: $venv ==" >&2
  ensure_numpy "$venv/bin/python"
else
  ensure_numpy
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
# `cargo run`, not ./target/...: CARGO_TARGET_DIR may put the binary elsewhere.
cargo run --quiet -- tour --quick
if [ "$(uname -s)" = Linux ]; then
  ensure_gl
  echo "== the GPU tests and the tour on the GL back end ==" >&2
  WGPU_BACKEND=gl cargo test --tests
  WGPU_BACKEND=gl cargo run --quiet -- tour --quick
fi
