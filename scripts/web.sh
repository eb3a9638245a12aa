#!/usr/bin/env bash
# The web page: build tilekit for wasm32 with the browser's WebGPU (web/), generate its bindings,
# put the page together in web/dist, and serve it on 127.0.0.1.
#   scripts/web.sh            build, then serve (prints the address; Ctrl-C stops it)
#   scripts/web.sh --build    build only
#   scripts/web.sh --test     build, then open it in headless Chromium and check it (CI)
# PORT sets the port (default 8417 when serving; a free one for --test). The toolchain is
# installed when missing: rustup's wasm32 target where rustup can fetch it, else Debian's
# rustc-web, rust-web-src and lld-22 (std built from source with -Zbuild-std); wasm-bindgen-cli
# at the exact version of the wasm-bindgen crate.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/vulkan.sh
mode=${1:-serve}
target_dir=${CARGO_TARGET_DIR:-$PWD/target}
# The page's tools (wasm-bindgen-cli, playwright-core) outlive a clone: a user cache, not target/.
tools=${TILEKIT_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/tilekit}/web-tools
out=web/dist
triple=wasm32-unknown-unknown

# The wasm-bindgen version the web crate pins (`=X.Y.Z`); the CLI must be the same.
bindgen_version=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)"/\1/p' web/Cargo.toml)

build_args=(build --release --manifest-path web/Cargo.toml --target "$triple")
# TILEKIT_WEB_TOOLCHAIN=debian takes Debian's path even where rustup has the target (CI times
# the slower path that way); =rustup insists on rustup's.
toolchain=${TILEKIT_WEB_TOOLCHAIN:-auto}
if [ "$toolchain" != debian ] && command -v rustup >/dev/null && rustup target add "$triple" >/dev/null 2>&1; then
  echo "wasm32 toolchain: rustup's $triple target" >&2
  cargo_cmd=(cargo)
elif [ "$toolchain" = rustup ]; then
  echo "error: TILEKIT_WEB_TOOLCHAIN=rustup but rustup cannot add the $triple target" >&2
  exit 1
else
  # rustup cannot fetch the target here (no network to its servers): Debian's wasm toolchain,
  # with the standard library built from source.
  if [ ! -x /usr/bin/rustc ] || [ ! -d /usr/lib/rustlib/src/rust/library ] || [ ! -x /usr/lib/llvm-22/bin/wasm-ld ]; then
    echo "no wasm32 toolchain: installing Debian's rustc-web, cargo-web, rust-web-src and lld-22" >&2
    apt_install rustc-web cargo-web rust-web-src lld-22
  fi
  echo "wasm32 toolchain: Debian's $(/usr/bin/rustc --version) with -Zbuild-std" >&2
  export RUSTC_BOOTSTRAP=1 RUSTC=/usr/bin/rustc
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=/usr/lib/llvm-22/bin/wasm-ld
  cargo_cmd=(/usr/bin/cargo)
  build_args+=(-Zbuild-std=std,panic_abort)
fi

if [ "$("$tools/bin/wasm-bindgen" --version 2>/dev/null | cut -d' ' -f2)" != "$bindgen_version" ]; then
  echo "installing wasm-bindgen-cli $bindgen_version into $tools" >&2
  cargo install --quiet wasm-bindgen-cli --version "$bindgen_version" --root "$tools"
fi

echo "== building the page (wasm32, release) ==" >&2
CARGO_TARGET_DIR="$target_dir/web" "${cargo_cmd[@]}" "${build_args[@]}"
wasm="$target_dir/web/$triple/release/tilekit_web.wasm"
rm -rf "$out"
mkdir -p "$out/pkg"
"$tools/bin/wasm-bindgen" --target web --no-typescript --remove-name-section --remove-producers-section --out-dir "$out/pkg" "$wasm"
cp web/static/* "$out/"
# The footer links the repository this page was built from: the clone's remote, as a web
# address; a clone with none gets the name without a link (no address is made up).
repository=$(git remote get-url origin 2>/dev/null | sed -e 's#^git@\([^:]*\):#https://\1/#' -e 's#\.git$##' || true)
case "$repository" in
  https://*) sed -i "s#@REPOSITORY@#$repository#" "$out/index.html" ;;
  *) sed -i 's#<a id="repository" href="@REPOSITORY@">\([^<]*\)</a>#\1#' "$out/index.html" ;;
esac

# The editor: CodeMirror 6 and esbuild at the versions web/editor/package-lock.json pins,
# installed once into the tools folder, bundled with web/editor/editor.mjs into editor.js.
if ! command -v npm >/dev/null 2>&1; then
  echo "no npm found: installing nodejs and npm (the page's editor is bundled with esbuild)" >&2
  apt_install nodejs npm
fi
editor_modules=$tools/editor
if ! cmp -s web/editor/package-lock.json "$editor_modules/package-lock.json" || [ ! -x "$editor_modules/node_modules/.bin/esbuild" ]; then
  echo "installing the editor's modules (CodeMirror, esbuild) into $editor_modules" >&2
  mkdir -p "$editor_modules"
  cp web/editor/package.json web/editor/package-lock.json "$editor_modules/"
  (cd "$editor_modules" && npm ci --silent --no-audit --no-fund >/dev/null)
fi
NODE_PATH="$editor_modules/node_modules" "$editor_modules/node_modules/.bin/esbuild" web/editor/editor.mjs \
  --bundle --format=esm --minify --log-level=warning --outfile="$out/editor.js"

size=$(stat -c %s "$out/pkg/tilekit_web_bg.wasm")
gz=$(gzip -9 -c "$out/pkg/tilekit_web_bg.wasm" | wc -c)
echo "web/dist: tilekit_web_bg.wasm is $((size / 1024)) KiB ($((gz / 1024)) KiB gzipped)" >&2
size=$(stat -c %s "$out/editor.js")
gz=$(gzip -9 -c "$out/editor.js" | wc -c)
echo "web/dist: editor.js is $((size / 1024)) KiB ($((gz / 1024)) KiB gzipped)" >&2

port=${PORT:-8417}
serve() {
  # Python's server knows .wasm as application/wasm, which the browser needs to compile it.
  python3 -m http.server --bind 127.0.0.1 "$port" --directory "$out" "$@"
}
case "$mode" in
  --build) ;;
  --test)
    . scripts/python.sh >/dev/null
    # A port of its own (0: the system picks a free one, unless PORT is set), and the test starts
    # once the server has said where it listens: on a busy port (a page already served in another
    # terminal) the test would otherwise check that server's page, maybe an older build.
    log=$(mktemp)
    port=${PORT:-0}
    python3 -u -m http.server --bind 127.0.0.1 "$port" --directory "$out" >"$log" 2>&1 &
    server=$!
    trap 'kill $server 2>/dev/null || true; rm -f "$log"' EXIT
    for _ in $(seq 100); do
      port=$(sed -n 's/^Serving HTTP on .* port \([0-9]*\).*/\1/p' "$log")
      [ -n "$port" ] && break
      kill -0 "$server" 2>/dev/null || break
      sleep 0.1
    done
    if [ -z "$port" ]; then
      echo "the page's server did not start:" >&2
      cat "$log" >&2
      exit 1
    fi
    TILEKIT_WEB_TOOLS=$tools bash web/test/run.sh "http://127.0.0.1:$port/"
    ;;
  *)
    echo "serving the page at http://127.0.0.1:$port/ (Ctrl-C stops; a browser with WebGPU: Chrome or Edge 113+, Safari 26, Firefox 141+ on Windows)" >&2
    serve
    ;;
esac
