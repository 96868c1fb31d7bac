// fork + pipe: the child writes "ok\n" + text or "error\n" + message, then _exits.
#include "bench/experiments/child_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>

namespace ablate::bench::experiments {

namespace {

void write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// Reads until end of file; with `while_waiting`, calls it whenever 50 ms pass without data.
std::string read_all(int fd, const std::function<void()>& while_waiting) {
  std::string out;
  char buf[4096];
  for (;;) {
    if (while_waiting) {
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, 50);
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) {
        while_waiting();
        continue;
      }
    }
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace

ChildOutcome run_in_child(const std::function<std::string()>& body, const std::function<void()>& while_waiting) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("cannot fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    int code = 0;
    std::string message;
    try {
      message = "ok\n" + body();
    } catch (const std::exception& e) {
      message = std::string("error\n") + e.what();
      code = 1;
    } catch (...) {
      message = "error\nunknown exception";
      code = 1;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    write_all(fds[1], message);
    ::close(fds[1]);
    ::_exit(code);  // no atexit handlers or static destructors of the parent's state
  }
  ::close(fds[1]);
  std::string text;
  try {
    text = read_all(fds[0], while_waiting);
  } catch (...) {
    ::close(fds[0]);
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    throw;
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ChildOutcome out;
  if (text.rfind("ok\n", 0) == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    out.ok = true;
    out.text = text.substr(3);
  } else if (text.rfind("error\n", 0) == 0) {
    out.error = text.substr(6);
  } else if (WIFSIGNALED(status)) {
    out.error = "the run's process was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                strsignal(WTERMSIG(status)) + ")";
  } else {
    out.error = "the run's process exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                " without a result";
  }
  return out;
}

}  // namespace ablate::bench::experiments
