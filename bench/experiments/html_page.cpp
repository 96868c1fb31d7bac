// The HTML page frame and inline PNGs (see html_page.h).
#include "bench/experiments/html_page.h"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "graph/static/memory_plan_svg.h"

namespace ablate::bench::experiments {

std::string html_page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
         graph::static_graph::markup_escaped(title) +
         "</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:110em}pre{font-size:12px;overflow-x:auto;"
         "background:#f6f6f6;padding:1em}h2{border-bottom:1px solid #ccc}table{border-collapse:collapse;font-size:13px}"
         "th,td{border:1px solid #ccc;padding:.2em .5em}img{max-width:100%}</style></head><body>\n" +
         body + "</body></html>\n";
}

std::string png_data_uri(const std::filesystem::path& png) {
  std::ifstream in(png, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (!in) throw std::runtime_error("picture " + png.string() + ": cannot be read");
  static const char* const kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const std::string data = bytes.str();
  std::string out = "data:image/png;base64,";
  out.reserve(out.size() + (data.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < data.size(); i += 3) {  // RFC 4648 base64: 3 bytes -> 4 characters, '=' padding
    const std::size_t left = data.size() - i;
    std::uint32_t v = static_cast<std::uint8_t>(data[i]) << 16;
    if (left > 1) v |= static_cast<std::uint8_t>(data[i + 1]) << 8;
    if (left > 2) v |= static_cast<std::uint8_t>(data[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += left > 1 ? kAlphabet[(v >> 6) & 63] : '=';
    out += left > 2 ? kAlphabet[v & 63] : '=';
  }
  return out;
}

}  // namespace ablate::bench::experiments
