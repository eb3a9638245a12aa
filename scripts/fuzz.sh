#!/usr/bin/env bash
# Fuzz the .npy reader and the command line's argument handling for a bounded time each (not in
# CI: it needs the nightly toolchain and cargo-fuzz, `cargo install cargo-fuzz`).
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
mkdir -p fuzz/corpus/npy
# Seeds: a few valid files of every dtype tilekit reads.
python3 - <<'PY' || true
import numpy as np
for d in ["<f4", ">f4", "<f8", "<f2", "<i4", "<u4", "|u1"]:
    np.save(f"fuzz/corpus/npy/seed-{d.replace('<','le').replace('>','be').replace('|','')}.npy", np.arange(6, dtype=d).reshape(2, 3))
PY
for target in npy cli_args; do
  echo "== $target, ${secs}s ==" >&2
  cargo +nightly fuzz run "$target" -- -max_total_time="$secs" -rss_limit_mb=2048
done
