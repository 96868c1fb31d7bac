// Option parsing for the ablate subcommands.
#include "bench/run/arg_parser.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace ablate::bench::run {

std::int64_t parse_int(const std::string& text, const std::string& what) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE)
    throw std::invalid_argument(what + " " + (text.empty() ? "(empty)" : text) + ": expected a whole number");
  return v;
}

double parse_double(const std::string& text, const std::string& what) {
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    throw std::invalid_argument(what + " " + (text.empty() ? "(empty)" : text) + ": expected a finite number");
  return v;
}

std::string ParsedArgs::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

std::int64_t ParsedArgs::get_int(const std::string& name, std::int64_t fallback, std::int64_t min) const {
  if (!has(name)) return fallback;
  std::int64_t v = parse_int(get(name), "--" + name);
  if (v < min)
    throw std::invalid_argument("--" + name + " " + get(name) + ": expected a number of at least " +
                                std::to_string(min));
  return v;
}

double ParsedArgs::get_double(const std::string& name, double fallback) const {
  return has(name) ? parse_double(get(name), "--" + name) : fallback;
}

ArgParser::ArgParser(std::string command, std::string summary, std::vector<OptionSpec> options)
    : command_(std::move(command)), summary_(std::move(summary)), options_(std::move(options)) {}

const OptionSpec* ArgParser::find(const std::string& name) const {
  for (const auto& o : options_)
    if (o.name == name) return &o;
  return nullptr;
}

ParsedArgs ArgParser::parse(int argc, char** argv, int first) const {
  ParsedArgs args;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      args.help = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0)
      throw std::invalid_argument("'" + arg + "' is not an option of '" + command_ + "' (see " + command_ + " --help)");
    std::string name = arg.substr(2), value;
    auto eq = name.find('=');
    bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const OptionSpec* spec = find(name);
    if (!spec) throw std::invalid_argument("unknown option --" + name + " for '" + command_ + "' (see " + command_ + " --help)");
    if (spec->metavar.empty()) {
      if (inline_value) throw std::invalid_argument("option --" + name + " takes no value");
      value = "true";
    } else if (!inline_value) {
      if (i + 1 >= argc) throw std::invalid_argument("option --" + name + " needs a value (" + spec->metavar + ")");
      value = argv[++i];
    }
    args.values_[name] = value;
  }
  return args;
}

std::string ArgParser::help() const {
  std::ostringstream out;
  out << "usage: " << command_ << " [options]\n\n" << summary_ << "\n\noptions:\n";
  for (const auto& o : options_) {
    std::string left = "  --" + o.name + (o.metavar.empty() ? "" : " " + o.metavar);
    out << left;
    if (left.size() < 26) out << std::string(26 - left.size(), ' ');
    else out << "\n" << std::string(26, ' ');
    out << o.help << "\n";
  }
  out << "  --help                  this text\n";
  return out.str();
}

}  // namespace ablate::bench::run
