#!/usr/bin/env bash
# Every candidate of the small-M kernel (gemv, gemv-f16) on the decode shapes, in fresh
# processes, beside the planner's choice: what the planner's candidates are worth on this GPU
# (BENCHMARKS.md, "the small-M kernel"). Needs the release binary in .devbin/ and the Vulkan
# loader .debs in .gl/ (scripts/device/h100.sh says how):
#   bash scripts/device/gemv_tiles.sh > gemv.txt
# SHAPES="M K N;M K N;..." replaces the decode shapes; DTYPES="f16" one precision; TORCH=1 adds
# PyTorch's time for each shape (scripts/device/torch_matmul.py); TILES="planner WX=.." some of
# the candidates; TILEKIT_BIN another binary (an older build, to compare).
set -euo pipefail
if ! ldconfig -p | grep -q libvulkan; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
export XDG_RUNTIME_DIR=/tmp WGPU_BACKEND=vulkan
bin=${TILEKIT_BIN:-$PWD/.devbin/tilekit}
empty=$(mktemp -d)
tiles=${TILES:-planner $("$bin" plan matmul 4 4096 4096 --json |
  python3 -c 'import json, sys; print(" ".join(c["label"] for c in json.load(sys.stdin)["plan"]["candidates"]))')}
IFS=';' read -r -a shapes <<<"${SHAPES:-1 11008 4096;4 14336 4096;8 4096 4096;2 4096 11008}"
for dtype in ${DTYPES:-f32 f16}; do
  variant=gemv
  [ "$dtype" = f16 ] && variant=gemv-f16
  for shape in "${shapes[@]}"; do
    for tile in $tiles; do
      args=(--variant "$variant")
      [ "$tile" = planner ] || args+=(--tile "$tile")
      # shellcheck disable=SC2086
      TILEKIT_CACHE_DIR=$empty TILEKIT_MEASURED=0 "$bin" run matmul $shape --dtype "$dtype" "${args[@]}" --json |
        python3 -c 'import json, sys; r = json.load(sys.stdin)["run"]; t = r["timing"]["seconds"]; m, k, n = map(int, sys.argv[2].split()); print(sys.argv[1], sys.argv[2], sys.argv[3], "%.2f us" % (t * 1e6), "%.0f GB/s of B" % (k * n * (2 if sys.argv[1] == "f16" else 4) / t / 1e9), r["tile"])' "$dtype" "$shape" "$tile"
    done
  done
done
if [ -n "${TORCH:-}" ]; then python3 "$(dirname "$0")/torch_matmul.py" "${shapes[@]}"; fi
