// `ablate compare --report DIR`: the table with the environment it was measured in, the peers,
// the real frameworks and the attribution as DIR/report.md, the plots as PNGs beside it
// (compare_plots.h; the attribution's own, attribution_shapley.h), and the same report as one
// self-contained page, DIR/index.html (markdown_html.h). Each file is written whole.
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "bench/cli/comparison.h"
#include "bench/experiments/compare_plots.h"
#include "bench/experiments/html_page.h"
#include "bench/experiments/markdown_html.h"
#include "bench/experiments/peer_process.h"
#include "bench/experiments/peer_table.h"
#include "bench/experiments/plot_script.h"
#include "bench/experiments/real_table.h"
#include "bench/run/environment.h"
#include "bench/run/text_file.h"
#include "bench/run/text_format.h"

namespace ablate::bench::cli {

void write_report(const std::string& dir, const std::string& title, const std::string& markdown) {
  const std::string md = (std::filesystem::path(dir) / "report.md").string();
  const std::string page = (std::filesystem::path(dir) / "index.html").string();
  run::write_text_file(md, markdown, "report");
  run::write_text_file(page, experiments::html_page(title, experiments::markdown_html(markdown, dir)), "report");
  std::printf("report written to %s and %s\n", md.c_str(), page.c_str());
}

void write_compare_report(const CompareRequest& request, const Comparison& c) {
  const std::string& dir = request.report_dir;
  std::ostringstream out;
  out << experiments::markdown_report(c.summary, c.rows, run::capture_environment());
  if (request.with_peers)
    out << "\n" << experiments::peer_markdown(c.peers, request.peer_opts.as_installed ? "as installed" : experiments::kPeerBestEnv,
                                              request.peer_opts.python);
  if (request.with_real) out << "\n" << experiments::real_markdown(c.real);
  for (const auto& w : c.waterfalls) out << "\n" << experiments::waterfall_markdown(w);
  for (const auto& a : c.accounts) {
    out << "\n" << experiments::shapley_account_markdown(a);
    const std::string why = experiments::draw_shapley_account(a, dir);
    if (!why.empty()) std::printf("attribution plots skipped: %s\n", why.c_str());
  }
  const std::string why = experiments::draw_compare_plots(dir, {&c.summary, &c.rows, &c.real, &c.waterfalls});
  out << "\n## Plots\n\n";
  if (why.empty()) out << experiments::png_markdown(dir);
  else out << "Plots skipped: " << why << ".\n";
  write_report(dir, "ablate compare: " + request.dataset, out.str());
  if (why.empty())
    std::printf("%zu plots written to %s (%s)\n", experiments::png_files(dir).size(), dir.c_str(),
                run::join(experiments::png_files(dir), ", ").c_str());
  else
    std::printf("plots skipped: %s\n", why.c_str());
}

}  // namespace ablate::bench::cli
