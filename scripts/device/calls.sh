#!/usr/bin/env bash
# Whole calls (a 512³ matmul read back, 16 queued products, the sum of 2^20 floats, a 4-byte
# readback) of one or more tilekit builds and of PyTorch, taking turns round by round in one
# machine start, so that a change to the library's call path is judged against the build before
# it and against PyTorch in the same run. Needs each build's release binary and the Vulkan loader
# .debs in .gl/ (scripts/device/h100.sh says how):
#   bash scripts/device/calls.sh OUT_DIR ROUNDS LABEL=BINARY [LABEL=BINARY ...]
# Writes OUT_DIR/LABEL-N.txt (`tilekit bench --filter call`), OUT_DIR/torch-N.json
# (scripts/device/baseline.py) and prints one line per call and round.
set -euo pipefail
out=${1:?OUT_DIR}
rounds=${2:?ROUNDS}
shift 2
mkdir -p "$out"
if ! ldconfig -p | grep -q libvulkan; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
export XDG_RUNTIME_DIR=/tmp WGPU_BACKEND=vulkan
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
python3 -c 'import torch; print("torch", torch.__version__)' | tee -a "$out/gpu.txt"
date -u +%FT%TZ | tee -a "$out/gpu.txt"
for r in $(seq 1 "$rounds"); do
  # The builds take turns in both orders (odd rounds as given, even rounds reversed), so that
  # neither always runs first after PyTorch.
  builds=("$@")
  if [ $((r % 2)) = 0 ]; then
    builds=()
    for ((i = $#; i >= 1; i--)); do builds+=("${!i}"); done
  fi
  for build in "${builds[@]}"; do
    label=${build%%=*}
    bin=${build#*=}
    timeout 60 "$bin" bench --filter call >"$out/$label-$r.txt" 2>&1 || echo "$label round $r: exit $?"
  done
  timeout 90 python3 scripts/device/baseline.py >"$out/torch-$r.json" 2>"$out/torch-$r.err" ||
    echo "torch round $r: exit $?"
done
date -u +%FT%TZ | tee -a "$out/gpu.txt"
for r in $(seq 1 "$rounds"); do
  for build in "$@"; do
    label=${build%%=*}
    grep -E '^(matmul|reduce)-call/' "$out/$label-$r.txt" | sed "s/^/$r $label /" | cut -c1-90 || true
  done
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(sys.argv[2], "torch", x["work"], "%.1f us" % (x["median_s"]*1e6)) for x in d["rows"] if x["work"].startswith("call")]' "$out/torch-$r.json" "$r" || true
done
