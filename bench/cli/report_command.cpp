// `ablate report RESULTS.jsonl --out DIR`: DIR/report.md (report_tables.h) and PNG plots drawn
// by bench/report/plots.py with Debian's matplotlib (/usr/bin/python3). Damaged lines of the
// results file are skipped and named. Without matplotlib the Markdown is still written and the
// command says the plots were skipped and why.
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "bench/run/flags.h"
#include "bench/cli/commands.h"
#include "bench/experiments/report_tables.h"
#include "bench/run/results_reader.h"

namespace ablate::bench::cli {

namespace {

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

int shell(const std::string& cmd) {
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Runs the plot script; returns "" or why the plots were skipped.
std::string draw_plots(const std::string& python, const std::string& script, const std::string& results,
                       const std::filesystem::path& dir) {
  if (!std::filesystem::exists(python)) return python + " is not installed";
  if (!std::filesystem::exists(script)) return "the plot script " + script + " is missing";
  if (shell(quoted(python) + " -c 'import matplotlib' >/dev/null 2>&1") != 0)
    return "matplotlib is not installed for " + python + " (Debian: apt-get install python3-matplotlib)";
  const std::string log = (dir / "plots.log").string();
  if (shell(quoted(python) + " " + quoted(script) + " " + quoted(results) + " " + quoted(dir.string()) + " >" + quoted(log) +
            " 2>&1") != 0)
    return "the plot script failed (see " + log + ")";
  return "";
}

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

  const std::string why = draw_plots(args.get("python", "/usr/bin/python3"),
                                     args.get("plot-script", std::string(ABLATE_SOURCE_DIR) + "/bench/report/plots.py"),
                                     results, dir);
  md += "## Plots\n\n";
  if (!why.empty()) {
    md += "Plots skipped: " + why + ".\n";
    std::printf("plots skipped: %s\n", why.c_str());
  } else {
    std::vector<std::string> pngs;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".png") pngs.push_back(e.path().filename().string());
    std::sort(pngs.begin(), pngs.end());
    for (const auto& p : pngs) md += "![" + p + "](" + p + ")\n\n";
    std::printf("%zu plots written to %s\n", pngs.size(), dir.string().c_str());
  }
  const auto path = dir / "report.md";
  std::ofstream out(path);
  out << md;
  if (!out) throw std::runtime_error("report " + path.string() + ": cannot write");
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
