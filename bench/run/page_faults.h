// Page faults of the training steps (the speed target: "no page faults inside a training step").
// A minor fault is the kernel mapping a page on first touch (fresh malloc'd or mmap'd memory,
// a buffer freed back to the system and taken again); a major fault also reads from disk.
// Counted with getrusage(RUSAGE_SELF), so every thread of the process counts: the op pools'
// and the resource monitor's (which touches next to nothing).
#pragma once

#include <cstdint>
#include <vector>

namespace ablate::bench::run {

// The process's fault counters so far (getrusage ru_minflt, ru_majflt).
struct FaultCount {
  std::int64_t minor = 0, major = 0;
};
FaultCount process_faults();

// Accumulates the faults of each timed step: begin() before the step, end() after it;
// pause() and resume() leave out an untimed part inside (the batch accuracy of TF MNIST).
// The first step is kept apart, since it allocates what later steps reuse (the caching
// allocator's blocks, a static session's plan, the libraries' workspaces).
class StepFaults {
 public:
  void begin();
  void pause();
  void resume() { mark_ = process_faults(); }
  void end();

  std::int64_t steps() const { return steps_; }
  std::int64_t minor() const { return minor_; }            // every counted step
  std::int64_t major() const { return major_; }
  std::int64_t first_step_minor() const { return first_minor_; }
  // Mean minor faults of the steps after the first (0 with fewer than two steps). A warm-up tail
  // (a few early steps that still map fresh pages) weighs in it.
  double minor_per_step() const;
  // Median minor faults of the steps after the first (0 with fewer than two steps): the steady
  // state, which a warm-up tail of a few steps does not move. TF MNIST on the refcount memory
  // (onednn, 2 threads): mean 440 over 10 steps, 40 over 40, 10 over 150, from the same tail.
  double median_minor_per_step() const;

 private:
  FaultCount mark_, current_;  // the counters when last resumed; this step's faults so far
  std::int64_t steps_ = 0, minor_ = 0, major_ = 0, first_minor_ = 0;
  std::vector<std::int64_t> later_minor_;  // each step's minor faults after the first
};

}  // namespace ablate::bench::run
