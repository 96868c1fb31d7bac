// How ablate's OpenMP threads wait at a barrier, chosen once per process. libgomp,
// which runs the OpenMP loops of kernels/cpu, spins 300,000 times before sleeping when nothing
// is set: on a quiet machine the fastest, but when another process holds one of the cores a
// 2-thread run spins away the time slices its partner needs and LeNet's speed collapses tenfold
// (docs/benchmarks.md, "Threads on a shared machine"). libgomp reads OMP_WAIT_POLICY and
// GOMP_SPINCOUNT only when it is loaded, so a choice made by ablate needs a fresh start:
//
//   ablate run ...            the user set neither variable, no --wait-policy
//     -> main: apply_wait_policy sets GOMP_SPINCOUNT=N and a marker, execv(its own path, read
//        from /proc/self/exe, so ps and top still show `ablate`; /proc/self/exe if it is gone)
//     -> the same process (same pid: mpirun, timeouts and parents see nothing) starts again,
//        libgomp reads the bounded spin count, apply_wait_policy finds the marker, records
//        the choice, removes the marker and the variable it set (child processes such as the
//        PyTorch yardstick get the user's environment as it was) and never executes again.
//
// Policies (--wait-policy on run, bench, compare, sweep and paper):
//   spin        libgomp's own default (300,000 spins, then sleep); nothing set, no re-execution
//   passive     OMP_WAIT_POLICY=passive: sleep at once
//   bounded[:N] GOMP_SPINCOUNT=N (default N: kDefaultSpinCount), then sleep: ablate's default
// A user's own OMP_WAIT_POLICY or GOMP_SPINCOUNT always wins (with --wait-policy too, which is
// then ignored with a warning); the record says which applied and why (environment keys
// wait_policy, wait_policy.source, wait_policy.variables, wait_policy.note).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/run/flags.h"

namespace ablate::bench::run {

// ablate's default spin count: measured with bench/scripts/loaded_machine.py (docs/benchmarks.md).
constexpr std::int64_t kDefaultSpinCount = 3000;

enum class WaitKind { spin, passive, bounded };

struct WaitPolicy {
  WaitKind kind = WaitKind::bounded;
  std::int64_t spin_count = kDefaultSpinCount;  // bounded only
};

// "spin", "passive", "bounded" or "bounded:N" (N >= 0); throws naming `what` and the text.
WaitPolicy parse_wait_policy(const std::string& text, const std::string& what);
std::string wait_policy_name(const WaitPolicy& policy);  // "bounded:3000"
// The variables that make libgomp wait so ({} for spin).
std::vector<std::pair<std::string, std::string>> wait_policy_variables(const WaitPolicy& policy);

// What this process runs with.
struct WaitPolicyChoice {
  std::string policy;     // "bounded:3000", "passive", "spin", or the user's "GOMP_SPINCOUNT=1000"
  std::string source;     // "ablate's default", "--wait-policy", "user environment", "not chosen"
  std::string variables;  // what libgomp read at start-up: "GOMP_SPINCOUNT=3000" ("" for none)
  std::string note;       // why, in a sentence
  bool reexecuted = false;  // this process image is the re-executed one
};

// Early in main, before anything else runs. For the commands in `training_commands` (argv[1]):
// chooses the policy from the user's environment, --wait-policy (read from argv; a malformed
// value is left for the command's own option check) and the default, and re-executes the
// process once when the choice needs variables that libgomp has not read. Returns only when
// no re-execution is needed or it failed (then the choice records why).
void apply_wait_policy(int argc, char** argv, const std::vector<std::string>& training_commands);

// The choice made by apply_wait_policy; in a process that did not start through it (the
// tests), what libgomp reads from the environment as it is.
WaitPolicyChoice wait_policy_choice();
// The choice as environment keys of the result record.
void add_wait_policy(std::map<std::string, std::string>& environment);

// The --wait-policy option, for the commands that train.
FlagSpec wait_policy_flag();
// Checks a --wait-policy value given to a command (the error names the flag).
void check_wait_policy_flag(const Flags& args);

// The marker variable carried across the one re-execution.
extern const char* const kWaitPolicyMarker;

}  // namespace ablate::bench::run
