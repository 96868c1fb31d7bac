// The line structure shared by model files (models/zoo/*.model) and presets
// (models/presets/*.preset): '#' starts a comment that runs to the end of the line, blank
// lines are skipped, the rest is cut into whitespace-separated tokens.
#pragma once

#include <string>
#include <vector>

namespace ablate::models {

struct TextLine {
  int number = 0;                   // 1-based line number in the source
  std::vector<std::string> tokens;  // at least one
  std::string rest;                 // the text after the first token, trimmed (a preset's value)
};

// Lines holding something other than a comment, in order.
std::vector<TextLine> split_text_lines(const std::string& text);
// Number of the last line of `text` (1 for an empty text), for "missing ..." errors.
int last_line_number(const std::string& text);

}  // namespace ablate::models
