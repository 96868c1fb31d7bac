// Command-line options of one `ablate` subcommand: `--name value` or `--flag`, with help text.
// An unknown option, a missing value or a malformed number is an error naming the option.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ablate::bench::run {

struct OptionSpec {
  std::string name;     // without the dashes: "batch"
  std::string metavar;  // "N"; empty for a flag without a value
  std::string help;
};

class ParsedArgs {
 public:
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  std::string get(const std::string& name, const std::string& fallback = "") const;
  // Integer option; throws "--NAME VALUE: expected ..." when malformed or below `min`.
  std::int64_t get_int(const std::string& name, std::int64_t fallback, std::int64_t min) const;
  double get_double(const std::string& name, double fallback) const;
  bool help = false;
  std::map<std::string, std::string> values_;
};

class ArgParser {
 public:
  ArgParser(std::string command, std::string summary, std::vector<OptionSpec> options);
  // Parses argv[first..argc).
  ParsedArgs parse(int argc, char** argv, int first) const;
  std::string help() const;

 private:
  const OptionSpec* find(const std::string& name) const;
  std::string command_, summary_;
  std::vector<OptionSpec> options_;
};

// Parses a whole decimal integer or throws naming `what`.
std::int64_t parse_int(const std::string& text, const std::string& what);
double parse_double(const std::string& text, const std::string& what);

}  // namespace ablate::bench::run
