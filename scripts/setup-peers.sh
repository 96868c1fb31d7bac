#!/usr/bin/env bash
# Creates one Python virtual environment per real framework that ablate's presets reproduce,
# from the pinned requirement files in bench/peers/requirements/, by package name from the
# package index pip is configured with (no host is named here):
#   tensorflow  tensorflow-cpu 2.21  (runs bench/peers/tensorflow_train.py)
#   theano      theano 1.0.5 with the numpy and scipy of its time (bench/peers/theano_train.py)
#   pytorch     torch 2.x            (bench/peers/pytorch_train.py, beside Debian's torch 1.13)
#   onnxruntime ONNX Runtime          (tests/peers/test_onnx_runtime.py: runs what `ablate export` writes)
#
#   scripts/setup-peers.sh                      all four
#   scripts/setup-peers.sh tensorflow theano    those only
#
# Each goes to ${ABLATE_PEERS_DIR:-<repo>/.peers}/<framework>/ (git-ignored) and is independent
# and optional: a failure of one is reported and the others continue; the exit status is 1 if
# any failed. Safe to run twice: an existing environment is brought to the pinned versions.
# Each environment gets ablate-peer.txt: what installed, its size and how long it took.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
requirements="$repo/bench/peers/requirements"
peers_dir="${ABLATE_PEERS_DIR:-$repo/.peers}"
python=/usr/bin/python3   # Debian's interpreter: its venv module is the python3-venv package
all=(tensorflow theano pytorch onnxruntime)

usage() { echo "usage: $0 [${all[*]}]... (default: all; ABLATE_PEERS_DIR sets where, now $peers_dir)"; }

frameworks=("$@")
[ ${#frameworks[@]} -eq 0 ] && frameworks=("${all[@]}")
for f in "${frameworks[@]}"; do
  case " ${all[*]} " in
    *" $f "*) ;;
    *) echo "setup-peers: '$f' is not a framework with a peer; expected one of: ${all[*]}" >&2; usage >&2; exit 2 ;;
  esac
done

# python3 -m venv needs Debian's python3-venv (ensurepip); install it once if missing.
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
  echo "setup-peers: installing python3-venv (for $python -m venv)"
  SUDO=""; [ "$(id -u)" != 0 ] && SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null ||
    { echo "setup-peers: cannot install python3-venv; no peer can be set up" >&2; exit 1; }
fi

# The pip arguments that install FRAMEWORK's pins, by package name from whatever index pip is
# configured with (pip.conf, PIP_INDEX_URL): this script names no host and probes none.
# pytorch: the index's torch wheel, which on x86_64 Linux depends on CUDA libraries (pinned in
# pytorch-cuda-libs.txt; about 4 GB of the environment's 5.5 GB, unused on a CPU-only machine).
pip_arguments() {
  local f=$1
  if [ "$f" != pytorch ]; then echo "-r $requirements/$f.txt"; return; fi
  echo "setup-peers: pytorch: torch with the CUDA libraries its wheel depends on (about 3.0 GB of wheels, 5.5 GB installed)" >&2
  echo "-r $requirements/pytorch.txt -r $requirements/pytorch-cuda-libs.txt"
}

# A check that the framework imports in its environment, printing its version.
smoke_test() {
  local f=$1 env=$2
  case $f in
    tensorflow) "$env/bin/python" -c 'import tensorflow as tf; print("tensorflow", tf.__version__)' ;;
    theano) THEANO_FLAGS="base_compiledir=$env/theano-compile,blas.ldflags=-lopenblas" \
              "$env/bin/python" -c 'import theano; print("theano", theano.__version__)' ;;
    pytorch) "$env/bin/python" -c 'import torch; print("torch", torch.__version__)' ;;
    onnxruntime) "$env/bin/python" -c 'import onnxruntime as ort; print("onnxruntime", ort.__version__)' ;;
  esac
}

setup_one() {
  local f=$1 env="$peers_dir/$1" start=$SECONDS args
  echo "setup-peers: $f -> $env"
  mkdir -p "$peers_dir" || return 1
  if [ ! -x "$env/bin/python" ]; then
    "$python" -m venv "$env" || { echo "setup-peers: $f: $python -m venv $env failed" >&2; return 1; }
  fi
  args=$(pip_arguments "$f")
  # shellcheck disable=SC2086  # args is a list of pip arguments without spaces inside
  "$env/bin/python" -m pip install --quiet --upgrade-strategy only-if-needed $args ||
    { echo "setup-peers: $f: pip install $args failed" >&2; return 1; }
  local version
  version=$(smoke_test "$f" "$env") || { echo "setup-peers: $f: installed, but the import fails" >&2; return 1; }
  local seconds=$((SECONDS - start)) size
  size=$(du -sm "$env" | cut -f1)
  {
    echo "# written by scripts/setup-peers.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "framework $f"
    echo "import $version"
    echo "python $("$env/bin/python" --version 2>&1)"
    echo "install_seconds $seconds"
    echo "size_mb $size"
    echo "pip $args"
    "$env/bin/python" -m pip freeze
  } >"$env/ablate-peer.txt"
  echo "setup-peers: $f ready: $version, ${size} MB, ${seconds} s (details in $env/ablate-peer.txt)"
}

failed=()
for f in "${frameworks[@]}"; do
  setup_one "$f" || failed+=("$f")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "setup-peers: failed: ${failed[*]} (the others are set up; ablate runs without the failed ones)" >&2
  exit 1
fi
echo "setup-peers: done: ${frameworks[*]} in $peers_dir"
