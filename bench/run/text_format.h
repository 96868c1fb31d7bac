// Number formatting and comma-separated lists, shared by the command line's messages and tables.
#pragma once

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace ablate::bench::run {

// The shortest natural form of a number in messages: %g ("0.001", "1e+06", "64").
inline std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// One number through a printf format: fmt("%.2f", 3.14159) == "3.14".
inline std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// Bytes as MiB for tables: mib_text(3 << 20) == "3 MiB"; `decimals` digits after the point.
inline std::string mib_text(std::int64_t bytes, int decimals = 0) {
  char format[16];
  std::snprintf(format, sizeof format, "%%.%df MiB", decimals);
  return fmt(format, static_cast<double>(bytes) / (1024.0 * 1024.0));
}

// "a,b,,c" -> {"a", "b", "", "c"} (no item after a trailing comma; none for ""); with
// `skip_empty`, {"a", "b", "c"}.
inline std::vector<std::string> split_list(const std::string& text, bool skip_empty = false) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!(skip_empty && item.empty())) items.push_back(item);
  return items;
}

// {"a", "b"} -> "a, b" with separator ", ".
inline std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

}  // namespace ablate::bench::run
