// Running the plot script (plot_script.h), without a shell (spawned_program.h).
#include "bench/experiments/plot_script.h"

#include <stdlib.h>

#include <algorithm>

#include "bench/experiments/spawned_program.h"

namespace ablate::bench::experiments {

std::string default_plot_script() { return std::string(ABLATE_SOURCE_DIR) + "/bench/report/plots.py"; }

std::string draw_plots(const std::string& python, const std::string& script, const std::vector<std::string>& args,
                       const std::filesystem::path& dir) {
  if (!std::filesystem::exists(python)) return python + " is not installed";
  if (!std::filesystem::exists(script)) return "the plot script " + script + " is missing";
  if (!python_has_module(python, "matplotlib"))
    return "matplotlib is not installed for " + python + " (Debian: apt-get install python3-matplotlib)";
  // The script draws into a fresh folder inside `dir`; each PNG is then renamed into `dir`, whole,
  // so two commands drawing into one folder at once never leave a picture half written.
  std::string staging = (dir / ".plots-XXXXXX").string();
  if (!::mkdtemp(staging.data())) return "cannot create a folder like " + staging + " for the plots";
  const std::string log = (dir / "plots.log").string();
  std::vector<std::string> argv = {python, script};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(staging);
  std::string why;
  try {
    if (run_program(argv, {}, staging + "/plots.log").exit_code != 0) why = "the plot script failed (see " + log + ")";
  } catch (const std::runtime_error& e) {
    why = e.what();
  }
  std::error_code ec;
  for (const auto& png : png_files(staging)) std::filesystem::rename(std::filesystem::path(staging) / png, dir / png, ec);
  std::filesystem::rename(std::filesystem::path(staging) / "plots.log", log, ec);
  std::filesystem::remove_all(staging, ec);
  return why;
}

std::vector<std::string> png_files(const std::filesystem::path& dir) {
  std::vector<std::string> pngs;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".png") pngs.push_back(e.path().filename().string());
  std::sort(pngs.begin(), pngs.end());
  return pngs;
}

std::string png_markdown(const std::filesystem::path& dir) {
  std::string md;
  for (const auto& p : png_files(dir)) md += "![" + p + "](" + p + ")\n\n";
  return md;
}

}  // namespace ablate::bench::experiments
