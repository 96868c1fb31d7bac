// Comment stripping and tokenizing of the model and preset text formats.
#include "models/text_lines.h"

#include <algorithm>
#include <sstream>

namespace ablate::models {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::string trim(const std::string& s) {
  std::size_t begin = 0, end = s.size();
  while (begin < end && is_space(s[begin])) ++begin;
  while (end > begin && is_space(s[end - 1])) --end;
  return s.substr(begin, end - begin);
}

}  // namespace

std::vector<TextLine> split_text_lines(const std::string& text) {
  std::vector<TextLine> lines;
  std::istringstream in(text);
  std::string raw;
  int number = 0;
  while (std::getline(in, raw)) {
    ++number;
    std::string content = trim(raw.substr(0, raw.find('#')));
    if (content.empty()) continue;
    TextLine line;
    line.number = number;
    std::istringstream words(content);
    for (std::string word; words >> word;) line.tokens.push_back(word);
    line.rest = trim(content.substr(line.tokens.front().size()));
    lines.push_back(std::move(line));
  }
  return lines;
}

int last_line_number(const std::string& text) {
  int newlines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  bool ends_with_newline = !text.empty() && text.back() == '\n';
  return std::max(1, ends_with_newline ? newlines : newlines + 1);
}

}  // namespace ablate::models
