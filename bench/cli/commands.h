// The ablate subcommands. Each takes argv after its name and returns the exit status.
#pragma once

namespace ablate::bench::cli {

int run_command(int argc, char** argv);    // ablate run: train and test one configuration
int bench_command(int argc, char** argv);  // ablate bench: training images/s per backend and threads
int list_command(int argc, char** argv);   // ablate list: backends, strategies, models, presets, data sets
int compare_command(int argc, char** argv);  // ablate compare: the four frameworks' defaults, the study's table
int graph_command(int argc, char** argv);  // ablate graph: the static strategy's graph before and after its passes, as dot
int allreduce_bench_command(int argc, char** argv);  // ablate allreduce-bench: MPI all-reduce timings
int sweep_command(int argc, char** argv);   // ablate sweep: a resumable grid over run flags
int paper_command(int argc, char** argv);   // ablate paper: the study's experiment families
int report_command(int argc, char** argv);  // ablate report: Markdown tables and PNG plots of a results file

}  // namespace ablate::bench::cli
