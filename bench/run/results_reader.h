// Reader of results files (.jsonl, one result record per line, as result_record.h writes them),
// parsed by nlohmann-json (strict JSON). A damaged line (a partial last line after a crash,
// garbage) is skipped and reported by line number instead of failing, so sweeps can resume and
// reports can be written from what is intact. Fields are read by dotted path
// ("metrics.accuracy"), a missing one as null.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ablate::bench::run {

// Parses one JSON document; throws std::invalid_argument "JSON at offset N: ..." naming what
// was wrong.
nlohmann::json parse_json(const std::string& text);

// The value at a dotted path of an object ("sweep.point.batch"); null when a step is absent
// or not an object.
const nlohmann::json& field(const nlohmann::json& value, const std::string& path);
// A value as a number (the fallback unless it is one), or as text: strings as they are, numbers
// as %g, booleans as true or false (the fallback for null, arrays and objects).
double number_of(const nlohmann::json& value, double fallback = 0);
std::string text_of(const nlohmann::json& value, const std::string& fallback = "");

struct DamagedLine {
  std::int64_t line = 0;  // 1-based
  std::string reason;
};

struct ResultsFile {
  std::vector<nlohmann::json> records;     // each a JSON object
  std::vector<std::int64_t> record_lines;  // the line of each record
  std::vector<DamagedLine> damaged;
};

// Reads `path`; a missing file is an empty result. Blank lines are ignored.
ResultsFile read_results(const std::string& path);
// Removes a damaged last line without a newline (a run cut short while appending), so that the
// next append starts on a line of its own. Returns true when it truncated.
bool drop_partial_last_line(const std::string& path);

}  // namespace ablate::bench::run
