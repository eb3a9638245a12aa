#!/usr/bin/env bash
# The test command (README, CI): format, lints, then every test on the best adapter found
# (lavapipe on a machine without a GPU). Tests that need an adapter fail when none is found.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/vulkan.sh
cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo test
