// The ablate subcommands, each in its own file: its options, its help and what it runs
// (command_line.h registers them with CLI11).
#pragma once

#include <vector>

#include "bench/cli/command_line.h"

namespace ablate::bench::cli {

Command run_command();              // ablate run: train and test one configuration
Command compare_command();          // ablate compare: the four frameworks' defaults, the study's table
Command bench_command();            // ablate bench: training images/s per backend and threads
Command graph_command();            // ablate graph: the static strategy's graph before and after its passes, as dot
Command explain_command();          // ablate explain: one step under each strategy, op by op, side by side
Command gradcheck_command();        // ablate gradcheck: central differences against each strategy's gradient
Command list_command();             // ablate list: backends, strategies, models, presets, data sets
Command allreduce_bench_command();  // ablate allreduce-bench: MPI all-reduce timings
Command sweep_command();            // ablate sweep: a resumable grid over run flags
Command ablate_command();           // ablate ablate: a designed experiment, effects with intervals
Command paper_command();            // ablate paper: the study's experiment families
Command report_command();           // ablate report: Markdown tables and PNG plots of a results file
Command export_command();           // ablate export: a model's inference graph as an ONNX file

// Every command, in the order `ablate --help` lists them.
std::vector<Command> all_commands();

}  // namespace ablate::bench::cli
