// The table of real frameworks and how each is run (real_peers.h).
#include "bench/experiments/real_peers.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

namespace {

// TF's inter-op pool: the preset's when its executor runs ops concurrently, else one thread
// (ablate's sequential executor runs one op at a time).
std::vector<std::string> tensorflow_config_args(const run::RunConfig& c) {
  const bool parallel = c.strategy == "static" && c.switches.executor == graph::ExecutorKind::parallel;
  return {"--inter-op-threads", std::to_string(parallel ? c.switches.inter_op_threads : 1)};
}

std::vector<std::string> no_config_args(const run::RunConfig&) { return {}; }

}  // namespace

const std::vector<RealPeer>& real_peers() {
  static const std::vector<RealPeer> peers = {
      {"tensorflow", "TensorFlow", "tensorflow", "tensorflow_train.py", "",
       {{"eigen", {"--onednn", "off"}}, {"onednn", {"--onednn", "on"}}}, true, tensorflow_config_args},
      {"theano", "Theano", "theano", "theano_train.py", "", {{"", {}}}, true, no_config_args},
      {"pytorch", "PyTorch 2.x", "pytorch", "pytorch_train.py", kPeerBestEnv, {{"", {}}}, true, no_config_args},
      {"pytorch-debian", "PyTorch (Debian)", "", "pytorch_train.py", kPeerBestEnv, {{"", {}}}, true, no_config_args},
  };
  return peers;
}

const RealPeer& real_peer(const std::string& name) {
  std::vector<std::string> names;
  for (const RealPeer& p : real_peers()) {
    if (p.name == name) return p;
    names.push_back(p.name);
  }
  throw std::invalid_argument("peer '" + name + "': expected one of " + run::join(names, ", "));
}

PeerFor real_peer_for(const std::string& framework) {
  if (framework == "tensorflow" || framework == "theano") return {&real_peer(framework), ""};
  if (framework == "caffe") return {&real_peer("pytorch"), "PyTorch 2.x stands in for Caffe, which does not install here"};
  if (framework == "torch") return {&real_peer("pytorch"), "PyTorch 2.x stands in for Torch7, which does not install here"};
  return {};
}

std::vector<PeerPath> chosen_paths(const RealPeer& peer, const std::vector<std::string>& names) {
  if (names.empty() || peer.paths.size() == 1) return peer.paths;
  std::vector<PeerPath> chosen;
  for (const std::string& name : names)  // in the order given: the first is the account's reference
    for (const PeerPath& path : peer.paths)
      if (path.name == name) chosen.push_back(path);
  return chosen.empty() ? peer.paths : chosen;  // names of another peer's paths only: this one's all
}

std::vector<std::string> parse_real_paths(const std::string& list) {
  std::vector<std::string> known;
  for (const RealPeer& p : real_peers())
    for (const PeerPath& path : p.paths)
      if (!path.name.empty()) known.push_back(path.name);
  const std::vector<std::string> names = run::split_list(list, true);
  if (names.empty()) throw std::invalid_argument("--real-paths '" + list + "': names no path; expected " + run::join(known, ", "));
  for (auto n = names.begin(); n != names.end(); ++n) {
    if (std::find(known.begin(), known.end(), *n) == known.end())
      throw std::invalid_argument("--real-paths '" + list + "': unknown path '" + *n + "'; expected " + run::join(known, ", "));
    if (std::find(names.begin(), n, *n) != n)
      throw std::invalid_argument("--real-paths '" + list + "': path '" + *n + "' is named twice");
  }
  return names;
}

std::string default_peers_dir() {
  const char* dir = std::getenv("ABLATE_PEERS_DIR");
  return dir && *dir ? dir : std::string(ABLATE_SOURCE_DIR) + "/.peers";
}

std::string peer_interpreter(const RealPeer& peer, const std::string& peers_dir) {
  return peer.env.empty() ? "/usr/bin/python3" : peers_dir + "/" + peer.env + "/bin/python";
}

std::string install_command(const RealPeer& peer) {
  return peer.env.empty() ? "apt-get install python3-torch" : "scripts/setup-peers.sh " + peer.env;
}

std::string peer_missing(const RealPeer& peer, const std::string& peers_dir) {
  const std::string python = peer_interpreter(peer, peers_dir);
  if (::access(python.c_str(), X_OK) != 0)
    return "no " + python + "; install it with " + install_command(peer);
  if (peer.env.empty() && !python_has_module("/usr/bin/python3", "torch"))
    return "/usr/bin/python3 has no torch; install it with " + install_command(peer);
  return "";
}

PeerProcessOutput run_real_peer(const RealPeer& peer, const PeerPath& path, const std::string& peers_dir,
                                const std::vector<std::string>& args) {
  std::vector<std::string> all = args;
  all.insert(all.end(), path.args.begin(), path.args.end());
  return run_python(peer_interpreter(peer, peers_dir), peer.environment,
                    std::string(ABLATE_SOURCE_DIR) + "/bench/peers/" + peer.script, all);
}

std::string path_title(const RealPeer& peer, const PeerPath& path) {
  return path.name.empty() ? peer.title : peer.title + " (" + path.name + ")";
}

}  // namespace ablate::bench::experiments
