#!/usr/bin/env bash
# The f16 / tensor-core figures of BENCHMARKS.md (issue 14), on the GPU machine, with the release
# binary and the release build of tests/matmul_f16.rs in .devbin/ and the Vulkan loader in .gl/:
#   cargo build --release && cp target/release/tilekit .devbin/
#   cp "$(cargo test --release --test matmul_f16 --no-run 2>&1 | grep -o 'target/release/deps/matmul_f16-[0-9a-f]*')" .devbin/matmul_f16
#   bash scripts/device/f16.sh OUT_DIR
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
# Correctness first: the f16 tests on this adapter (the coop kernel at ragged shapes), and the
# command line's full f64 check at ragged and mid-size shapes.
.devbin/matmul_f16 --test-threads 1 2>&1 | tail -12
for s in "1 77 33" "37 53 29" "130 67 129" "1000 1000 1000" "1023 2049 515"; do
  $bin run matmul $s --dtype f16 --variant coop 2>&1 | grep -E "^matmul|verified|error"
  $bin run matmul $s --compute f16 2>&1 | grep -E "^matmul|verified|error"
done
# Speed: every f16 variant and every coop tile at 4096³, then the chosen variant per shape
# (sampled f64 verification at 4096³ and 8192³), PyTorch's f16 and f32 beside it.
$bin bench --filter matmul-f16 --json "$out/f16.json" > "$out/f16.txt"
cat "$out/f16.txt"
$bin bench --filter matmul-shape/4096x4096x4096 --json "$out/f32.json" > /dev/null
python3 scripts/device/baseline.py "$out/f16.json" "$out/f32.json" > "$out/torch.json"
python3 -c "import json; [print(r['work'], round(r.get('flop_per_second', 0) / 1e12, 1), 'TFLOP/s') for r in json.load(open('$out/torch.json'))['rows'] if 'matmul' in r['work']]"
# Lesson 11 at GPU size, if its example was built: cargo build --release --example 11_tensor_cores
if [ -x .devbin/11_tensor_cores ]; then .devbin/11_tensor_cores | tee "$out/lesson11.txt"; fi
