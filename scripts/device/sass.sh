#!/usr/bin/env bash
# What NVIDIA's driver compiled a kernel into, instruction by instruction (SASS), for reading why
# a kernel is slow. VK_KHR_pipeline_executable_properties gives only counts (scripts/device/stats);
# the instructions are in the driver's shader disk cache, which this script points at an empty
# folder while one tilekit command runs, then packs:
#   bash scripts/device/sass.sh OUT_DIR bench --filter matmul-shape/4096x4096x4096 --repeats 3
# On any machine afterwards (x86-64), with two tools that are not part of tilekit: `nvcachedec`
# from the nvcachetools project unpacks the cache's .toc/.bin pair into NVuc objects, and
# `nvdisasm` (PyPI's nvidia-cuda-nvdisasm wheel, CUDA 13) disassembles them:
#   nvcachedec OUT_DIR/cache/GLCache/*/*/*.toc objs
#   nvdisasm objs/object00001.nvuc          # or, where it refuses a section:
#   nvucdump objs/object00001.nvuc sec && nvdisasm --binary SM90 sec/section1_0001.bin
# Each pipeline the command created is one NVuc object; the kernel is the one whose register
# count (`nvdisasm` prints it first) matches scripts/device/stats.
set -euo pipefail
out=$1
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
if ! ldconfig -p | grep -q libvulkan; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
export XDG_RUNTIME_DIR=/tmp WGPU_BACKEND=vulkan
rm -rf "$out/cache"
mkdir -p "$out/cache"
__GL_SHADER_DISK_CACHE_PATH="$out/cache" __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1 \
  __GL_SHADER_DISK_CACHE=1 .devbin/tilekit "$@" > "$out/command.txt"
tar -C "$out" -czf "$out/cache.tgz" cache
rm -rf "$out/cache"
ls -la "$out"
