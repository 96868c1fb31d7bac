// The real frameworks beside ablate's presets: one runner interface, one entry per
// peer. Each peer is a Python script of bench/peers/ run by an interpreter, with the protocol
// of peer_common.py (ablate's recipe as arguments, its data as IDX files, `peer_result ...` or
// exit 3 `peer_not_comparable: ...`); what differs between peers is data here:
//   tensorflow      TensorFlow 2.21 (tf.compat.v1 graphs), two paths: eigen (TF_ENABLE_ONEDNN_OPTS=0,
//                   the path TF 1.x had) and onednn (tensorflow-cpu 2.x's default)
//   theano          Theano 1.0.5, f64, OpenBLAS; its own max-pool gradient (to every tied maximum)
//   pytorch         PyTorch 2.x from its environment: the stand-in for Caffe and Torch7, which do
//                   not install here
//   pytorch-debian  Debian's python3-torch 1.13 (/usr/bin/python3), the --with-peers yardstick
// The environments are ${ABLATE_PEERS_DIR:-<source>/.peers}/<env>/ (scripts/setup-peers.sh); a
// peer whose interpreter is missing is "not installed" with the command that installs it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench/experiments/peer_process.h"
#include "bench/run/run_config.h"

namespace ablate::bench::experiments {

// One way a peer can run (TensorFlow's Eigen or oneDNN kernels), chosen by runner arguments.
struct PeerPath {
  std::string name;               // "eigen", "onednn"; "" for a peer with one path
  std::vector<std::string> args;  // the runner's arguments that choose it
};

struct RealPeer {
  std::string name;         // tensorflow | theano | pytorch | pytorch-debian
  std::string title;        // "TensorFlow", "PyTorch 2.x", in tables
  std::string env;          // its environment's folder in the peers' folder; "" = Debian's /usr/bin/python3
  std::string script;       // under bench/peers/
  std::string environment;  // variables put before the command (PyTorch: kPeerBestEnv)
  std::vector<PeerPath> paths;
  bool same_weights = true;  // takes --init-checkpoint FILE --no-random and prints peer_loss lines
  // Runner arguments taken from the run's configuration beyond the recipe (TF: its inter-op pool).
  std::function<std::vector<std::string>(const run::RunConfig&)> config_args;
};

// Every peer, in the order tables list them.
const std::vector<RealPeer>& real_peers();
// The peer of that name; throws naming the known ones.
const RealPeer& real_peer(const std::string& name);

// The real framework set beside a framework's preset: tensorflow and theano their own; caffe
// and torch PyTorch 2.x, with the note that says it stands in.
struct PeerFor {
  const RealPeer* peer = nullptr;
  std::string note;  // "" or "PyTorch 2.x stands in for Caffe, which does not install here"
};
PeerFor real_peer_for(const std::string& framework);

// $ABLATE_PEERS_DIR, else the source tree's .peers.
std::string default_peers_dir();
// The peer's interpreter: <peers_dir>/<env>/bin/python, or /usr/bin/python3.
std::string peer_interpreter(const RealPeer& peer, const std::string& peers_dir);
// "" when installed; else what is missing: "no <python>; install it with <command>".
std::string peer_missing(const RealPeer& peer, const std::string& peers_dir);
// The command that installs it: "scripts/setup-peers.sh tensorflow".
std::string install_command(const RealPeer& peer);

// Runs the peer's script on `path` with `args` (the path's own arguments appended).
PeerProcessOutput run_real_peer(const RealPeer& peer, const PeerPath& path, const std::string& peers_dir,
                                const std::vector<std::string>& args);
// The paths a run takes (--real-paths LIST): every path of the peer when `names` is empty, else
// those named, in the order named; a peer with one unnamed path (Theano, PyTorch) always runs it.
std::vector<PeerPath> chosen_paths(const RealPeer& peer, const std::vector<std::string>& names);
// --real-paths LIST split and checked against every peer's path names; throws naming the input.
std::vector<std::string> parse_real_paths(const std::string& list);

// "TensorFlow (eigen)", "Theano", "PyTorch 2.x".
std::string path_title(const RealPeer& peer, const PeerPath& path);

}  // namespace ablate::bench::experiments
