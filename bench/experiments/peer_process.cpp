// Running a peer script (without a shell), the model file it reads, and PyTorch's environment.
#include "bench/experiments/peer_process.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "models/embedded_files.h"

namespace ablate::bench::experiments {

const char* const kPeerBestEnv =
    "OPENBLAS_NUM_THREADS=1 GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296";

std::string default_peer_script() { return std::string(ABLATE_SOURCE_DIR) + "/bench/peers/pytorch_train.py"; }

std::string model_file_for_peer(const std::string& model, const std::string& dir) {
  if (std::ifstream(model).good()) return model;
  auto text = models::embedded_file("zoo/" + model + ".model");
  if (!text) throw std::invalid_argument("model '" + model + "' is neither a file nor a zoo model");
  const std::string path = (std::filesystem::path(dir) / (model + ".model")).string();
  std::ofstream out(path);
  out << *text;
  if (!out.flush()) throw std::runtime_error("cannot write the model for the peer to " + path);
  return path;
}

const char* const kDebianPython = "/usr/bin/python3";

std::string peer_python(const std::string& given) {
  const std::string python = given.empty() ? kDebianPython : given;
  if (given.empty()) return python;  // Debian's: a missing torch shows in the script's own error
  if (::access(python.c_str(), X_OK) != 0 || std::filesystem::is_directory(python))
    throw std::invalid_argument("--peer-python " + python +
                                ": not an executable file; expected a Python interpreter with torch, e.g. "
                                "$ABLATE_PEERS_DIR/pytorch/bin/python (scripts/setup-peers.sh pytorch) or " +
                                std::string(kDebianPython));
  return python;
}

PeerProcessOutput run_peer_script(const std::string& python, const std::string& script,
                                  const std::vector<std::string>& args, bool as_installed) {
  return run_python(python, as_installed ? "" : kPeerBestEnv, script, args);
}

PeerProcessOutput run_python(const std::string& python, const std::string& env, const std::string& script,
                             const std::vector<std::string>& args) {
  std::vector<std::string> argv = {python, script};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, split_variables(env));
}

}  // namespace ablate::bench::experiments
