// A small streaming JSON writer for result records (one object per line in a .jsonl file).
// Numbers that are not finite are written as null, as JSON has no NaN.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ablate::bench::run {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const std::string& k);
  JsonWriter& value(const std::string& v);
  JsonWriter& value(const char* v) { return value(std::string(v)); }
  JsonWriter& value(double v);
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(bool v);
  JsonWriter& null();
  template <class T> JsonWriter& field(const std::string& k, const T& v) { return key(k).value(v); }
  const std::string& str() const { return out_; }

 private:
  void separator();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

std::string json_escape(const std::string& s);

}  // namespace ablate::bench::run
