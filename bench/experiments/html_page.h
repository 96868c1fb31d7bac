// The frame of ablate's self-contained HTML pages (explain's and compare's index.html): one
// file that a browser opens with nothing fetched, no script, the pictures inline as data URIs.
#pragma once

#include <filesystem>
#include <string>

namespace ablate::bench::experiments {

// <!DOCTYPE html> ... <title>TITLE</title>, the shared style, then `body` (HTML) and the end.
std::string html_page(const std::string& title, const std::string& body);
// "data:image/png;base64,..." of a PNG file; throws std::runtime_error naming the file when it
// cannot be read.
std::string png_data_uri(const std::filesystem::path& png);

}  // namespace ablate::bench::experiments
