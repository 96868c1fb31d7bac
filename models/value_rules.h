// What a value in a model or preset file may be: the rules behind the per-key checks that
// turn a typo into an error naming file, line, key, the value and what was expected.
#pragma once

#include <string>
#include <vector>

namespace ablate::models {

enum class ValueKind {
  integer,               // any decimal integer
  positive_integer,      // >= 1
  non_negative_integer,  // >= 0
  odd_positive_integer,  // 1, 3, 5, ... (LRN window, as Caffe requires)
  real,                  // any finite number
  positive_real,         // > 0
  non_negative_real,     // >= 0
  keep_probability,      // in (0, 1]
  boolean,               // true | false
  choice,                // one of `choices`
  thread_count,          // a positive integer or "all"
  integer_list,          // comma-separated non-negative integers ("5000,8000")
  initializer,           // an initializer rule (models/initializers.h)
  word,                  // any single token
  name_list,             // comma-separated names, none empty (a layer's inputs: "a,b")
  text,                  // free text
};

struct ValueRule {
  ValueKind kind = ValueKind::text;
  std::vector<std::string> choices;  // for ValueKind::choice
};

// "a positive integer", "one of max|avg", ...
std::string describe(const ValueRule& rule);
// Empty when `value` satisfies `rule`; otherwise what is wrong, e.g.
// "expects a positive integer, got '0'" or "expects an integer, got '5x' (not a number)".
std::string value_problem(const ValueRule& rule, const std::string& value);

}  // namespace ablate::models
