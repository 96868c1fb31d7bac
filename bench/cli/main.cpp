// ablate: one engine that re-creates how TensorFlow 1.x, Caffe, Torch7 and Theano train a
// network. Subcommands: run, compare, bench, graph, list, allreduce-bench, sweep, paper, report
// (commands.h). Errors print "error: ..." and exit non-zero.
#include "bench/cli/commands.h"
#include "bench/run/wait_policy.h"

int main(int argc, char** argv) {
  // The threads' waiting policy, before anything else (may re-execute this process once).
  ablate::bench::run::apply_wait_policy(argc, argv, {"run", "bench", "compare", "sweep", "paper"});
  return ablate::bench::cli::run_command_line(argc, argv, ablate::bench::cli::all_commands());
}
