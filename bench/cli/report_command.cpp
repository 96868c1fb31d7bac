// `ablate report RESULTS.jsonl --out DIR`: DIR/report.md (report_tables.h) and PNG plots drawn
// by bench/report/plots.py with Debian's matplotlib (/usr/bin/python3). Damaged lines of the
// results file are skipped and named. Without matplotlib the Markdown is still written and the
// command says the plots were skipped and why.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "bench/run/flags.h"
#include "bench/cli/commands.h"
#include "bench/experiments/plot_script.h"
#include "bench/experiments/report_tables.h"
#include "bench/run/results_reader.h"
#include "bench/run/text_file.h"

namespace ablate::bench::cli {

namespace {

int report_main(const run::Flags& args) {
  const std::string results = args.get("results");
  if (results.empty()) throw std::invalid_argument("ablate report: expected the results file first (ablate report RESULTS.jsonl --out DIR)");
  if (!std::filesystem::exists(results)) throw std::invalid_argument("ablate report " + results + ": no such results file");
  if (!args.has("out")) throw std::invalid_argument("ablate report " + results + ": --out DIR is required");
  const std::filesystem::path dir = args.get("out");
  std::filesystem::create_directories(dir);

  run::ResultsFile file = run::read_results(results);
  for (const auto& d : file.damaged)
    std::printf("results file %s: line %lld is damaged and skipped (%s)\n", results.c_str(), static_cast<long long>(d.line),
                d.reason.c_str());
  std::string md = experiments::report_markdown(file, results);

  const std::string why = experiments::draw_plots(args.get("python", "/usr/bin/python3"),
                                                  args.get("plot-script", experiments::default_plot_script()),
                                                  {results}, dir);
  md += "## Plots\n\n";
  if (!why.empty()) {
    md += "Plots skipped: " + why + ".\n";
    std::printf("plots skipped: %s\n", why.c_str());
  } else {
    md += experiments::png_markdown(dir);
    std::printf("%zu plots written to %s\n", experiments::png_files(dir).size(), dir.string().c_str());
  }
  const auto path = dir / "report.md";
  run::write_text_file(path.string(), md, "report");
  std::printf("report written to %s (%zu runs)\n", path.string().c_str(), file.records.size());
  return 0;
}

}  // namespace

Command report_command() {
  return {"report",
          "Markdown tables and PNG plots of a results file",
          "Writes DIR/report.md (a row per run, sweep points with the spread of repeats, the correlation\n"
          "of CPU and memory with batch size) and PNG plots: usage ablate report RESULTS.jsonl --out DIR.",
          {
              {"results", "RESULTS.jsonl", "the results file", false, true},
              {"out", "DIR", "the report's directory (required)"},
              {"python", "PATH", "the Python with matplotlib (default /usr/bin/python3)"},
              {"plot-script", "FILE", "default: bench/report/plots.py of the source tree"},
          },
          report_main};
}

}  // namespace ablate::bench::cli
