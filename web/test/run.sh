#!/usr/bin/env bash
# The page in headless Chromium with WebGPU on SwiftShader, driven by playwright-core
# (web/test/check.mjs): every lesson runs at quick sizes and verifies, an exercise's starter
# fails with its hint and its solution passes, a kernel that never ends is reported and the next
# check passes, no console error, a screenshot that is not blank. Usage: run.sh URL
set -euo pipefail
cd "$(dirname "$0")/../.."
url=$1
. scripts/vulkan.sh
if ! command -v chromium >/dev/null 2>&1; then
  echo "no Chromium found: installing chromium (the web page's test)" >&2
  apt_install chromium
fi
if ! command -v node >/dev/null 2>&1; then
  echo "no node found: installing nodejs and npm" >&2
  apt_install nodejs npm
fi
modules="${TILEKIT_WEB_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/tilekit/web-tools}/node"
if [ ! -d "$modules/node_modules/playwright-core" ]; then
  echo "installing playwright-core into $modules" >&2
  mkdir -p "$modules"
  (cd "$modules" && npm install --silent --no-audit --no-fund playwright-core@1 >/dev/null)
fi
shots="${CARGO_TARGET_DIR:-$PWD/target}/web-shots"
mkdir -p "$shots"
NODE_PATH="$modules/node_modules" node web/test/check.mjs "$url" "$(command -v chromium)" "$shots"
