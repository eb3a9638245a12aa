#!/usr/bin/env bash
# The run behind BENCHMARKS.md's H200 tables: the workspace build (d2d8265) and the build before
# the split (e69b6a2), both release binaries in .devbin/, with Debian's Vulkan loader .debs in
# .gl/. Two calls of the device tool, one machine start:
#   call a: bash scripts/device/calls.sh OUT/calls 3 new=.devbin/tilekit-new old=.devbin/tilekit-old
#   call b: bash scripts/device/calls.sh OUT/calls 6 new=.devbin/tilekit-new old=.devbin/tilekit-old
#           bash scripts/device/compare.sh OUT/compare "shipped torch summary"   (.devbin/tilekit = new)
# calls-a/ and calls-b/ hold each round's `tilekit bench --filter call` of both builds and
# PyTorch's scripts/device/baseline.py; compare/ what a user gets against PyTorch.
# python3 scripts/device/compare_summary.py benchmarks/h200-2026-11-29/compare makes its table.
set -euo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
bash scripts/device/calls.sh "$1/calls" 6 new=.devbin/tilekit-new old=.devbin/tilekit-old
bash scripts/device/compare.sh "$1/compare" "shipped torch summary"
