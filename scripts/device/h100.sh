#!/usr/bin/env bash
# How the NVIDIA GPU figures in BENCHMARKS.md are made (run from the repository root on the GPU
# machine, with the release binary in .devbin/ and Debian's Vulkan loader .debs in .gl/):
#   cargo build --release && mkdir -p .devbin && cp target/release/tilekit .devbin/
#   bash scripts/device/h100.sh OUT_DIR
set -euo pipefail
out=${1:-out}
mkdir -p "$out"
if ! ldconfig -p | grep -q libvulkan; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
export XDG_RUNTIME_DIR=/tmp WGPU_BACKEND=vulkan
bin=.devbin/tilekit
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
date -u +%Y-%m-%dT%H:%MZ | tee -a "$out/gpu.txt"
# The 1 GiB sum first, in a fresh process (bandwidth depends on allocation history: docs/wgpu-notes.md 4).
$bin bench --filter reduce-1gib --json "$out/sum-fresh.json" > "$out/sum-fresh.txt"
$bin bench --json "$out/bench.json" --chart "$out/roofline.svg" > "$out/bench.txt"
$bin bench --filter matmul-sweep --json "$out/sweep.json" > "$out/sweep.txt"
python3 scripts/device/baseline.py "$out/bench.json" > "$out/torch.json"
if [ "${TOUR:-0}" = 1 ]; then $bin tour > "$out/tour.txt"; fi
