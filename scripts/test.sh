#!/usr/bin/env bash
# The test command (README, CI): format, lints (the library alone, with the tour, with the
# command line), then every test on the best adapter found (lavapipe on a machine without a GPU),
# every example and the tour; on Linux, the GPU tests and the tour again on wgpu's GL back end
# (llvmpipe through EGL); the fuzz targets for a bounded time (TILEKIT_FUZZ_SECONDS, default 45
# each; 0 skips them); then the web page, built for wasm32 and checked in headless Chromium on
# SwiftShader's WebGPU (TILEKIT_WEB=0 skips it). Tests that need an adapter fail when none is
# found. PROPTEST_CASES raises the property-test case count (default: what fits CI's budget).
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
started=$SECONDS
step() { echo "== $* ($((SECONDS - started)) s in) ==" >&2; }
step formatting and lints
cargo fmt --check
(cd web && cargo fmt --check)
cargo clippy --all-targets -- -D warnings
cargo clippy --lib --no-default-features -- -D warnings
cargo clippy --lib --no-default-features --features tour -- -D warnings
step the tests
cargo test
step every example, small sizes
for example in examples/*.rs; do
  name=$(basename "$example" .rs)
  echo "-- $name" >&2
  cargo run --quiet --example "$name" -- --quick >/dev/null
done
step the tour
# `cargo run`, not ./target/...: CARGO_TARGET_DIR may put the binary elsewhere.
cargo run --quiet -- tour --quick
if [ "$(uname -s)" = Linux ]; then
  ensure_gl
  step the GPU tests and the tour on the GL back end
  WGPU_BACKEND=gl cargo test --tests
  WGPU_BACKEND=gl cargo run --quiet -- tour --quick
fi
fuzz_seconds=${TILEKIT_FUZZ_SECONDS:-45}
if [ "$fuzz_seconds" != 0 ]; then
  step "the fuzz targets, ${fuzz_seconds} s each"
  bash scripts/fuzz.sh "$fuzz_seconds"
fi
if [ "${TILEKIT_WEB:-1}" != 0 ]; then
  step the web page in headless Chromium
  bash scripts/web.sh --test
fi
step "all passed"
