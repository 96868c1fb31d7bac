// ablate: one engine that re-creates how TensorFlow 1.x, Caffe, Torch7 and Theano train a
// network. Subcommands: run, compare, bench, list, sweep, paper, report. Errors print "error: ..." and exit non-zero.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "bench/cli/commands.h"

namespace {
const char* kUsage =
    "usage: ablate COMMAND [options]\n\n"
    "commands:\n"
    "  run     train and test one framework's default configuration (any factor overridable)\n"
    "  compare train the four frameworks' defaults one after another; the study's table\n"
    "  bench   training images/s of a model for every backend and thread count, side by side\n"
    "  graph   the static strategy's graph of a model before and after its passes, as Graphviz dot\n"
    "  list    the backends, strategies, models, presets and data sets this build knows\n"
    "  allreduce-bench  gradient all-reduce times under MPI (mpirun -np N), MPI_Allreduce vs our ring\n"
    "  sweep   a resumable grid over any run flags (--vary KEY=V1,V2), with repeats\n"
    "  paper   the study's experiment families by name (ablate paper --list)\n"
    "  report  Markdown tables and PNG plots of a results file\n\n"
    "ablate COMMAND --help describes each command's options.\n";
}

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 1 : 0;
  }
  std::string command = argv[1];
  try {
    if (command == "run") return ablate::bench::cli::run_command(argc - 2, argv + 2);
    if (command == "compare") return ablate::bench::cli::compare_command(argc - 2, argv + 2);
    if (command == "bench") return ablate::bench::cli::bench_command(argc - 2, argv + 2);
    if (command == "list") return ablate::bench::cli::list_command(argc - 2, argv + 2);
    if (command == "graph") return ablate::bench::cli::graph_command(argc - 2, argv + 2);
    if (command == "allreduce-bench") return ablate::bench::cli::allreduce_bench_command(argc - 2, argv + 2);
    if (command == "sweep") return ablate::bench::cli::sweep_command(argc - 2, argv + 2);
    if (command == "paper") return ablate::bench::cli::paper_command(argc - 2, argv + 2);
    if (command == "report") return ablate::bench::cli::report_command(argc - 2, argv + 2);
    std::fprintf(stderr, "error: unknown command '%s'\n\n%s", command.c_str(), kUsage);
    return 1;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
