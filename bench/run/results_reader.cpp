// The results-file reader and the reading of record fields (see results_reader.h).
#include "bench/run/results_reader.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ablate::bench::run {

namespace {
const nlohmann::json kNull;
}  // namespace

nlohmann::json parse_json(const std::string& text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 8: ..." -> what follows
    std::string what = e.what();
    const auto at = what.find("] ");
    if (at != std::string::npos) what = what.substr(at + 2);
    throw std::invalid_argument("JSON at offset " + std::to_string(e.byte) + ": " + what);
  }
}

const nlohmann::json& field(const nlohmann::json& value, const std::string& path) {
  const nlohmann::json* v = &value;
  std::stringstream in(path);
  for (std::string part; std::getline(in, part, '.');) {
    if (!v->is_object()) return kNull;
    const auto it = v->find(part);
    if (it == v->end()) return kNull;
    v = &*it;
  }
  return *v;
}

double number_of(const nlohmann::json& value, double fallback) {
  return value.is_number() ? value.get<double>() : fallback;
}

std::string text_of(const nlohmann::json& value, const std::string& fallback) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", value.get<double>());
    return buf;
  }
  return fallback;
}

ResultsFile read_results(const std::string& path) {
  ResultsFile out;
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  std::string line;
  std::int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      nlohmann::json v = parse_json(line);
      if (!v.is_object()) throw std::invalid_argument("a record is a JSON object");
      out.records.push_back(std::move(v));
      out.record_lines.push_back(number);
    } catch (const std::exception& e) {
      out.damaged.push_back({number, e.what()});
    }
  }
  return out;
}

bool drop_partial_last_line(const std::string& path) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec || size == 0) return false;
  std::ifstream in(path, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.back() == '\n') return false;
  auto last = data.find_last_of('\n');
  std::size_t keep = last == std::string::npos ? 0 : last + 1;
  if (::truncate(path.c_str(), static_cast<off_t>(keep)) != 0)
    throw std::runtime_error("results file " + path + ": cannot remove its partial last line");
  return true;
}

}  // namespace ablate::bench::run
