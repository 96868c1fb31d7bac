// The list of ablate's commands (commands.h).
#include "bench/cli/commands.h"

namespace ablate::bench::cli {

std::vector<Command> all_commands() {
  return {run_command(),           compare_command(), bench_command(), graph_command(),  explain_command(), gradcheck_command(), list_command(),
          allreduce_bench_command(), sweep_command(), ablate_command(), paper_command(), report_command(), export_command()};
}

}  // namespace ablate::bench::cli
