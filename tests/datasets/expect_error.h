// EXPECT_ERROR_CONTAINS: the statement throws std::exception of the given type whose
// message contains every listed fragment (the file, the bad value, what was expected).
#pragma once

#include <initializer_list>
#include <string>

#include <gtest/gtest.h>

namespace ablate::datasets::testing {

template <class E, class F>
void expect_error_contains(F&& statement, std::initializer_list<std::string> fragments, const char* where) {
  SCOPED_TRACE(where);
  try {
    statement();
  } catch (const E& e) {
    const std::string message = e.what();
    for (const auto& fragment : fragments)
      EXPECT_NE(message.find(fragment), std::string::npos)
          << "message lacks \"" << fragment << "\":\n  " << message;
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw the wrong exception type: " << e.what();
    return;
  }
  ADD_FAILURE() << "did not throw";
}

}  // namespace ablate::datasets::testing

#define ABLATE_DATASETS_STR2(x) #x
#define ABLATE_DATASETS_STR(x) ABLATE_DATASETS_STR2(x)
#define EXPECT_ERROR_CONTAINS(E, statement, ...)                                                         \
  ::ablate::datasets::testing::expect_error_contains<E>([&] { statement; }, {__VA_ARGS__},             \
                                                          __FILE__ ":" ABLATE_DATASETS_STR(__LINE__))
