// Strict parsing of the numbers and booleans written in model and preset files: the whole
// token must be the value ("5", "1e-4", "0.00390625", "true"); "5x", "", "nan" are rejected.
#pragma once

#include <optional>
#include <string>

namespace ablate::models {

std::optional<long long> parse_integer(const std::string& text);  // decimal, optional sign
std::optional<double> parse_real(const std::string& text);        // finite decimal or exponent form
std::optional<bool> parse_bool(const std::string& text);          // "true" | "false"

}  // namespace ablate::models
