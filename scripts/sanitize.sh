#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer: configures
# build-asan/ (or $ABLATE_ASAN_BUILD_DIR) with g++, -DABLATE_SANITIZE=ON and the CUDA backend
# off, builds every test and the ablate program, and runs ctest. Any sanitizer report fails the
# test that caused it (UBSan does not recover; ASan and LeakSanitizer abort by default).
#   scripts/sanitize.sh [CTEST ARGS...]       e.g. scripts/sanitize.sh -R Layerwise
# RelWithDebInfo (-O2 -g), not Debug: the suite trains small networks through Eigen, OpenBLAS
# and oneDNN, and an unoptimised Eigen under ASan would take it far past its few minutes;
# -O2 keeps every ASan check and -g plus -fno-omit-frame-pointer keeps the stack traces exact.
# Suppressions for system libraries (never for the project's code) are in
# cmake/sanitizer_suppressions/, one comment per entry.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ABLATE_ASAN_BUILD_DIR:-$root/build-asan}
jobs=${ABLATE_JOBS:-2}
supp=$root/cmake/sanitizer_suppressions

export ASAN_OPTIONS=${ASAN_OPTIONS:-check_initialization_order=1:strict_init_order=1:detect_leaks=1:fast_unwind_on_malloc=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ -f "$supp/lsan.supp" ]; then export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$supp/lsan.supp:print_suppressions=0}; fi

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DABLATE_SANITIZE=ON -DABLATE_CUDA=OFF \
  -DABLATE_MICROBENCH=OFF >/dev/null
# Building runs each test binary once (gtest_discover_tests lists its tests), sanitized too.
nice cmake --build "$build" -j"$jobs"
ctest --test-dir "$build" --output-on-failure -j"$jobs" "$@"
