// Running another program without a shell: posix_spawn with an argument vector, extra
// environment variables on top of this process's own, and the program's stdout and stderr
// together through a pipe (brought back as text) or into a file. No argument ever reaches a
// shell, so a path with a quote or a space in it is passed as it is. Used for the PyTorch
// yardstick and the real frameworks' runners (peer_process.h), the plot script
// (plot_script.h) and the checks whether an interpreter has a module.
#pragma once

#include <string>
#include <vector>

namespace ablate::bench::experiments {

struct ProgramOutput {
  std::string command;  // for messages: the variables and the arguments, each quoted as a shell would need
  std::string output;   // stdout and stderr together ("" when they went to a file)
  int exit_code = -1;   // -1: killed by a signal
};

// Runs argv[0] (a path: no search of PATH) with `argv`, this process's environment plus
// `variables` ("NAME=VALUE" each, replacing a variable of the same name). With `output_file`
// "", the output comes back in ProgramOutput::output; otherwise it is written to that file
// (created or truncated; "/dev/null" drops it). Throws std::runtime_error naming the program
// when it cannot be started (missing, not executable) or the file cannot be opened.
ProgramOutput run_program(const std::vector<std::string>& argv, const std::vector<std::string>& variables = {},
                          const std::string& output_file = "");

// "A=1 B=2" -> {"A=1", "B=2"}: a list of variables as kPeerBestEnv writes them (no spaces in values).
std::vector<std::string> split_variables(const std::string& text);

// Whether `python` finds MODULE (importlib.util.find_spec, without importing it); false when
// the interpreter cannot be started.
bool python_has_module(const std::string& python, const std::string& module);

}  // namespace ablate::bench::experiments
