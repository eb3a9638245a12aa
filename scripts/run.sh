#!/usr/bin/env bash
# The main job (README): the teaching tour on the best adapter found. Extra arguments go to
# `tilekit tour` (e.g. --quick, --json).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/vulkan.sh
cargo run --release --quiet -p tilekit-cli -- tour "$@"
