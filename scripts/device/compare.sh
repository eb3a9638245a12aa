#!/usr/bin/env bash
# The whole matmul comparison on one GPU, in one command (BENCHMARKS.md gets one table per run):
# tilekit as a user gets it (the measured defaults of the GPU's profile where tilekit ships some,
# else the planner), the planner alone (TILEKIT_MEASURED=0), tilekit after `tilekit tune` on
# this GPU, and PyTorch (cuBLAS with TF32 off; f16 with f32 accumulation) in the same session,
# on the bench's f32 and f16 shape sets and on shapes neither the bench nor the tuner uses
# (`--filter matmul-unseen`). Then a few shapes in fresh processes, to show how much a figure
# moves from one process to the next. Needs the release binary in .devbin/ and the Vulkan
# loader .debs in .gl/ (scripts/device/h100.sh says how):
#   bash scripts/device/compare.sh OUT_DIR [PHASES]
# PHASES (default "tuned planner shipped torch spread summary") picks parts, so that a run can be
# split between calls of at most ten minutes; `summary` reads what the others left in OUT_DIR.
# `lottery` (not in the default) times the unseen f16 shapes in LOTTERY fresh processes, every
# other one with the driver's shader cache cleared (LOTTERY_FILTER picks other bench cases).
# TUNE_ONLY=1 with `tuned` runs the tune and not the shapes.
set -euo pipefail
out=${1:-out}
phases=${2:-tuned planner shipped torch spread summary}
mkdir -p "$out"
if ! ldconfig -p | grep -q libvulkan; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
export XDG_RUNTIME_DIR=/tmp WGPU_BACKEND=vulkan
bin=$PWD/.devbin/tilekit
here=$(dirname "$0")
has() { case " $phases " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
date -u +%Y-%m-%dT%H:%MZ | tee -a "$out/gpu.txt"
shapes() { # label, extra env...
  local label=$1
  shift
  env "$@" "$bin" bench --filter matmul-shape --json "$out/$label.json" >"$out/$label.txt"
  env "$@" "$bin" bench --filter matmul-f16/shape --json "$out/$label-f16.json" >"$out/$label-f16.txt"
  env "$@" "$bin" bench --filter matmul-unseen --json "$out/$label-unseen.json" >"$out/$label-unseen.txt"
}
empty=$(mktemp -d)
if has tuned; then
  # `tilekit tune` on this GPU into a fresh cache, timed; then the shapes with that cache.
  # A cache that an earlier call of this script left in OUT_DIR is used as it is (a run split
  # between calls: the tune in one, the shapes in the next).
  cache=$out/tune-cache
  if [ ! -e "$cache/tune.json" ]; then
    mkdir -p "$cache"
    start=$(date +%s)
    TILEKIT_CACHE_DIR=$cache "$bin" tune --json >"$out/tune-report.json"
    echo "tilekit tune: $(($(date +%s) - start)) s" | tee "$out/tune-time.txt"
    start=$(date +%s)
    TILEKIT_CACHE_DIR=$(mktemp -d) "$bin" tune --quick --json >"$out/tune-quick-report.json"
    echo "tilekit tune --quick: $(($(date +%s) - start)) s" | tee -a "$out/tune-time.txt"
    cp "$cache/tune.json" "$out/tune.json"
  fi
  if [ -z "${TUNE_ONLY:-}" ]; then shapes tuned TILEKIT_CACHE_DIR="$cache"; fi
fi
if has planner; then shapes planner TILEKIT_CACHE_DIR="$empty" TILEKIT_MEASURED=0; fi
if has shipped; then shapes shipped TILEKIT_CACHE_DIR="$empty"; fi
if has torch; then
  inputs=()
  # The shapes of one configuration's runs (each shape once).
  for label in shipped planner tuned; do
    if [ -e "$out/$label.json" ]; then
      inputs=("$out/$label.json" "$out/$label-f16.json" "$out/$label-unseen.json")
      break
    fi
  done
  # Twice, in two processes: the summary takes PyTorch's faster run of each shape.
  python3 "$here/baseline.py" "${inputs[@]}" >"$out/torch.json"
  python3 "$here/baseline.py" "${inputs[@]}" >"$out/torch-2.json"
fi
if has spread; then
  # The same call in fresh processes: how much one figure moves between processes.
  for shape in "64 8192 8192" "4096 4096 4096" "512 512 512"; do
    for i in 1 2 3 4 5; do
      # shellcheck disable=SC2086
      TILEKIT_CACHE_DIR=$empty "$bin" run matmul $shape --json |
        python3 -c 'import json, sys; r = json.load(sys.stdin)["run"]; print(sys.argv[1], sys.argv[2], "%.4f ms" % (r["timing"]["seconds"] * 1e3), r["variant"], r["tile"])' "$shape" "$i"
    done
  done | tee "$out/spread.txt"
  for i in 1 2 3; do
    "$bin" bench --filter reduce-1gib --json "$out/sum-$i.json" | grep -E 'reduce-1gib' || true
  done | tee "$out/sum-spread.txt"
fi
if has lottery; then
  # The process lottery: the f16 shapes no tune uses in LOTTERY fresh processes (default 10),
  # every other one after the driver's shader disk cache is cleared, as on a machine's first run.
  # Prints, per shape, the medians of the cold and the warm processes.
  for i in $(seq 1 "${LOTTERY:-10}"); do
    cold=$((i % 2))
    if [ "$cold" = 1 ]; then rm -rf "$HOME/.cache/nvidia"; fi
    TILEKIT_CACHE_DIR=$empty "$bin" bench --filter "${LOTTERY_FILTER:-matmul-unseen/f16}" --json "$out/lottery-$i.json" >/dev/null
    echo "$i $cold" >>"$out/lottery.txt"
  done
  python3 - "$out" <<'PY' | tee "$out/lottery.md"
import json, os, re, statistics, sys
out = sys.argv[1]
runs = [l.split() for l in open(os.path.join(out, "lottery.txt"))]
by = {}
for i, cold in runs:
    for e in json.load(open(os.path.join(out, f"lottery-{i}.json")))["entries"]:
        m = re.search(r"(\d+x\d+x\d+)$", e["name"])
        if m and "f16" in e["name"]:
            by.setdefault(m.group(1), {"1": [], "0": []})[cold].append(e["median_s"] * 1e6)
print("| f16 shape | cache cleared, µs | cache warm, µs |")
print("|---|---|---|")
for shape, t in sorted(by.items()):
    f = lambda v: ", ".join(f"{x:.1f}" for x in sorted(v))
    print(f"| {shape} | {f(t['1'])} | {f(t['0'])} |")
PY
fi
if has summary; then python3 "$here/compare_summary.py" "$out" | tee "$out/summary.md"; fi
