#!/usr/bin/env bash
# Fresh processes taking turns between two builds, each running `tilekit bench --filter F` for
# each filter: whether a kernel's speed moves from process to process (BENCHMARKS.md, "Process
# to process"). Prints each case's medians per build; everything else goes into OUT.tgz.
#   bash scripts/device/spread.sh OUT ROUNDS "reduce/ transpose/" new=.devbin/tilekit old=.devbin/tilekit-today
set -uo pipefail
out=$1 rounds=$2 filters=$3
shift 3
mkdir -p "$out"
export XDG_RUNTIME_DIR=/tmp WGPU_BACKEND=vulkan
for r in $(seq 1 "$rounds"); do
  for build in "$@"; do
    label=${build%%=*} bin=${build#*=}
    for f in $filters; do
      tag="$label-${f//\//}-$r"
      timeout 120 "$bin" bench --filter "$f" --json "$out/$tag.json" >"$out/$tag.txt" 2>&1 || echo "$tag failed"
    done
  done
done
python3 - "$out" <<'PY'
import glob, json, os, re, sys
by = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    label = os.path.basename(f).split("-")[0]
    for e in json.load(open(f))["entries"]:
        if not e["name"].startswith("ceiling"):
            by.setdefault(e["name"], {}).setdefault(label, []).append(e["median_s"] * 1e3)
for name, labels in sorted(by.items()):
    cells = []
    for label, v in sorted(labels.items()):
        cells.append(f"{label} {min(v):.3f}-{max(v):.3f} ms ({(max(v) / min(v) - 1) * 100:.0f}%)")
    print(f"{name}: " + "; ".join(cells))
PY
tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && rm -r "$out"
