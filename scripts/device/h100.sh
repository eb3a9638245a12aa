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
$bin info | tee "$out/info.txt"
# The bench first, in a fresh process (bandwidth depends on allocation history: FINDINGS.md 4).
$bin bench --json "$out/bench.json" --chart "$out/roofline.svg" | tee "$out/bench.txt"
python3 scripts/device/baseline.py | tee "$out/torch.json"
$bin tour | tee "$out/tour.txt"
# What wgpu's shader runtime checks cost (FINDINGS.md pitfall 3): the matmuls with them kept.
$bin --checked bench --filter matmul | tee "$out/checked.txt"
