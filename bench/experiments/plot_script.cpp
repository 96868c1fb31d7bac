// Running the plot script (plot_script.h).
#include "bench/experiments/plot_script.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>

namespace ablate::bench::experiments {

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

}  // namespace

std::string default_plot_script() { return std::string(ABLATE_SOURCE_DIR) + "/bench/report/plots.py"; }

std::string draw_plots(const std::string& python, const std::string& script, const std::vector<std::string>& args,
                       const std::filesystem::path& dir) {
  if (!std::filesystem::exists(python)) return python + " is not installed";
  if (!std::filesystem::exists(script)) return "the plot script " + script + " is missing";
  if (shell(quoted(python) + " -c 'import matplotlib' >/dev/null 2>&1") != 0)
    return "matplotlib is not installed for " + python + " (Debian: apt-get install python3-matplotlib)";
  const std::string log = (dir / "plots.log").string();
  std::string cmd = quoted(python) + " " + quoted(script);
  for (const auto& a : args) cmd += " " + quoted(a);
  if (shell(cmd + " >" + quoted(log) + " 2>&1") != 0) return "the plot script failed (see " + log + ")";
  return "";
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
