// Number formatting shared by the command line's messages and tables.
#pragma once

#include <cstdio>
#include <string>

namespace ablate::bench {

// The shortest natural form of a number in messages: %g ("0.001", "1e+06", "64").
inline std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace ablate::bench
