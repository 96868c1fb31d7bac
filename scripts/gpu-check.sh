#!/usr/bin/env bash
# The CUDA backend's prepared GPU check, for a machine with one NVIDIA GPU (about 8 minutes at most):
# builds with the CUDA backend, runs the GPU tests (which must not be skipped there), then
# benchmarks training images/s on the GPU and on the fastest CPU backend and prints the ratio
# for Caffe LeNet and the TF CIFAR-10 model (zoo/tf-cifar10). Synthetic data (ablate bench).
# Usage: scripts/gpu-check.sh [build-dir]   (from anywhere; CUDA_ARCH=90 by default)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$src/build-gpu}"
jobs="$(nproc)"
arch="${CUDA_ARCH:-90}"

echo "== GPU"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || { echo "no nvidia-smi: no GPU here"; exit 1; }

echo "== build (CUDA arch $arch, $jobs jobs)"
start=$(date +%s)
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DABLATE_MICROBENCH=OFF -DABLATE_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES="$arch" > "$build.cmake.log" 2>&1 || { tail -20 "$build.cmake.log"; exit 1; }
cmake --build "$build" --target ablate test_kernels -j"$jobs" > "$build.build.log" 2>&1 || { tail -40 "$build.build.log"; exit 1; }
echo "built in $(( $(date +%s) - start )) s"

echo "== GPU tests"
out="$("$build/test_kernels" --gtest_filter='*Cuda*:*cuda*' 2>&1)" || { echo "$out" | tail -60; exit 1; }
echo "$out" | grep -E '^\[ *(PASSED|SKIPPED|FAILED) *\]|tests ran' | head -40
if echo "$out" | grep -q "no CUDA device"; then echo "GPU tests were skipped on a GPU machine"; exit 1; fi

threads="$jobs"
bench() {  # bench MODEL: prints images/s of cuda and of the fastest CPU backend, and their ratio
  local model="$1" log
  log="$("$build/ablate" bench --model "$model" --backends cuda,onednn,openblas,eigen --threads "1,$threads" \
         --iterations 40 --warmup 5 --repeats 3 2>&1)" || { echo "$log" | tail -20; return 1; }
  echo "$log"
  echo "$log" | awk -v model="$model" '
    $1 == "cuda" { for (i = 2; i <= NF; ++i) if ($i + 0 > gpu) gpu = $i + 0 }
    $1 == "onednn" || $1 == "openblas" || $1 == "eigen" {
      for (i = 2; i <= NF; ++i) if ($i + 0 > cpu) { cpu = $i + 0; best = $1 } }
    END { if (gpu > 0 && cpu > 0)
            printf "%s: GPU %.0f images/s, fastest CPU (%s) %.0f images/s, ratio %.1fx\n", model, gpu, best, cpu, gpu / cpu
          else print model ": could not read both figures" }'
}

echo "== Caffe LeNet"
bench lenet
echo "== TF CIFAR-10"
bench tf-cifar10
