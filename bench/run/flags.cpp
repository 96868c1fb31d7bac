// Options given to a command and the parsing of their values (flags.h).
#include "bench/run/flags.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <thread>

namespace ablate::bench::run {

std::int64_t parse_int(const std::string& text, const std::string& what) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE)
    throw std::invalid_argument(what + " " + (text.empty() ? "(empty)" : text) + ": expected a whole number");
  return v;
}

double parse_double(const std::string& text, const std::string& what) {
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    throw std::invalid_argument(what + " " + (text.empty() ? "(empty)" : text) + ": expected a finite number");
  return v;
}

bool parse_switch(const std::string& text, const std::string& what) {
  if (text == "on" || text == "true" || text == "1" || text == "yes") return true;
  if (text == "off" || text == "false" || text == "0" || text == "no") return false;
  throw std::invalid_argument(what + " " + text + ": expected on or off");
}

int logical_cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

int parse_thread_count(const std::string& text, const std::string& what) {
  if (text == "all") return logical_cores();
  const std::int64_t most = static_cast<std::int64_t>(kMaxThreadsPerCore) * logical_cores();
  const std::int64_t n = parse_int(text, what);
  if (n < 1 || n > most)
    throw std::invalid_argument(what + " " + text + ": expected 1 to " + std::to_string(most) + " (" +
                                std::to_string(kMaxThreadsPerCore) + " x this machine's " + std::to_string(logical_cores()) +
                                " logical cores) or 'all'");
  return static_cast<int>(n);
}

void warn_if_oversubscribed(int threads, const std::string& what) {
  static std::set<std::string> warned;  // once per flag: compare resolves every framework from the same flags
  if (threads <= logical_cores() || !warned.insert(what).second) return;
  std::fprintf(stderr,
               "ablate: warning: %s %d is more than this machine's %d logical cores: the threads take turns on the "
               "cores, which can make training many times slower (allowed: oversubscription is a factor a study may "
               "vary)\n",
               what.c_str(), threads, logical_cores());
}

std::string Flags::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() || it->second.empty() ? fallback : it->second.back();
}

std::vector<std::string> Flags::all(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::int64_t Flags::get_int(const std::string& name, std::int64_t fallback, std::int64_t min) const {
  if (!has(name)) return fallback;
  std::int64_t v = parse_int(get(name), "--" + name);
  if (v < min)
    throw std::invalid_argument("--" + name + " " + get(name) + ": expected a number of at least " +
                                std::to_string(min));
  return v;
}

double Flags::get_double(const std::string& name, double fallback) const {
  return has(name) ? parse_double(get(name), "--" + name) : fallback;
}

std::map<std::string, std::string> Flags::values() const {
  std::map<std::string, std::string> out;
  for (const auto& [name, list] : values_)
    if (!list.empty()) out[name] = list.back();
  return out;
}

}  // namespace ablate::bench::run
