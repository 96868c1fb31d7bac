#!/usr/bin/env bash
# Installs from Debian's packages what ablate needs and a fresh machine lacks.
# Safe to run twice: packages already present are left alone and apt is not called.
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  libeigen3-dev          # eigen backend
  libopenblas-dev        # openblas backend (cblas_sgemm), as Caffe, Torch7 and Theano used
  libdnnl-dev            # onednn backend (oneDNN 2.6, v2 API)
  libstb-dev             # stb_image for image-folder data sets
  zlib1g-dev             # gzip'ed IDX files
  libomp-dev             # OpenMP runtime headers for clang builds (g++ uses libgomp)
  libgtest-dev libgmock-dev libbenchmark-dev
  dataset-fashion-mnist  # the embedded default data set (/usr/share/fashion-mnist)
  openmpi-bin libopenmpi-dev  # optional MPI data-parallel training (mpirun --distributed)
  iproute2               # ip netns, ip link, tc: the two-host distributed test and scaling (bench/scripts/two_hosts.sh)
  nlohmann-json3-dev     # result records: written and read as JSON (bench/run/result_record, results_reader)
  libcli11-dev           # the ablate command line: subcommands, options and --help (bench/cli)
  python3-matplotlib     # ablate report: PNG plots (bench/report/plots.py, run with /usr/bin/python3)
  strace                 # tests/bench: counts ablate's one re-execution for its threads' wait policy
  libonnx-dev libprotobuf-dev  # ONNX import (models/onnx): onnx::ModelProto and the protobuf headers it includes
  libonnx-testdata       # ONNX's operator tests (tests/graph/onnx_node_cases_test.cpp)
  python3-onnx           # to inspect .onnx files by hand; no test needs it
)
# The PyTorch yardstick (bench/peers) is optional and large: ABLATE_WITH_PEERS=1 adds it.
if [ "${ABLATE_WITH_PEERS:-0}" = 1 ]; then packages+=(python3-torch python3-numpy); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
else
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "setup: done"
fi
# The real frameworks (TensorFlow, Theano, PyTorch 2.x) in virtual environments: optional.
if [ "${ABLATE_WITH_PEERS:-0}" = 1 ]; then
  "$(dirname "$0")/setup-peers.sh" || echo "setup: a peer environment failed (above); ablate runs without it"
fi
