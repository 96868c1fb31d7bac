#!/usr/bin/env bash
# Prepares the CUDA backend's check for a GPU machine that has CUDA but none of Debian's packages
# (scripts/gpu-check.sh, docs/testing.md "On a GPU"), in one step here: a portable CUDA build in
# build-gpu (any x86-64 with AVX2, sm_90 by default, no MPI), its bundle with Fashion-MNIST
# (scripts/gpu-bundle.sh), packed as one file, .gpu/bundle.tar.xz (kept out of git through
# .git/info/exclude), and the command to run on the GPU machine printed.
# Usage: scripts/gpu-prepare.sh [DATA_DIR]   (default Debian's dataset-fashion-mnist; "none": no data)
# Environment: CUDA_ARCH (90), ABLATE_JOBS (nproc).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
data="${1:-/usr/share/datasets/fashion-mnist}"
[[ "$data" == none ]] && data=""
arch="${CUDA_ARCH:-90}"
jobs="${ABLATE_JOBS:-$(nproc)}"
cd "$root"

cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DABLATE_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v3 \
      -DABLATE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" -DABLATE_MICROBENCH=OFF -DABLATE_MPI=OFF > /dev/null
cmake --build build-gpu --target ablate test_kernels test_graph -j"$jobs"

rm -rf .gpu
mkdir -p .gpu
scripts/gpu-bundle.sh build-gpu .gpu/bundle ${data:+"$data"}
tar -cJf .gpu/bundle.tar.xz -C .gpu bundle
rm -rf .gpu/bundle
exclude="$(git rev-parse --git-path info/exclude)"
mkdir -p "$(dirname "$exclude")"
grep -qx '/.gpu/' "$exclude" 2>/dev/null || echo '/.gpu/' >> "$exclude"

echo "gpu-prepare: $(du -h .gpu/bundle.tar.xz | cut -f1) in .gpu/bundle.tar.xz, built from $(git rev-parse --short HEAD)"
echo "on the GPU machine, in a copy of this source tree with .gpu/ beside it:"
echo "  mkdir -p /tmp/b && tar -xJf .gpu/bundle.tar.xz -C /tmp/b && GPU_CHECK_SCALE=0.01 scripts/gpu-check.sh /tmp/b/bundle"
echo "(GPU_CHECK_DEADLINE=SECONDS to end within a time limit, GPU_CHECK_ARCHIVE=FILE.tar.gz to pack the logs)"
