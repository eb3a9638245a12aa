#!/usr/bin/env bash
# Fuzz the .npy reader and the command line's argument handling for a bounded time each
# (scripts/test.sh runs it, so CI does). Needs the nightly toolchain; cargo-fuzz is installed
# from crates.io when missing.
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
# The fuzzer starts from cli/fuzz/regressions/TARGET (every input that ever broke something; the
# test suite runs them too, cli/tests/fuzz_regressions.rs) and a few valid files. An input it finds
# that panics, aborts or hangs is copied into cli/fuzz/regressions/TARGET and the script fails:
# fix the bug and commit the file, and it stays a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "error: fuzzing needs the nightly toolchain (rustup toolchain install nightly)" >&2
  exit 1
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz (crates.io)" >&2
  cargo +nightly install --quiet --locked cargo-fuzz
fi
work=${CARGO_TARGET_DIR:-$PWD/target}/fuzz-work
rm -rf "$work"
mkdir -p "$work/corpus/npy" "$work/corpus/cli_args" "$work/artifacts"
# Seeds: every regression, and valid files of every dtype tilekit reads (written by tilekit's
# own .npy writer through the tour-free `run` path would need a GPU; these bytes are NumPy's
# format written out by hand: version 1.0, a 118-byte padded header, then the data).
cp cli/fuzz/regressions/npy/* "$work/corpus/npy/"
cp cli/fuzz/regressions/cli_args/* "$work/corpus/cli_args/"
for d in '<f4' '<f8' '<f2' '<i4' '<u4' '|u1' '>f4'; do
  header="{'descr': '$d', 'fortran_order': False, 'shape': (2, 3), }"
  pad=$((117 - ${#header}))
  name=$(printf '%s' "$d" | tr '<>|' 'lbn')
  {
    printf '\x93NUMPY\x01\x00\x76\x00%s%*s\n' "$header" "$pad" ''
    head -c 48 /dev/urandom
  } >"$work/corpus/npy/seed-$name.npy"
done
printf 'plan\0tiled-matmul\0100\0200\0300\0--limits\0h100' >"$work/corpus/cli_args/seed-plan"
printf 'run\0matmul\0033\0035\0037\0--variant\0tiled\0--tile\0TILE=8' >"$work/corpus/cli_args/seed-run"
status=0
for target in npy cli_args; do
  echo "== fuzzing $target for ${secs}s ==" >&2
  mkdir -p "$work/artifacts/$target"
  if ! (cd cli && cargo +nightly fuzz run --fuzz-dir fuzz --dev --sanitizer none "$target" "$work/corpus/$target" -- \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/artifacts/$target/" -print_final_stats=1) 2>"$work/$target.log"; then
    tail -40 "$work/$target.log" >&2
    status=1
  else
    grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$work/$target.log" >&2 || true
  fi
  for found in "$work/artifacts/$target"/*; do
    [ -e "$found" ] || continue
    cp "$found" "cli/fuzz/regressions/$target/"
    echo "error: the $target target found $(basename "$found"): kept in cli/fuzz/regressions/$target/" >&2
    status=1
  done
done
exit $status
