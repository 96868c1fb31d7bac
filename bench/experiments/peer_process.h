// Running a peer script (bench/peers/): the PyTorch yardstick (pytorch_train.py, by default
// Debian's /usr/bin/python3 with python3-torch, or the interpreter of --peer-python), shared by `ablate bench --with-pytorch` and `ablate
// compare --with-peers`, and the real frameworks' runners (real_peers.h): where the script is,
// the model file it reads, PyTorch's best environment on these machines, and one run of a
// script by an interpreter with its output and exit status.
#pragma once

#include <string>
#include <vector>

#include "bench/experiments/spawned_program.h"

namespace ablate::bench::experiments {

// PyTorch's best configuration found on these machines (shared/reference/machine.md): OpenBLAS
// kept out of PyTorch's OpenMP threads, and glibc keeping freed blocks instead of returning them.
extern const char* const kPeerBestEnv;

// The source tree's bench/peers/pytorch_train.py.
std::string default_peer_script();
// The model as a file the script can read: `model` itself when it is a file, else the embedded
// zoo model written out into `dir` (a temporary directory of the caller's: never a fixed path,
// so two runs at once do not share it).
std::string model_file_for_peer(const std::string& model, const std::string& dir);

using PeerProcessOutput = ProgramOutput;

// Runs PYTHON SCRIPT ARGS... with the variables of `env` ("A=1 B=2", e.g. kPeerBestEnv, or "")
// added to the environment, without a shell (spawned_program.h); stdout and stderr together.
PeerProcessOutput run_python(const std::string& python, const std::string& env, const std::string& script,
                             const std::vector<std::string>& args);
// The PyTorch yardstick's default interpreter: Debian's, with python3-torch (1.13).
extern const char* const kDebianPython;
// The yardstick's interpreter of a command line: --peer-python PYTHON, else kDebianPython (the
// PyTorch 2.x environment's is $ABLATE_PEERS_DIR/pytorch/bin/python, scripts/setup-peers.sh).
// Throws std::invalid_argument naming the flag and the path when it is not an executable file.
std::string peer_python(const std::string& given);
// Runs `PYTHON SCRIPT ARGS...`, with kPeerBestEnv in front unless `as_installed`.
PeerProcessOutput run_peer_script(const std::string& python, const std::string& script,
                                  const std::vector<std::string>& args, bool as_installed);

}  // namespace ablate::bench::experiments
