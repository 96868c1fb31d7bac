// The `ablate` command line, parsed by CLI11: one subcommand per Command, each option from
// its FlagSpec table (run/flags.h), generated --help. An option given twice keeps its last
// value (a repeatable one keeps all); a switch takes no value. A parse error (an unknown
// option, a missing value) prints "error: ..." naming the option and exits 2; the values
// themselves are read by the commands, whose errors name the flag and the value.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench/run/flags.h"

namespace ablate::bench::cli {

struct Command {
  std::string name;
  std::string summary;      // one line, in `ablate --help`
  std::string description;  // the paragraph of `ablate NAME --help`, after the summary
  std::vector<run::FlagSpec> options;
  std::function<int(const run::Flags&)> main;  // returns the exit status
};

// Runs `ablate` (argv[0]) with its arguments: no command prints the commands and exits 1, an
// unknown one says so and exits 1; an exception from a command prints "error: ..." and exits 2.
int run_command_line(int argc, char** argv, const std::vector<Command>& commands);

// `words` (what follows the command's name) parsed as `command`'s options, as run_command_line
// parses them; a parse error throws std::invalid_argument with the message ablate prints.
run::Flags parse_options(const Command& command, const std::vector<std::string>& words);

}  // namespace ablate::bench::cli
