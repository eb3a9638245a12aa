#!/usr/bin/env bash
# Call r2: the build of 7c61961. Waited calls, tilekit and PyTorch taking turns (three rounds);
# then what a user gets (compare.sh "shipped torch summary").
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp WGPU_BACKEND=vulkan
o=$OUT/r2; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $o/gpu.txt
python3 -c 'import torch; print("torch", torch.__version__)' | tee -a $o/gpu.txt
date -u +%FT%TZ | tee -a $o/gpu.txt
for r in 1 2 3; do
  timeout 40 .devbin/tilekit bench --filter call > $o/call-$r.txt 2>&1; echo "call $r rc=$?"
  timeout 60 python3 scripts/device/baseline.py > $o/baseline-$r.json 2>&1; echo "baseline $r rc=$?"
done
date -u +%FT%TZ | tee -a $o/gpu.txt
s=$(date +%s); timeout 420 bash scripts/device/compare.sh $o/compare "shipped torch summary" > $o/compare.log 2>&1; echo "compare rc=$? $(( $(date +%s) - s )) s"
date -u +%FT%TZ | tee -a $o/gpu.txt
grep -h -E 'call/' $o/call-*.txt
for r in 1 2 3; do python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(sys.argv[2], x["work"], "%.1f us" % (x["median_s"]*1e6)) for x in d["rows"] if x["work"].startswith("call")]' $o/baseline-$r.json $r; done
tail -40 $o/compare/summary.md
cd $OUT && tar czf r2.tgz r2 && rm -rf r2
