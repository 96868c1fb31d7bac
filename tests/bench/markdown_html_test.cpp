// report.md as HTML (markdown_html.h) and the page frame (html_page.h): tables with their rows
// and right-aligned columns, lists, code, links, escaping, pictures inline as base64 data URIs
// (RFC 4648's own examples), a missing picture named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/experiments/html_page.h"
#include "bench/experiments/markdown_html.h"
#include "command_runner.h"

namespace fs = std::filesystem;
using namespace ablate::bench::experiments;
using MarkdownHtml = ablate::bench::testing::CommandTest;

TEST_F(MarkdownHtml, TablesListsCodeAndPicturesInline) {
  std::ofstream(dir_ / "a.png", std::ios::binary) << "foobar";
  const std::string md =
      "# ablate compare: synthetic\n\n- Budget: `--scale 0.001`\n- a < b & c\n\n"
      "| framework | train s |\n|---|---:|\n| caffe | 1.5 |\n| torch | 0.7 |\n\n"
      "Each row:\n\n```sh\nablate run --framework caffe\n```\n\n## Plots\n\n![a.png](a.png)\n\n[seed 1](seed-1/report.md)\n";
  const std::string html = markdown_html(md, dir_);
  EXPECT_HAS(html, "<h1>ablate compare: synthetic</h1>");
  EXPECT_HAS(html, "<li>Budget: <code>--scale 0.001</code></li>");
  EXPECT_HAS(html, "<li>a &lt; b &amp; c</li>");
  EXPECT_HAS(html, "<thead><tr><th>framework</th><th style=\"text-align:right\">train s</th></tr>");
  EXPECT_HAS(html, "<tr><td>caffe</td><td style=\"text-align:right\">1.5</td></tr>\n<tr><td>torch</td>");
  EXPECT_HAS(html, "<pre>ablate run --framework caffe\n</pre>");
  EXPECT_HAS(html, "<h2>Plots</h2>");
  EXPECT_HAS(html, "<img alt=\"a.png\" src=\"data:image/png;base64,Zm9vYmFy\">");
  EXPECT_HAS(html, "<a href=\"seed-1/report.md\">seed 1</a>");
  const std::string page = html_page("t <1>", html);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_HAS(page, "<title>t &lt;1&gt;</title>");
  EXPECT_EQ(page.find("<script"), std::string::npos);
}

TEST_F(MarkdownHtml, Base64PaddingAndAMissingPicture) {
  for (const auto& [bytes, encoded] : std::vector<std::pair<std::string, std::string>>{
           {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}}) {
    std::ofstream(dir_ / "p.png", std::ios::binary) << bytes;
    EXPECT_EQ(png_data_uri(dir_ / "p.png"), "data:image/png;base64," + encoded) << bytes;
  }
  try {
    markdown_html("![gone.png](gone.png)\n", dir_);
    FAIL() << "a missing picture was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_HAS(std::string(e.what()), "gone.png");
  }
}
