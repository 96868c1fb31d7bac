// posix_spawn + pipe or file (see spawned_program.h).
#include "bench/experiments/spawned_program.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace ablate::bench::experiments {

namespace {

std::string shell_quoted(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+") ==
                        std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// This process's environment with `variables` put over it.
std::vector<std::string> environment_with(const std::vector<std::string>& variables) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& v : variables) replaced = replaced || v.substr(0, v.find('=')) == name;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), variables.begin(), variables.end());
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

// Closes a file descriptor and a posix_spawn_file_actions_t when the scope ends.
struct SpawnResources {
  posix_spawn_file_actions_t actions;
  int fds[2] = {-1, -1};
  SpawnResources() { posix_spawn_file_actions_init(&actions); }
  ~SpawnResources() {
    posix_spawn_file_actions_destroy(&actions);
    for (int fd : fds)
      if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::vector<std::string> split_variables(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string v; in >> v;) out.push_back(v);
  return out;
}

ProgramOutput run_program(const std::vector<std::string>& argv, const std::vector<std::string>& variables,
                          const std::string& output_file) {
  if (argv.empty()) throw std::invalid_argument("run_program: no program given");
  ProgramOutput r;
  for (const auto& v : variables) r.command += shell_quoted(v) + " ";
  for (std::size_t i = 0; i < argv.size(); ++i) r.command += (i ? " " : "") + shell_quoted(argv[i]);

  SpawnResources res;
  if (output_file.empty()) {
    if (::pipe2(res.fds, O_CLOEXEC) != 0)
      throw std::runtime_error("cannot start " + argv[0] + ": no pipe (" + std::strerror(errno) + ")");
    posix_spawn_file_actions_adddup2(&res.actions, res.fds[1], 1);
  } else {
    res.fds[1] = ::open(output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (res.fds[1] < 0)
      throw std::runtime_error("cannot write the output of " + argv[0] + " to " + output_file + ": " + std::strerror(errno));
    posix_spawn_file_actions_adddup2(&res.actions, res.fds[1], 1);
  }
  posix_spawn_file_actions_adddup2(&res.actions, 1, 2);

  std::vector<std::string> args = argv, env = environment_with(variables);
  std::vector<char*> arg_pointers = pointers(args), env_pointers = pointers(env);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, argv[0].c_str(), &res.actions, nullptr, arg_pointers.data(), env_pointers.data());
  if (err != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(err));
  ::close(res.fds[1]);
  res.fds[1] = -1;
  if (res.fds[0] >= 0) {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(res.fds[0], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      r.output.append(buf, static_cast<std::size_t>(n));
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool python_has_module(const std::string& python, const std::string& module) {
  try {
    const std::string found = "import importlib.util, sys; sys.exit(importlib.util.find_spec('" + module + "') is None)";
    return run_program({python, "-c", found}, {}, "/dev/null").exit_code == 0;
  } catch (const std::runtime_error&) {
    return false;
  }
}

}  // namespace ablate::bench::experiments
