// Number formatting shared by the command line's messages and tables.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

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

}  // namespace ablate::bench::run
