// A strict recursive-descent JSON parser and the results-file reader (see results_reader.h).
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

const JsonValue kNull;

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}
  JsonValue document() {
    JsonValue v = value(0);
    space();
    if (i_ != s_.size()) fail("end of input");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& expected) const {
    std::string found = i_ < s_.size() ? "'" + std::string(1, s_[i_]) + "'" : "end of input";
    throw std::invalid_argument("JSON at offset " + std::to_string(i_) + ": " + found + ", expected " + expected);
  }
  void space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void word(const char* w) {
    for (const char* p = w; *p; ++p, ++i_)
      if (i_ >= s_.size() || s_[i_] != *p) fail(std::string("'") + w + "'");
  }
  JsonValue value(int depth) {
    if (depth > 64) fail("less nesting");
    space();
    if (i_ >= s_.size()) fail("a value");
    JsonValue v;
    char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.kind = JsonValue::Kind::object;
      if (eat('}')) return v;
      do {
        space();
        if (i_ >= s_.size() || s_[i_] != '"') fail("a member name");
        std::string k = string();
        if (!eat(':')) fail("':'");
        v.members[k] = value(depth + 1);
      } while (eat(','));
      if (!eat('}')) fail("',' or '}'");
    } else if (c == '[') {
      ++i_;
      v.kind = JsonValue::Kind::array;
      if (eat(']')) return v;
      do v.items.push_back(value(depth + 1));
      while (eat(','));
      if (!eat(']')) fail("',' or ']'");
    } else if (c == '"') {
      v.kind = JsonValue::Kind::string;
      v.text = string();
    } else if (c == 't' || c == 'f') {
      v.kind = JsonValue::Kind::boolean;
      v.boolean = c == 't';
      word(v.boolean ? "true" : "false");
    } else if (c == 'n') {
      word("null");
    } else {
      v.kind = JsonValue::Kind::number;
      v.number = number();
    }
    return v;
  }
  double number() {
    std::size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    auto digits = [&] {
      std::size_t d = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      if (i_ == d) fail("a digit");
    };
    digits();
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      digits();
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      digits();
    }
    return std::strtod(s_.substr(start, i_ - start).c_str(), nullptr);
  }
  static void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) out += static_cast<char>(cp);
    else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  std::string string() {
    ++i_;  // the opening quote
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail("'\"' closing the string");
      char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) { --i_; fail("no control character in a string"); }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("an escape");
      char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (i_ + 4 > s_.size()) fail("four hex digits");
          unsigned cp = 0;
          for (int k = 0; k < 4; ++k) {
            char h = s_[i_++];
            cp <<= 4;
            if (h >= '0' && h <= '9') cp |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f') cp |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') cp |= static_cast<unsigned>(h - 'A' + 10);
            else { --i_; fail("a hex digit"); }
          }
          utf8(out, cp);
          break;
        }
        default: --i_; fail("an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
      }
    }
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

}  // namespace

const JsonValue& JsonValue::operator[](const std::string& key) const {
  if (kind != Kind::object) return kNull;
  auto it = members.find(key);
  return it == members.end() ? kNull : it->second;
}

const JsonValue& JsonValue::at_path(const std::string& path) const {
  const JsonValue* v = this;
  std::stringstream in(path);
  for (std::string part; std::getline(in, part, '.');) v = &(*v)[part];
  return *v;
}

std::string JsonValue::str(const std::string& fallback) const {
  if (kind == Kind::string) return text;
  if (kind == Kind::boolean) return boolean ? "true" : "false";
  if (kind == Kind::number) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", number);
    return buf;
  }
  return fallback;
}

JsonValue parse_json(const std::string& text) { return Parser(text).document(); }

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
      JsonValue v = parse_json(line);
      if (v.kind != JsonValue::Kind::object) throw std::invalid_argument("a record is a JSON object");
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
