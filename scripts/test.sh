#!/usr/bin/env bash
# Quick start (b): set-up, build, and the whole test suite (GoogleTest through CTest).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
ctest --test-dir "${ABLATE_BUILD_DIR:-$root/build}" --output-on-failure -j"$(nproc)"
