// The contract every fuzz target checks: a reader either accepts its input or rejects it with
// std::invalid_argument or std::runtime_error carrying a message (the project's errors for bad
// input). Any other exception escapes to libFuzzer, which reports it as a crash; so do
// sanitizer reports, hangs, leaks and the invariant checks of each target (fuzz_check).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace ablate::fuzz {

// Runs `read`; returns true when it returned, false when it rejected its input cleanly.
template <class Read>
bool accepts(Read&& read) {
  try {
    read();
    return true;
  } catch (const std::invalid_argument& e) {
    if (std::strlen(e.what()) == 0) std::abort();  // an error must say what was wrong
  } catch (const std::runtime_error& e) {
    if (std::strlen(e.what()) == 0) std::abort();
  }
  return false;
}

// An invariant of accepted data; a failure is a finding.
inline void fuzz_check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

}  // namespace ablate::fuzz
