// How much of the machine other processes took while a measurement ran: the CPU
// time every CPU spent busy (/proc/stat: user, nice, system, irq, softirq) minus this process's
// own (utime + stime of /proc/self/stat, with its reaped children from getrusage, so a PyTorch
// yardstick that ablate ran and waited for counts as its own), and the steal time a hypervisor
// took from the virtual CPUs. Both in cores: CPU seconds over wall seconds, 1.0 = one core.
// The study ran its frameworks on dedicated machines; on a shared one, a measurement during
// which others held a core says more about the neighbours than about the framework.
#pragma once

#include "bench/run/flags.h"

namespace ablate::bench::run {

// A reading of the counters at one instant.
struct CpuCounters {
  double wall_s = 0;
  double busy_s = 0;   // every CPU, in CPU seconds; steal and idle excluded
  double steal_s = 0;
  double own_s = 0;    // this process and its reaped children
  int cpus = 0;        // CPUs listed in /proc/stat
  bool known = false;  // /proc/stat was readable
};
CpuCounters read_cpu_counters();

// What others took between two readings.
struct Disturbance {
  double others_cores = 0;  // other processes' CPU seconds / wall seconds (never below 0)
  double steal_cores = 0;   // steal seconds / wall seconds
  double wall_s = 0;
  int cpus = 0;
  bool known = false;
};
Disturbance disturbance_between(const CpuCounters& before, const CpuCounters& after);

// The share of a core that others may use before a measurement counts as disturbed.
constexpr double kDefaultDisturbedAbove = 0.25;
// The process's threshold: kDefaultDisturbedAbove unless --disturbed-above set it (read where
// a run's record is written, so that compare's forked runs follow its flag).
double disturbed_above();
void set_disturbed_above(double cores);
bool is_disturbed(const Disturbance& d, double threshold);

// "others used 0.90 cores on average, steal 0.00"
std::string disturbance_text(const Disturbance& d);

// --wait-quiet: watches one-second windows until one has others below `threshold` or `max_s`
// have passed (at least one window; the last may end up to a second after `max_s`).
struct QuietWait {
  bool came = false;
  double waited_s = 0;
  Disturbance last;  // the last second watched
};
QuietWait wait_for_quiet(double max_s, double threshold);
// The line that says whether it came: "quiet after 1.0 s (others 0.05 cores)" or
// "not quiet within 30 s (others used 1.02 cores in the last second): measuring anyway".
std::string quiet_wait_text(const QuietWait& w, double max_s);

// The options, for the commands that measure.
FlagSpec disturbed_above_flag();  // --disturbed-above FRACTION
FlagSpec wait_quiet_flag();       // --wait-quiet SECONDS
// Reads --disturbed-above into the process's threshold (checked: a number >= 0) and returns it.
double read_disturbed_above(const Flags& args);
// Reads --wait-quiet (a number of seconds >= 0; 0 when absent: no waiting).
double read_wait_quiet(const Flags& args);

}  // namespace ablate::bench::run
