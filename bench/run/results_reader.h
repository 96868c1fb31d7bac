// Reader of results files (.jsonl, one result record per line, as result_record.h writes them):
// a small strict JSON parser (objects, arrays, strings with the usual escapes, numbers, true,
// false, null) and a line reader that skips a damaged line (a partial last line after a crash,
// garbage) and reports it by line number instead of failing, so sweeps can resume and reports
// can be written from what is intact.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ablate::bench::run {

class JsonValue {
 public:
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<JsonValue> items;               // array
  std::map<std::string, JsonValue> members;   // object

  bool is_null() const { return kind == Kind::null; }
  // Member `key` of an object; a null value when absent or when this is not an object.
  const JsonValue& operator[](const std::string& key) const;
  // Follows a dotted path: "metrics.accuracy".
  const JsonValue& at_path(const std::string& path) const;
  double num(double fallback = 0) const { return kind == Kind::number ? number : fallback; }
  std::string str(const std::string& fallback = "") const;  // strings as they are, numbers as %g
};

// Parses one JSON document; throws std::invalid_argument naming the offset and what was expected.
JsonValue parse_json(const std::string& text);

struct DamagedLine {
  std::int64_t line = 0;  // 1-based
  std::string reason;
};

struct ResultsFile {
  std::vector<JsonValue> records;
  std::vector<std::int64_t> record_lines;  // the line of each record
  std::vector<DamagedLine> damaged;
};

// Reads `path`; a missing file is an empty result. Blank lines are ignored.
ResultsFile read_results(const std::string& path);
// Removes a damaged last line without a newline (a run cut short while appending), so that the
// next append starts on a line of its own. Returns true when it truncated.
bool drop_partial_last_line(const std::string& path);

}  // namespace ablate::bench::run
