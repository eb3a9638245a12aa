#!/bin/bash
# Before/after one change, one session: the old binary in .devbin/tilekit_old, the new in .devbin/tilekit,
# the release test binaries in .devbin/ (matmul_f16, matmul_test), the Vulkan loader in .gl/.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp WGPU_BACKEND=vulkan
d=/tmp/pr; mkdir -p $d
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $d/gpu.txt; date -u +%Y-%m-%dT%H:%MZ >> $d/gpu.txt
.devbin/matmul_f16 --test-threads 1 2>&1 | grep 'test result' > $d/tests.txt
.devbin/matmul_test --test-threads 1 2>&1 | grep 'test result' >> $d/tests.txt
for b in tilekit_old tilekit; do
  .devbin/$b bench --filter matmul-shape --json $d/f32_$b.json > $d/f32_$b.txt 2>&1
  .devbin/$b bench --filter matmul-f16/shape --json $d/f16_$b.json > $d/f16_$b.txt 2>&1
  for s in "1 4096 4096" "1 8192 8192" "1 777 1000" "2 4096 4096" "4 8192 8192" "1 65536 1024"; do echo "$b $s: $(.devbin/$b run matmul $s 2>&1 | grep -E '^matmul' | sed 's/matmul [^ ]* //')"; done >> $d/gemv.txt
done
python3 scripts/device/baseline.py $d/f32_tilekit.json $d/f16_tilekit.json > $d/torch.json 2>$d/torch.err
for s in "1 8192 8192" "4 8192 8192" "128 4096 4096" "1000 1000 1000"; do echo "verify $s: $(.devbin/tilekit run matmul $s --verify 2>&1 | grep -E 'verified|rror')"; done >> $d/gemv.txt
tar czf $OUT/pr.tgz -C /tmp pr
cat $d/tests.txt $d/gemv.txt
