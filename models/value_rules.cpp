// Checks of single values against a ValueRule, shared by the model and preset parsers.
#include "models/value_rules.h"

#include <stdexcept>

#include "models/initializers.h"
#include "models/number_parse.h"

namespace ablate::models {
namespace {

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

bool is_integer_kind(ValueKind kind) {
  return kind == ValueKind::integer || kind == ValueKind::positive_integer ||
         kind == ValueKind::non_negative_integer || kind == ValueKind::odd_positive_integer;
}

bool is_real_kind(ValueKind kind) {
  return kind == ValueKind::real || kind == ValueKind::positive_real ||
         kind == ValueKind::non_negative_real || kind == ValueKind::keep_probability;
}

bool integer_in_range(ValueKind kind, long long v) {
  switch (kind) {
    case ValueKind::positive_integer: return v >= 1;
    case ValueKind::non_negative_integer: return v >= 0;
    case ValueKind::odd_positive_integer: return v >= 1 && v % 2 == 1;
    default: return true;
  }
}

bool real_in_range(ValueKind kind, double v) {
  switch (kind) {
    case ValueKind::positive_real: return v > 0;
    case ValueKind::non_negative_real: return v >= 0;
    case ValueKind::keep_probability: return v > 0 && v <= 1;
    default: return true;
  }
}

std::string integer_list_problem(const std::string& value) {
  std::size_t begin = 0;
  while (true) {
    std::size_t comma = value.find(',', begin);
    std::string item = value.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    auto v = parse_integer(item);
    if (!v || *v < 0) return "item '" + item + "' is not a non-negative integer";
    if (comma == std::string::npos) return "";
    begin = comma + 1;
  }
}

}  // namespace

std::string describe(const ValueRule& rule) {
  switch (rule.kind) {
    case ValueKind::integer: return "an integer";
    case ValueKind::positive_integer: return "a positive integer";
    case ValueKind::non_negative_integer: return "a non-negative integer";
    case ValueKind::odd_positive_integer: return "an odd positive integer";
    case ValueKind::real: return "a number";
    case ValueKind::positive_real: return "a positive number";
    case ValueKind::non_negative_real: return "a non-negative number";
    case ValueKind::keep_probability: return "a number in (0, 1]";
    case ValueKind::boolean: return "true or false";
    case ValueKind::choice: return "one of " + join(rule.choices, "|");
    case ValueKind::thread_count: return "a positive integer or 'all'";
    case ValueKind::integer_list: return "comma-separated non-negative integers";
    case ValueKind::initializer: return "an initializer rule";
    case ValueKind::word: return "a word";
    case ValueKind::name_list: return "comma-separated layer names";
    case ValueKind::text: return "text";
  }
  return "a value";
}

std::string value_problem(const ValueRule& rule, const std::string& value) {
  const std::string got = ", got '" + value + "'";
  const std::string expects = "expects " + describe(rule);
  if (is_integer_kind(rule.kind)) {
    auto v = parse_integer(value);
    if (!v) return expects + got + " (not an integer)";
    return integer_in_range(rule.kind, *v) ? "" : expects + got;
  }
  if (is_real_kind(rule.kind)) {
    auto v = parse_real(value);
    if (!v) return expects + got + " (not a number)";
    return real_in_range(rule.kind, *v) ? "" : expects + got;
  }
  switch (rule.kind) {
    case ValueKind::boolean:
      return parse_bool(value) ? "" : expects + got;
    case ValueKind::choice:
      for (const auto& c : rule.choices)
        if (c == value) return "";
      return expects + got;
    case ValueKind::thread_count: {
      if (value == "all") return "";
      auto v = parse_integer(value);
      return v && *v >= 1 ? "" : expects + got;
    }
    case ValueKind::integer_list: {
      std::string problem = integer_list_problem(value);
      return problem.empty() ? "" : expects + got + " (" + problem + ")";
    }
    case ValueKind::initializer:
      try {
        validate_initializer(value);
        return "";
      } catch (const std::invalid_argument& e) {
        return "expects an initializer rule; " + std::string(e.what());
      }
    case ValueKind::word:
      return value.empty() || value.find_first_of(" \t") != std::string::npos ? expects + got : "";
    case ValueKind::name_list:
      return value.empty() || value.front() == ',' || value.back() == ',' || value.find(",,") != std::string::npos ||
                     value.find_first_of(" \t") != std::string::npos
                 ? expects + got + " (an empty name)"
                 : "";
    default:
      return value.empty() ? expects + got : "";
  }
}

}  // namespace ablate::models
