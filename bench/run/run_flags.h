// The options of `ablate run`: each flag's name, value and help, in the order --help lists them.
// The command line registers them (bench/cli), resolve_run_config reads them, and `ablate sweep`
// and `ablate paper` vary them (a --vary key must be one of them).
#pragma once

#include <string>
#include <vector>

#include "bench/run/flags.h"

namespace ablate::bench::run {

const std::vector<FlagSpec>& run_flags();
// The flag named `name` (without the dashes), or nullptr.
const FlagSpec* find_run_flag(const std::string& name);

}  // namespace ablate::bench::run
