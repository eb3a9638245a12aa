#!/usr/bin/env bash
# The small-M draw (BENCHMARKS.md, "Process to process"): fresh processes taking turns, each
# timing f16 1×11008×4096 and 1×1600×50257 after a different prelude, with the SM clock sampled.
#   bash scripts/device/smallm.sh OUT ROUNDS "bench churn alloc idle plain"
# bench: `tilekit bench --filter matmul-unseen/f16/1x` (.devbin/tilekit; benchold: the build in
# .devbin/tilekit-today; unseen: `--filter matmul-unseen`, all 22 cases); the others run
# scripts/device/placement (.devbin/placement) with FLOW=bench after the ceilings and
# PRELUDE=churn (the f32 unseen operands made and dropped, as the filtered bench does), alloc
# (the same buffers, no data), idle:6 (the GPU idle as long) or nothing (plain); traj times the
# call for SECONDS (5) after 6 s idle (FLOW=trajectory), the median of each BUCKET (0.25) s;
# trajread reads C back after the first call, as the bench does; logged is idle with every run
# of the bench's flow logged (LOG=1).
set -uo pipefail
out=$1 rounds=$2 kinds=$3
mkdir -p "$out"
q=timestamp,clocks.sm,clocks.mem,power.draw,pstate
for extra in clocks_event_reasons.active clocks_throttle_reasons.active utilization.gpu utilization.memory; do
  nvidia-smi --query-gpu=$q,$extra --format=csv,noheader -c 1 >/dev/null 2>&1 && q=$q,$extra
done
echo "sampling $q"
export XDG_RUNTIME_DIR=/tmp WGPU_BACKEND=vulkan
for r in $(seq 1 "$rounds"); do
  for kind in $kinds; do
    tag="$kind-$r"
    nvidia-smi --query-gpu=$q --format=csv,noheader -lms 100 >"$out/clk-$tag.txt" 2>/dev/null &
    smi=$!
    start=$(date +%s)
    case $kind in
      bench) timeout 120 .devbin/tilekit bench --filter matmul-unseen/f16/1x --json "$out/$tag.json" >"$out/$tag.txt" 2>&1 ;;
      benchold) timeout 120 .devbin/tilekit-today bench --filter matmul-unseen/f16/1x --json "$out/$tag.json" >"$out/$tag.txt" 2>&1 ;;
      unseen) timeout 300 .devbin/tilekit bench --filter matmul-unseen --json "$out/$tag.json" >"$out/$tag.txt" 2>&1 ;;
      churn|alloc) FLOW=bench PRELUDE=$kind timeout 120 .devbin/placement >"$out/$tag.txt" 2>&1 ;;
      idle) FLOW=bench PRELUDE=idle:6 timeout 120 .devbin/placement >"$out/$tag.txt" 2>&1 ;;
      logged) LOG=1 FLOW=bench PRELUDE=idle:6 timeout 120 .devbin/placement >"$out/$tag.txt" 2>&1 ;;
      plain) FLOW=bench timeout 120 .devbin/placement >"$out/$tag.txt" 2>&1 ;;
      traj) FLOW=trajectory PRELUDE=idle:6 timeout 120 .devbin/placement >"$out/$tag.txt" 2>&1 ;;
      trajread) READ=1 FLOW=trajectory PRELUDE=idle:6 timeout 120 .devbin/placement >"$out/$tag.txt" 2>&1 ;;
    esac
    rc=$?
    kill $smi 2>/dev/null
    printf '%s rc=%s %ss ' "$tag" "$rc" "$(( $(date +%s) - start ))"
    if [ -f "$out/$tag.json" ]; then
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join(f\"{e['name'].split('/')[-1]}: {e['median_s']*1e6:.1f} µs\" for e in d['entries']))" "$out/$tag.json" 2>/dev/null || tail -2 "$out/$tag.txt"
    else
      grep -E "µs|prelude" "$out/$tag.txt" | grep -v -e ceiling -e then | tr '\n' ' '; echo
    fi
  done
done
# The device tool brings back a few files only: everything in one archive.
tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && rm -r "$out"
