#!/usr/bin/env bash
# Each variant's planned run of each shape, in fresh processes with no tuning cache and no
# measured defaults (the planner's own tile for that variant): where one kernel overtakes another
# as M grows (BENCHMARKS.md, "The small-M kernel"). Needs .devbin/ and .gl/ as gemv_tiles.sh:
#   SHAPES="2 4096 4096;8 14336 4096" VARIANTS="f16:coop f16:gemv-f16 f32:pipelined f32:gemv" \
#     bash scripts/device/variants.sh > variants.txt
set -euo pipefail
if ! ldconfig -p | grep -q libvulkan; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
export XDG_RUNTIME_DIR=/tmp WGPU_BACKEND=vulkan
bin=$PWD/.devbin/tilekit
empty=$(mktemp -d)
IFS=';' read -r -a shapes <<<"${SHAPES:?SHAPES=\"M K N;...\"}"
for shape in "${shapes[@]}"; do
  for dv in ${VARIANTS:?VARIANTS=\"f16:coop ...\"}; do
    dtype=${dv%%:*} variant=${dv#*:}
    # shellcheck disable=SC2086
    TILEKIT_CACHE_DIR=$empty TILEKIT_MEASURED=0 "$bin" run matmul $shape --dtype "$dtype" --variant "$variant" --json |
      python3 -c 'import json, sys; r = json.load(sys.stdin)["run"]; t = r["timing"]["seconds"]; print(sys.argv[1], sys.argv[2], sys.argv[3], "%.2f us" % (t * 1e6), r["tile"])' "$dtype" "$shape" "$variant" ||
      echo "$dtype $shape $variant failed"
  done
done
