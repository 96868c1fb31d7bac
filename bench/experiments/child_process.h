// Runs a piece of work in a forked child process and brings back the text it returns, as the
// study ran each framework in its own process: `ablate compare` trains each framework in a
// fresh child, so one run's memory, threads and allocator state never reach the next one's
// figures (peak RSS above all), and a crash is one failed row, not a lost comparison.
//
// The caller must not have started threads of its own (OpenMP, the loader, the monitor)
// before forking; OpenBLAS's pool is shut down and restarted by its own fork handlers.
#pragma once

#include <functional>
#include <string>

namespace ablate::bench::experiments {

struct ChildOutcome {
  bool ok = false;     // the body returned normally
  std::string text;    // what it returned
  std::string error;   // the exception it threw, or how the process ended
};

// `while_waiting`, if given, runs in the parent about every 50 ms while the child works (a
// distributed sweep's rank 0 answers the other ranks from there); if it throws, the child is
// killed and the exception passes on.
ChildOutcome run_in_child(const std::function<std::string()>& body, const std::function<void()>& while_waiting = {});

}  // namespace ablate::bench::experiments
