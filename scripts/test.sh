#!/usr/bin/env bash
# The test command (README, CI): format, lints (every crate of the workspace, and the page),
# then every test of the library, the course and the command line on the best adapter found (lavapipe on a machine without a GPU),
# every example and the tour; on Linux, the kernel tests and the lessons again on wgpu's GL back end
# (llvmpipe through EGL); the fuzz targets for a bounded time (TILEKIT_FUZZ_SECONDS, default 20
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
  # Removed on exit: a venv with NumPy is about 100 MB, and CI machines share their disk.
  venv_dir=$(mktemp -d)
  trap 'rm -rf "$venv_dir"' EXIT
  venv=$venv_dir/python-without-numpy
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
# Line tables are enough for a test's backtrace; full debug info of wgpu and naga in every test
# binary is most of what linking them costs on two cores.
export CARGO_PROFILE_DEV_DEBUG=${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}
# No incremental caches: a build from scratch gains nothing from them, and they are 1.5 GB of the
# target folder's 6 (a CI run once failed on a full disk while linking the tests).
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
target_dir=${CARGO_TARGET_DIR:-$PWD/target}
mkdir -p "$target_dir"
echo "target folder $target_dir: $(df -Ph "$target_dir" | awk 'NR == 2 { print $4 }') free" >&2
started=$SECONDS
step() { echo "== $* ($((SECONDS - started)) s in) ==" >&2; }
step formatting and lints
cargo fmt --check
(cd web && cargo fmt --check)
cargo clippy --workspace --all-targets -- -D warnings
step the tests
cargo test --workspace
step every example, small sizes
for example in examples/*.rs; do
  name=$(basename "$example" .rs)
  echo "-- $name" >&2
  cargo run --quiet -p tilekit --example "$name" -- --quick >/dev/null
done
step the tour
# `cargo run`, not ./target/...: CARGO_TARGET_DIR may put the binary elsewhere.
cargo run --quiet -p tilekit-cli -- tour --quick
if [ "$(uname -s)" = Linux ]; then
  ensure_gl
  # The kernels, the lessons (tests/tour.rs runs the whole tour) and the exercise checker on a
  # second back end; the command line, files and reports do not depend on it.
  step the kernel tests and the tour on the GL back end
  gl_tests=()
  for t in matmul matmul_queue matmul_f16 matmul_coop dispatch reduce reverse transpose histogram blur wide carve gpu tour exercises; do
    gl_tests+=(--test "$t")
  done
  # One test at a time: wgpu's GL back end has one context per adapter, and a thread that waits
  # on it longer than 6 s makes another thread's call panic ("Could not lock adapter context"):
  # that happened once here with the machine loaded, and one at a time also ran these tests in
  # 25 s against 59 s on two cores.
  # --workspace, as the tests above: built for one package alone, wgpu's features would differ
  # and it would be compiled again.
  WGPU_BACKEND=gl cargo test --workspace "${gl_tests[@]}" -- --test-threads=1
fi
fuzz_seconds=${TILEKIT_FUZZ_SECONDS:-20}
if [ "$fuzz_seconds" != 0 ]; then
  step "the fuzz targets, ${fuzz_seconds} s each"
  bash scripts/fuzz.sh "$fuzz_seconds"
fi
if [ "${TILEKIT_WEB:-1}" != 0 ]; then
  step the web page in headless Chromium
  # Built without the shipped profile's LTO and single codegen unit (web/Cargo.toml): the same
  # code, built much faster on two cores; `scripts/web.sh --build` makes the page users get.
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 bash scripts/web.sh --test
fi
step "all passed"
