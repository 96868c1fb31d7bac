#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang-14, AddressSanitizer and UBSan into
# build-fuzz/ (or $ABLATE_FUZZ_BUILD_DIR), then runs each for SECONDS (default 60), one after
# the other, and prints each target's executions and any crash file.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     TARGET: idx cifar10 image_folder model_spec preset checkpoint (default all)
# Each run starts from the committed seeds (fuzz/corpus/TARGET, read-only) and a working corpus
# in build-fuzz/corpus/TARGET that grows across runs; crashes, leaks, timeouts and OOMs land in
# build-fuzz/artifacts/TARGET/. Reproduce one with: build-fuzz/fuzz_TARGET FILE.
# Exits non-zero if any target found something.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ABLATE_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(idx cifar10 image_folder model_spec preset checkpoint)
jobs=${ABLATE_JOBS:-2}
cxx=${ABLATE_FUZZ_CXX:-clang++-14}

echo "== building $(printf 'fuzz_%s ' "${targets[@]}")in $build ($cxx, RelWithDebInfo, ASan + UBSan)"
mkdir -p "$build"
if ! { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
         -DABLATE_FUZZ=ON -DABLATE_CUDA=OFF -DABLATE_TESTS=OFF -DABLATE_MICROBENCH=OFF &&
       nice cmake --build "$build" -j"$jobs" --target $(printf 'fuzz_%s ' "${targets[@]}"); } >"$build/build.log" 2>&1; then
  tail -30 "$build/build.log"
  echo "fuzz build failed (log: $build/build.log)"
  exit 2
fi

# The largest input each target takes: IDX, CIFAR-10 and image-folder inputs need room for a few images.
max_len() { case $1 in idx | cifar10 | image_folder) echo 16384 ;; *) echo 8192 ;; esac; }

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
failed=0
summary=()
for target in "${targets[@]}"; do
  work=$build/corpus/$target artifacts=$build/artifacts/$target
  mkdir -p "$work" "$artifacts"
  dict=()
  [ -f "$root/fuzz/$target.dict" ] && dict=(-dict="$root/fuzz/$target.dict")
  log=$build/fuzz_$target.log
  echo "== fuzz_$target for ${seconds}s (log: $log)"
  nice "$build/fuzz_$target" -max_total_time="$seconds" -max_len="$(max_len "$target")" -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "${dict[@]}" "$work" "$root/fuzz/corpus/$target" \
    >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  found=$(sed -n 's/.*Test unit written to //p' "$log")
  line="fuzz_$target: ${runs:-?} executions in ${seconds}s, ${cov:-cov: ?}, corpus $(ls "$work" | wc -l) files"
  if [ $rc -ne 0 ] || [ -n "$found" ]; then
    failed=1
    line="$line, FOUND (exit $rc): ${found:-see $log}"
    grep -m3 -E '^==[0-9]+==ERROR|runtime error|deadly signal|fuzz invariant|terminate called|out-of-memory|timeout' "$log"
  fi
  echo "$line"
  summary+=("$line")
done
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
exit $failed
