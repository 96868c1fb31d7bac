// ablate: one engine that re-creates how TensorFlow 1.x, Caffe, Torch7 and Theano train a
// network. Subcommands: run, compare, bench, graph, list, allreduce-bench, sweep, paper, report
// (commands.h). Errors print "error: ..." and exit non-zero.
#include "bench/cli/commands.h"

int main(int argc, char** argv) {
  return ablate::bench::cli::run_command_line(argc, argv, ablate::bench::cli::all_commands());
}
