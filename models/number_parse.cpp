// Strict whole-token number parsing over std::from_chars (locale-independent).
#include "models/number_parse.h"

#include <charconv>
#include <cmath>

namespace ablate::models {
namespace {

// from_chars rejects a leading '+'; a model file may still write one.
const char* skip_plus(const std::string& text) {
  return text.size() > 1 && text[0] == '+' && text[1] != '-' ? text.data() + 1 : text.data();
}

}  // namespace

std::optional<long long> parse_integer(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const char* begin = skip_plus(text);
  const char* end = text.data() + text.size();
  long long value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<double> parse_real(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const char* begin = skip_plus(text);
  const char* end = text.data() + text.size();
  double value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<bool> parse_bool(const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return std::nullopt;
}

}  // namespace ablate::models
