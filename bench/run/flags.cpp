// Options given to a command and the parsing of their values (flags.h).
#include "bench/run/flags.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
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

int parse_thread_count(const std::string& text, const std::string& what) {
  if (text == "all") return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::int64_t n = parse_int(text, what);
  if (n < 1) throw std::invalid_argument(what + " " + text + ": expected a positive count or 'all'");
  return static_cast<int>(n);
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
