// The work queue of a distributed sweep (work_queue.h): rank 0 hands out tasks and gathers
// results, the other ranks ask for a task, run it and send its result back.
#include "graph/distributed/work_queue.h"

#include <cstdio>
#include <exception>
#include <stdexcept>

#include "graph/distributed/communicator.h"

namespace ablate::graph::distributed {

namespace {

constexpr int kRequest = 71;  // rank r -> 0: a result (or the first request)
constexpr int kReply = 72;    // 0 -> rank r: a task, or stop
const std::string kStop = "stop\n";

// "T\n" + result -> T and result.
std::int64_t split_result(const std::string& message, std::string& result, int source) {
  const auto eol = message.find('\n');
  if (eol == std::string::npos)
    throw std::runtime_error("work queue: a message from rank " + std::to_string(source) + " without its task number");
  result = message.substr(eol + 1);
  return std::stoll(message.substr(0, eol));
}

std::string lead(const std::vector<std::int64_t>& tasks, const TaskRunner& run,
                 const std::function<void(std::int64_t, int, const std::string&)>& done,
                 const std::function<std::string()>& closing) {
  std::size_t next = 0;
  int busy = 0;     // other ranks running a task
  int greeted = 0;  // other ranks whose first request came
  auto give = [&](int to) {
    if (next == tasks.size()) return;  // it waits for the stop at the end
    send_text(to, kReply, std::to_string(tasks[next++]));
    ++busy;
  };
  auto take = [&](int source, const std::string& message) {
    std::string result;
    const std::int64_t task = split_result(message, result, source);
    if (task >= 0) {
      --busy;
      done(task, source, result);
    } else {
      ++greeted;
    }
    give(source);
  };
  int source = 0;
  std::string message;
  while (greeted < size() - 1) {  // every rank's first request, before rank 0 takes a task
    message = wait_text(-1, kRequest, source);
    take(source, message);
  }
  const std::function<void()> serve = [&] {
    exit_if_orphaned();
    while (poll_text(-1, kRequest, source, message)) take(source, message);
  };
  while (next < tasks.size()) {
    const std::int64_t task = tasks[next++];
    const std::string result = run(task, serve);
    done(task, 0, result);
    serve();
  }
  while (busy > 0) {
    message = wait_text(-1, kRequest, source);
    take(source, message);
  }
  const std::string text = closing();
  for (int r = 1; r < size(); ++r) send_text(r, kReply, kStop + text);
  return text;
}

std::string follow(const TaskRunner& run) {
  const std::function<void()> watch = [] { exit_if_orphaned(); };
  send_text(0, kRequest, "-1\n");
  int source = 0;
  for (;;) {
    const std::string reply = wait_text(0, kReply, source);
    if (reply.rfind(kStop, 0) == 0) return reply.substr(kStop.size());
    const std::int64_t task = std::stoll(reply);
    send_text(0, kRequest, std::to_string(task) + "\n" + run(task, watch));
  }
}

}  // namespace

std::string run_work_queue(const std::vector<std::int64_t>& tasks, const TaskRunner& run,
                           const std::function<void(std::int64_t task, int rank, const std::string& result)>& done,
                           const std::function<std::string()>& closing) {
  try {
    return rank() == 0 ? lead(tasks, run, done, closing) : follow(run);
  } catch (const std::exception& e) {
    if (size() == 1) throw;
    std::fflush(stdout);
    std::fprintf(stderr, "error: rank %d: %s\n", rank(), e.what());
    abort(2);
  }
}

}  // namespace ablate::graph::distributed
