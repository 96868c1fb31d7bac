// Test helper: runs a call that must throw std::invalid_argument and checks that the message
// holds every expected fragment (the source:line, the key, the bad value, the expectation).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ablate::models::testing {

inline std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected std::invalid_argument, nothing was thrown";
  return "";
}

inline void expect_error(const std::function<void()>& call, const std::vector<std::string>& fragments) {
  const std::string message = error_of(call);
  for (const auto& fragment : fragments)
    EXPECT_NE(message.find(fragment), std::string::npos) << "missing '" << fragment << "' in: " << message;
}

}  // namespace ablate::models::testing
