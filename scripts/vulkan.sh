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
apt_install() {
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "${TILEKIT_APT_UPDATED:-}" ]; then
    $sudo apt-get update -q >/dev/null
    TILEKIT_APT_UPDATED=1
  fi
  $sudo apt-get install -y -q "$@" >/dev/null
}
if ! have_vulkan; then
  echo "no Vulkan driver found: installing lavapipe (mesa-vulkan-drivers)" >&2
  apt_install mesa-vulkan-drivers
fi
# OpenGL through EGL (wgpu's GL back end), for the second backend the tests run on: llvmpipe
# from Mesa's EGL and DRI packages.
have_egl() {
  ldconfig -p 2>/dev/null | grep 'libEGL\.so\.1' >/dev/null &&
    ldconfig -p 2>/dev/null | grep 'libEGL_mesa\.so\.0' >/dev/null
}
ensure_gl() {
  if ! have_egl; then
    echo "no EGL found: installing Mesa's EGL and llvmpipe (libegl1 libegl-mesa0 libgl1-mesa-dri)" >&2
    apt_install libegl1 libegl-mesa0 libgl1-mesa-dri
  fi
}
# Mesa's software drivers warn on every start without it.
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
if ! command -v cargo >/dev/null; then
  echo "cargo not found: install Rust (https://rustup.rs) first" >&2
  exit 1
fi
