// Running the plot script (plot_script.h).
#include "bench/experiments/plot_script.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

extern char** environ;

namespace ablate::bench::experiments {

namespace {

// Runs `argv` (no shell: each argument reaches the program as it is) with its output into `log`
// ("" : discarded); returns the exit status, -1 when it could not start or was killed.
int run_program(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.empty() ? "/dev/null" : log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int started = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string default_plot_script() { return std::string(ABLATE_SOURCE_DIR) + "/bench/report/plots.py"; }

std::string draw_plots(const std::string& python, const std::string& script, const std::vector<std::string>& args,
                       const std::filesystem::path& dir) {
  if (!std::filesystem::exists(python)) return python + " is not installed";
  if (!std::filesystem::exists(script)) return "the plot script " + script + " is missing";
  if (run_program({python, "-c", "import matplotlib"}, "") != 0)
    return "matplotlib is not installed for " + python + " (Debian: apt-get install python3-matplotlib)";
  const std::string log = (dir / "plots.log").string();
  std::vector<std::string> argv = {python, script};
  argv.insert(argv.end(), args.begin(), args.end());
  if (run_program(argv, log) != 0) return "the plot script failed (see " + log + ")";
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
