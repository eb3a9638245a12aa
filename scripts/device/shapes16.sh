#!/usr/bin/env bash
# tilekit's chosen f16 matmul beside PyTorch's (cuBLAS, CUDA events, median of 20) on shapes
# beyond the bench's f16 set, in one session on the GPU machine (BENCHMARKS.md, "Split of K by
# waves"). Needs the release binary in .devbin/ and the Vulkan loader in .gl/:
#   cargo build --release && cp target/release/tilekit .devbin/
#   bash scripts/device/shapes16.sh > shapes16.txt
set -euo pipefail
if ! ldconfig -p | grep -q libvulkan; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
export XDG_RUNTIME_DIR=/tmp WGPU_BACKEND=vulkan
S="2048 2048 2048;3000 5000 700;1000 1000 1000;1024 1024 1024;128 4096 4096;512 4096 4096;256 8192 8192;4096 4096 1024;8192 8192 1024;300 2000 500;4096 4096 4096;8192 8192 8192"
IFS=';' read -ra A <<< "$S"
for sh in "${A[@]}"; do
  # shellcheck disable=SC2086
  echo "tilekit $sh: $(.devbin/tilekit run matmul $sh --dtype f16 2>&1 | grep -E '^matmul|rror' | sed 's/matmul [^ ]* coop float16 //')"
done
python3 - "$S" <<'PY'
import sys
import torch
for sh in sys.argv[1].split(';'):
    m, k, n = map(int, sh.split())
    a = torch.randn(m, k, device='cuda', dtype=torch.half)
    b = torch.randn(k, n, device='cuda', dtype=torch.half)
    for _ in range(10):
        a @ b
    torch.cuda.synchronize()
    ts = []
    for _ in range(20):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        a @ b
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) / 1e3)
    ts.sort()
    t = ts[len(ts) // 2]
    print(f"torch {sh}: {t * 1e6:.1f} us {2 * m * k * n / t / 1e12:.1f} TFLOP/s")
PY
