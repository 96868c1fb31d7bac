#!/usr/bin/env bash
# The CUDA backend's prepared GPU check, for a machine with one NVIDIA GPU: one call that does all
# of it, each stage under its own time limit, a failing stage recorded and the next one run.
#   1. the machine: GPU, driver, CPU model, cores, glibc, OPENBLAS_CORETYPE
#   2. the build: configures and builds with the CUDA backend, or takes a bundle made by
#      scripts/gpu-bundle.sh (programs + the non-CUDA libraries, for a machine without Debian's)
#   3. the GPU tests (which must not be skipped there): test_kernels' CUDA conformance, backend
#      and every-backend tests (contracts, convolution epilogues, GELU, the profiler), and
#      test_graph's strategy equivalence rows and gradient checks on cuda
#   4. training images/s, side by side in interleaved rounds (ablate bench): cuda, the CPU
#      backends at every core, and PyTorch on the same GPU when its python has CUDA
#      (--with-pytorch --peer-device cuda), for LeNet, the TF CIFAR-10 model and ResNet-20
#   5. the presets on cuda against the CPU (the study's CPU-versus-GPU family): ablate compare
#      on Fashion-MNIST (if its files are there) and on synthetic CIFAR-10 (Caffe, Torch,
#      Theano), once with --backend cuda and once on each preset's CPU backend, at one length
#      factor (GPU_CHECK_SCALE)
# Stages 4 and 5 alternate, most telling first, so that a caller's time limit cuts the least.
# Usage: scripts/gpu-check.sh [BUILD_OR_BUNDLE_DIR]   (default: build-gpu beside the sources)
# Environment: CUDA_ARCH (90), GPU_CHECK_LOGS (folder for the logs and records; default
#   DIR/gpu-check), GPU_CHECK_SCALE (the presets' length factor; default 0.02),
#   GPU_CHECK_STAGES (which of tests,bench,presets to run; default all three),
#   GPU_CHECK_DATA (Fashion-MNIST's folder; default DIR/data, else Debian's dataset-fashion-mnist),
#   GPU_CHECK_DEADLINE (seconds from the start that the whole check must end within: each stage's
#   limit is cut to what is left, a stage with under 20 s left is recorded as not run, so that a
#   caller's own time limit never cuts the outcome lines; default none),
#   GPU_CHECK_ARCHIVE (a .tar.gz file to pack the logs folder into at the end, for a caller that
#   can take back only a few files).
# Exit status 1 if any stage failed; the last lines list every stage's outcome. With a bundle,
# LOGS/env.sh sets the library path for running its programs by hand afterwards.
set -uo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(realpath -m "${1:-$src/build-gpu}")"
jobs="$(nproc)"
arch="${CUDA_ARCH:-90}"
logs="${GPU_CHECK_LOGS:-$build/gpu-check}"
scale="${GPU_CHECK_SCALE:-0.02}"
stages="${GPU_CHECK_STAGES:-tests,bench,presets}"
began=$(date +%s)
deadline="${GPU_CHECK_DEADLINE:-}"
mkdir -p "$logs"
outcomes=()
record() { outcomes+=("$1: $2"); echo "-- $1: $2"; }
wants() { [[ ",$stages," == *",$1,"* ]]; }
# run_stage NAME SECONDS COMMAND...: the command's output to LOGS/NAME.log and to the screen
run_stage() {
  local name="$1" limit="$2" rc
  shift 2
  if [[ -n "$deadline" ]]; then
    local left=$(( deadline - ($(date +%s) - began) - 10 ))
    if (( left < 20 )); then record "$name" "NOT RUN (GPU_CHECK_DEADLINE: ${left} s left)"; return 1; fi
    (( left < limit )) && limit=$left
  fi
  local start=$(date +%s)
  timeout --kill-after=10 "$limit" "$@" > "$logs/$name.log" 2>&1
  rc=$?
  cat "$logs/$name.log"
  if [[ $rc -eq 0 ]]; then record "$name" "ok ($(( $(date +%s) - start )) s)"
  elif [[ $rc -eq 124 || $rc -eq 137 ]]; then record "$name" "TIMED OUT after $limit s"
  else record "$name" "FAILED (exit $rc, $(( $(date +%s) - start )) s)"; fi
  return $rc
}

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || { echo "no nvidia-smi: no GPU here"; exit 1; }
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $jobs logical cores"
echo "glibc: $(ldd --version | head -1); OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}"

if [[ -f "$build/BUNDLE" ]]; then
  echo "== bundle ($build)"
  cat "$build/BUNDLE"
  # CUDA's libraries from this machine: the toolkit's and the Python wheels' (cuDNN often only there).
  cuda_dirs="$(find /usr/local /usr/lib /opt -name 'libcublas.so.1[0-9]*' -o -name 'libcudnn.so.[0-9]*' \
               -o -name 'libcudart.so.1[0-9]*' 2>/dev/null | xargs -r -n1 dirname | sort -u | paste -sd:)"
  echo "CUDA libraries from: ${cuda_dirs:-none found}"
  export LD_LIBRARY_PATH="$build/lib${cuda_dirs:+:$cuda_dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "export LD_LIBRARY_PATH='$LD_LIBRARY_PATH'" > "$logs/env.sh"  # for commands run after this script
  missing="$(ldd "$build/ablate" "$build/test_kernels" "$build/test_graph" | grep 'not found' | sort -u)"
  [[ -z "$missing" ]] || { echo "the bundle's programs miss libraries here:"; echo "$missing"; exit 1; }
  # The tests read models and golden files from the source tree they were built in.
  built_in="$(sed -n 's/^source: //p' "$build/BUNDLE")"
  if [[ -n "$built_in" && ! -e "$built_in" ]]; then mkdir -p "$(dirname "$built_in")" && ln -s "$src" "$built_in"; fi
else
  echo "== build (CUDA arch $arch, $jobs jobs)"
  start=$(date +%s)
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DABLATE_MICROBENCH=OFF -DABLATE_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES="$arch" > "$logs/cmake.log" 2>&1 || { tail -20 "$logs/cmake.log"; exit 1; }
  cmake --build "$build" --target ablate test_kernels test_graph -j"$jobs" > "$logs/build.log" 2>&1 ||
    { tail -40 "$logs/build.log"; exit 1; }
  echo "built in $(( $(date +%s) - start )) s"
fi
ablate="$build/ablate"

if wants tests; then
  echo "== GPU tests"
  declare -A filters=([test_kernels]='*Cuda*:*cuda*:Contract.*:ConvEpilogue.*:GeluActivation.*:ProfilingObserver.*' [test_graph]='*cuda*:*Cuda*:GradientCheck.*:StrategyGradientCheck.*')
  for t in test_kernels test_graph; do
    run_stage "$t" 100 "$build/$t" --gtest_filter="${filters[$t]}" --gtest_brief=1
    if grep -q "no CUDA device" "$logs/$t.log"; then record "$t" "GPU tests were SKIPPED on a GPU machine"; fi
  done
fi

pytorch=()
if wants bench; then
  if python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    pytorch=(--with-pytorch --peer-python "$(command -v python3)" --peer-device cuda)
  else echo "python3's torch has no CUDA here: no PyTorch row"; fi
fi
# bench MODEL BATCH: cuda, the CPU backends at every core and PyTorch on the GPU, interleaved rounds
bench() {
  wants bench || return 0
  echo "== bench $1 (batch $2)"
  run_stage "bench-$1" 150 "$ablate" bench --model "$1" --batch "$2" --backends cuda,onednn,openblas,eigen \
    --threads "$jobs" --iterations 20 --warmup 3 --repeats 3 "${pytorch[@]}"
}
# presets SET [compare flags...]: the four presets on cuda, then on their CPU backends at every core
presets() {
  wants presets || return 0
  local set="$1" side
  shift
  for side in cuda cpu; do
    echo "== presets on $side, $set, length x $scale"
    local on=(--threads "$jobs")
    [[ "$side" == cuda ]] && on=(--backend cuda)
    rm -f "$logs/compare-$set-$side.jsonl"
    run_stage "compare-$set-$side" 240 "$ablate" compare --dataset "$set" "$@" --scale "$scale" "${on[@]}" \
      --quiet --curve-points 4 --out "$logs/compare-$set-$side.jsonl" --report "$logs/compare-$set-$side"
  done
}
data="${GPU_CHECK_DATA:-}"
[[ -z "$data" && -d "$build/data" ]] && data="$build/data"
[[ -z "$data" && -d /usr/share/datasets/fashion-mnist ]] && data=/usr/share/datasets/fashion-mnist

# The most telling first: a later stage may be cut by the caller's time limit.
bench lenet 64
if [[ -n "$data" ]]; then presets fashion-mnist --data "$data"; else echo "no Fashion-MNIST files: its presets not run"; fi
bench tf-cifar10 128
# TensorFlow's CIFAR-10 recipe (1,000,000 steps) is left out: at one length factor for all it
# would outlast the others a hundredfold; its model's speed is the bench row above.
presets synthetic-cifar10 --frameworks caffe,torch,theano
bench resnet20 128

echo "== outcomes (logs in $logs, $(( $(date +%s) - began )) s in all)"
printf '%s\n' "${outcomes[@]}"
if [[ -n "${GPU_CHECK_ARCHIVE:-}" ]]; then
  tar -czf "$GPU_CHECK_ARCHIVE" -C "$(dirname "$logs")" "$(basename "$logs")" && echo "logs packed into $GPU_CHECK_ARCHIVE"
fi
for o in "${outcomes[@]}"; do [[ "$o" == *": ok ("* ]] || exit 1; done
