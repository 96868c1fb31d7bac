// The options given to one command: each by name (without the dashes) with its text as given;
// a switch that takes no value holds "true". The command line (bench/cli, parsed by CLI11)
// hands them to the commands and to resolve_run_config; compare, sweep and paper write them
// themselves for the runs they start (a sweep's point is a set of flags). FlagSpec describes an
// option for the command line and its --help. Typed reads throw naming the flag and its value:
// "--batch 12x: expected a whole number", "--batch -4: expected a number of at least 1".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ablate::bench::run {

struct FlagSpec {
  std::string name;     // without the dashes: "batch"
  std::string metavar;  // "N"; empty for a switch that takes no value
  std::string help;
  bool repeatable = false;  // every occurrence is kept (--vary), not only the last
  bool positional = false;  // given without a name: ablate paper NAME
};

class Flags {
 public:
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  // The value (the last one given), or `fallback`.
  std::string get(const std::string& name, const std::string& fallback = "") const;
  // Every value of a repeatable option, in the order given.
  std::vector<std::string> all(const std::string& name) const;
  // A whole number of at least `min`, or `fallback` when not given.
  std::int64_t get_int(const std::string& name, std::int64_t fallback, std::int64_t min) const;
  double get_double(const std::string& name, double fallback) const;

  void set(const std::string& name, const std::string& value) { values_[name] = {value}; }
  void add(const std::string& name, const std::string& value) { values_[name].push_back(value); }
  void erase(const std::string& name) { values_.erase(name); }
  // Each option's (last) value.
  std::map<std::string, std::string> values() const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
};

// Values of options and preset keys; each throws naming `what` (the flag or the preset line)
// and the text.
std::int64_t parse_int(const std::string& text, const std::string& what);          // a whole number
double parse_double(const std::string& text, const std::string& what);              // a finite number
bool parse_switch(const std::string& text, const std::string& what);                // on/off, true/false, yes/no, 1/0
// A thread count: 'all' (the logical cores) or 1 to kMaxThreadsPerCore x the logical cores;
// above that it is refused naming the allowed range (--threads 10000 asked for 2 GB of stacks
// and 55 s for 5 steps on 2 cores).
int parse_thread_count(const std::string& text, const std::string& what);
constexpr int kMaxThreadsPerCore = 8;
int logical_cores();  // std::thread::hardware_concurrency, at least 1
// More threads than logical cores stays allowed (oversubscription is a factor a study may
// vary), with a warning on stderr naming both numbers, once per process and flag.
void warn_if_oversubscribed(int threads, const std::string& what);

}  // namespace ablate::bench::run
