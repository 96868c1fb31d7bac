// The Markdown that ablate's reports write (report.md of `compare --report`), as HTML for the
// self-contained index.html beside it: headings (#, ##, ###), paragraphs, "- " lists, pipe
// tables (with the ---: right alignment), fenced code, `code` spans and [text](target) links;
// an image line ![alt](FILE.png) becomes an <img> whose PNG, read from `dir`, is inline as a
// data URI, so the page fetches nothing. Only this subset: it is not a general Markdown reader.
#pragma once

#include <filesystem>
#include <string>

namespace ablate::bench::experiments {

// The HTML body of `markdown`; pictures are read from `dir` (a missing one throws naming it).
std::string markdown_html(const std::string& markdown, const std::filesystem::path& dir);

}  // namespace ablate::bench::experiments
