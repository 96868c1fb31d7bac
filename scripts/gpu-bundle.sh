#!/usr/bin/env bash
# Packs a CUDA build of ablate for a GPU machine that lacks Debian's libraries (a lent machine
# with its own image: CUDA, cuBLAS and cuDNN installed, but no oneDNN, OpenBLAS, ONNX, Open MPI).
# The bundle holds the programs scripts/gpu-check.sh runs (ablate, test_kernels, test_graph),
# stripped, and in lib/ every shared library they load except the C/C++ runtime and CUDA's own
# (libcudart, libcublas, libcublasLt, libcudnn*, libcuda), which the GPU machine brings.
# Build portable code for it first (no -march=native: the other machine's CPU may differ):
#   cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DABLATE_NATIVE=OFF \
#         -DCMAKE_CXX_FLAGS=-march=x86-64-v3 -DABLATE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DABLATE_MICROBENCH=OFF
#   cmake --build build-gpu --target ablate test_kernels test_graph
# Usage: scripts/gpu-bundle.sh BUILD_DIR OUT_DIR [DATA_DIR]
#   DATA_DIR (optional): a data set's files copied to OUT_DIR/data (e.g. /usr/share/datasets/fashion-mnist)
# Then on the GPU machine: scripts/gpu-check.sh OUT_DIR   (it sees the bundle and skips the build)
set -euo pipefail
build="${1:?usage: gpu-bundle.sh BUILD_DIR OUT_DIR [DATA_DIR]}"
out="${2:?usage: gpu-bundle.sh BUILD_DIR OUT_DIR [DATA_DIR]}"
data="${3:-}"
programs=(ablate test_kernels test_graph)

for p in "${programs[@]}"; do
  [[ -x "$build/$p" ]] || { echo "gpu-bundle: $build/$p is missing (build it first: see this script's header)"; exit 1; }
done
grep -q 'ABLATE_HAVE_CUDA=1' "$build/CMakeFiles/ablate_kernels.dir/flags.make" 2>/dev/null ||
  { echo "gpu-bundle: $build was configured without the CUDA backend (-DABLATE_CUDA=ON)"; exit 1; }

rm -rf "$out"
mkdir -p "$out/lib"
for p in "${programs[@]}"; do strip -o "$out/$p" "$build/$p"; done

# The C/C++ runtime (the GPU machine's own, newer glibc and libstdc++ run these programs) and
# CUDA's libraries (too large to carry, and they must match the machine's driver) stay behind.
keep_behind='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas|libcublasLt|libcudnn[a-z_]*)\.so'
for p in "${programs[@]}"; do
  ldd "$build/$p" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }'
done | sort -u | while read -r name path; do
  [[ "$name" =~ $keep_behind ]] && continue
  cp -L "$path" "$out/lib/$name"
done

if [[ -n "$data" ]]; then
  mkdir -p "$out/data"
  cp -L "$data"/* "$out/data/"
fi
{
  echo "source: $(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")"
  echo "built from: $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "built on: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "glibc: $(ldd --version | head -1)"
} > "$out/BUNDLE"
du -sh "$out" "$out/lib" | sed 's/^/gpu-bundle: /'
