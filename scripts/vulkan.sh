# Sourced by test.sh and run.sh: make sure a Vulkan driver is there. With no GPU driver, install
# lavapipe (Mesa's software Vulkan, which pulls in the Vulkan loader) from Debian/Ubuntu.
# ldconfig lives in /sbin, which a non-root PATH may lack.
export PATH="$PATH:/sbin:/usr/sbin"
have_vulkan() {
  ldconfig -p 2>/dev/null | grep 'libvulkan\.so\.1' >/dev/null || return 1
  local f
  for f in /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json /usr/local/share/vulkan/icd.d/*.json; do
    [ -e "$f" ] && return 0
  done
  return 1
}
if ! have_vulkan; then
  echo "no Vulkan driver found: installing lavapipe (mesa-vulkan-drivers)" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q >/dev/null
  $sudo apt-get install -y -q mesa-vulkan-drivers >/dev/null
fi
# Mesa's software drivers warn on every start without it.
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
if ! command -v cargo >/dev/null; then
  echo "cargo not found: install Rust (https://rustup.rs) first" >&2
  exit 1
fi
