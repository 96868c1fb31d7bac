// Others' CPU time and steal from /proc/stat and getrusage; the wait for a quiet second (cpu_disturbance.h).
#include "bench/run/cpu_disturbance.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "bench/run/text_format.h"

namespace ablate::bench::run {

namespace {

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); }

double rusage_seconds(int who) {
  rusage u{};
  if (::getrusage(who, &u) != 0) return 0;
  return seconds(u.ru_utime) + seconds(u.ru_stime);
}

std::atomic<double>& threshold() {
  static std::atomic<double> cores{kDefaultDisturbedAbove};
  return cores;
}

}  // namespace

CpuCounters read_cpu_counters() {
  CpuCounters c;
  c.wall_s = now_s();
  c.own_s = rusage_seconds(RUSAGE_SELF) + rusage_seconds(RUSAGE_CHILDREN);
  std::ifstream in("/proc/stat");
  std::string line;
  const double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
  while (std::getline(in, line) && line.rfind("cpu", 0) == 0) {
    std::istringstream fields(line);
    std::string name;
    fields >> name;
    if (name != "cpu") {  // cpu0, cpu1, ...: counted
      ++c.cpus;
      continue;
    }
    // user nice system idle iowait irq softirq steal (guest time is inside user and nice)
    double v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (double& x : v) fields >> x;
    if (!fields || tick <= 0) return c;
    c.busy_s = (v[0] + v[1] + v[2] + v[5] + v[6]) / tick;
    c.steal_s = v[7] / tick;
    c.known = true;
  }
  return c;
}

Disturbance disturbance_between(const CpuCounters& before, const CpuCounters& after) {
  Disturbance d;
  d.wall_s = after.wall_s - before.wall_s;
  d.cpus = after.cpus;
  d.known = before.known && after.known && d.wall_s > 0;
  if (!d.known) return d;
  const double others = (after.busy_s - before.busy_s) - (after.own_s - before.own_s);
  d.others_cores = std::max(0.0, others / d.wall_s);
  d.steal_cores = std::max(0.0, (after.steal_s - before.steal_s) / d.wall_s);
  return d;
}

double disturbed_above() { return threshold().load(); }
void set_disturbed_above(double cores) { threshold().store(cores); }
bool is_disturbed(const Disturbance& d, double limit) { return d.known && d.others_cores > limit; }

std::string disturbance_text(const Disturbance& d) {
  if (!d.known) return "others' CPU unknown (/proc/stat unreadable)";
  return "others used " + fmt("%.2f", d.others_cores) + " cores on average, steal " + fmt("%.2f", d.steal_cores);
}

QuietWait wait_for_quiet(double max_s, double limit) {
  QuietWait w;
  const double start = now_s();
  do {
    const CpuCounters before = read_cpu_counters();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    w.last = disturbance_between(before, read_cpu_counters());
    w.waited_s = now_s() - start;
    if (!w.last.known || w.last.others_cores < limit) {
      w.came = w.last.known;
      return w;
    }
  } while (w.waited_s < max_s - 0.05);  // the last window may end up to a second after max_s
  return w;
}

std::string quiet_wait_text(const QuietWait& w, double max_s) {
  if (!w.last.known) return "cannot tell whether the machine is quiet (/proc/stat unreadable): measuring anyway";
  if (w.came) return "quiet after " + fmt("%.1f", w.waited_s) + " s (others used " + fmt("%.2f", w.last.others_cores) + " cores)";
  return "not quiet within " + number(max_s) + " s (others used " + fmt("%.2f", w.last.others_cores) +
         " cores in the last second): measuring anyway";
}

FlagSpec disturbed_above_flag() {
  return {"disturbed-above", "CORES",
          "flag a measurement during which other processes used more than CORES cores on average (default " +
              number(kDefaultDisturbedAbove) + ")"};
}

FlagSpec wait_quiet_flag() {
  return {"wait-quiet", "SECONDS",
          "before measuring, wait up to SECONDS for one second in which others stay below --disturbed-above"};
}

double read_disturbed_above(const Flags& args) {
  const double cores = args.get_double("disturbed-above", kDefaultDisturbedAbove);
  if (!(cores >= 0))
    throw std::invalid_argument("--disturbed-above " + args.get("disturbed-above") + ": expected a number of cores >= 0");
  set_disturbed_above(cores);
  return cores;
}

double read_wait_quiet(const Flags& args) {
  const double s = args.get_double("wait-quiet", 0);
  if (!(s >= 0)) throw std::invalid_argument("--wait-quiet " + args.get("wait-quiet") + ": expected seconds >= 0");
  return s;
}

}  // namespace ablate::bench::run
