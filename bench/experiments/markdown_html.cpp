// report.md as HTML (see markdown_html.h).
#include "bench/experiments/markdown_html.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "bench/experiments/html_page.h"
#include "graph/static/memory_plan_svg.h"

namespace ablate::bench::experiments {

namespace {

using graph::static_graph::markup_escaped;

bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Escaped text with `code` spans and [text](target) links.
std::string inline_html(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '`') {
      const auto end = text.find('`', i + 1);
      if (end != std::string::npos) {
        out += "<code>" + markup_escaped(text.substr(i + 1, end - i - 1)) + "</code>";
        i = end + 1;
        continue;
      }
    }
    if (text[i] == '[') {
      const auto close = text.find("](", i);
      const auto end = close == std::string::npos ? close : text.find(')', close);
      if (end != std::string::npos && text.find('[', i + 1) > close) {
        out += "<a href=\"" + markup_escaped(text.substr(close + 2, end - close - 2)) + "\">" +
               inline_html(text.substr(i + 1, close - i - 1)) + "</a>";
        i = end + 1;
        continue;
      }
    }
    out += markup_escaped(std::string(1, text[i]));
    ++i;
  }
  return out;
}

// "| a | b |" -> {"a", "b"}.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string inner = line.substr(1, line.size() >= 2 && line.back() == '|' ? line.size() - 2 : std::string::npos);
  std::stringstream in(inner);
  for (std::string cell; std::getline(in, cell, '|');) {
    const auto first = cell.find_first_not_of(' '), last = cell.find_last_not_of(' ');
    out.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  return out;
}

std::string table_html(const std::vector<std::string>& lines) {
  std::vector<bool> right;
  if (lines.size() > 1)
    for (const auto& c : cells(lines[1])) right.push_back(!c.empty() && c.back() == ':');
  auto row = [&](const std::string& line, const char* tag) {
    std::string html = "<tr>";
    const auto cs = cells(line);
    for (std::size_t i = 0; i < cs.size(); ++i)
      html += std::string("<") + tag + (i < right.size() && right[i] ? " style=\"text-align:right\"" : "") + ">" +
              inline_html(cs[i]) + "</" + tag + ">";
    return html + "</tr>\n";
  };
  std::string html = "<table>\n<thead>" + row(lines[0], "th") + "</thead>\n<tbody>\n";
  for (std::size_t i = 2; i < lines.size(); ++i) html += row(lines[i], "td");
  return html + "</tbody>\n</table>\n";
}

}  // namespace

std::string markdown_html(const std::string& markdown, const std::filesystem::path& dir) {
  std::vector<std::string> lines;
  std::istringstream in(markdown);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string html, paragraph;
  auto flush = [&] {
    if (!paragraph.empty()) html += "<p>" + inline_html(paragraph) + "</p>\n";
    paragraph.clear();
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty()) {
      flush();
    } else if (starts(line, "```")) {
      flush();
      std::string code;
      for (++i; i < lines.size() && !starts(lines[i], "```"); ++i) code += lines[i] + "\n";
      html += "<pre>" + markup_escaped(code) + "</pre>\n";
    } else if (starts(line, "#")) {
      flush();
      const std::size_t level = line.find_first_not_of('#');
      const std::string tag = "h" + std::to_string(level == std::string::npos ? 1 : std::min<std::size_t>(level, 6));
      html += "<" + tag + ">" + inline_html(line.substr(std::min(line.size(), level + 1))) + "</" + tag + ">\n";
    } else if (starts(line, "|")) {
      flush();
      std::vector<std::string> table;
      for (; i < lines.size() && starts(lines[i], "|"); ++i) table.push_back(lines[i]);
      --i;
      html += table_html(table);
    } else if (starts(line, "- ")) {
      flush();
      html += "<ul>\n";
      for (; i < lines.size() && starts(lines[i], "- "); ++i) html += "<li>" + inline_html(lines[i].substr(2)) + "</li>\n";
      --i;
      html += "</ul>\n";
    } else if (starts(line, "![") && line.find("](") != std::string::npos && line.back() == ')') {
      flush();
      const auto close = line.find("](");
      const std::string alt = line.substr(2, close - 2), file = line.substr(close + 2, line.size() - close - 3);
      html += "<p><img alt=\"" + markup_escaped(alt) + "\" src=\"" + png_data_uri(dir / file) + "\"></p>\n";
    } else {
      paragraph += (paragraph.empty() ? "" : " ") + line;
    }
  }
  flush();
  return html;
}

}  // namespace ablate::bench::experiments
