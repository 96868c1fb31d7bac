// The results reader: strict JSON (values, escapes, nesting; malformed text named by offset)
// and a results file with damaged lines (garbage, a partial last line) read record by record.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/run/results_reader.h"

using namespace ablate::bench::run;

TEST(JsonParser, ReadsEveryKindOfValueAndFieldsByPath) {
  nlohmann::json v = parse_json(R"( {"a": [1, -2.5e1, true, false, null], "s": "q\"\\\/\n\u00e9", "o": {"x": {"y": 3}}} )");
  ASSERT_TRUE(v.is_object());
  ASSERT_EQ(v["a"].size(), 5u);
  EXPECT_EQ(number_of(v["a"][0]), 1);
  EXPECT_EQ(number_of(v["a"][1]), -25);
  EXPECT_TRUE(v["a"][2].get<bool>());
  EXPECT_TRUE(v["a"][4].is_null());
  EXPECT_EQ(text_of(field(v, "s")), "q\"\\/\n\xc3\xa9");
  EXPECT_EQ(number_of(field(v, "o.x.y")), 3);
  EXPECT_TRUE(field(v, "o.missing.y").is_null());
  EXPECT_TRUE(field(v, "s.below_a_string").is_null());
  EXPECT_EQ(text_of(v["a"][1]), "-25");
  EXPECT_EQ(text_of(v["a"][2]), "true");
  EXPECT_EQ(text_of(field(v, "o"), "fallback"), "fallback") << "an object has no text";
  EXPECT_EQ(number_of(field(v, "s"), -1), -1) << "a string is no number";
}

TEST(JsonParser, RejectsMalformedTextNamingTheOffset) {
  for (const char* bad : {"{\"a\":1,}", "{\"a\" 1}", "[1 2]", "{\"a\":tru}", "\"open", "{\"a\":1} x", "-", "1.", "{a:1}",
                          "\"tab\there\"", "\"\\x\""}) {
    try {
      parse_json(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("offset"), std::string::npos) << e.what();
    }
  }
}

TEST(ResultsReader, SkipsAndReportsDamagedLines) {
  auto path = std::filesystem::temp_directory_path() / ("ablate-reader-" + std::to_string(::getpid()) + ".jsonl");
  {
    std::ofstream out(path);
    out << "{\"status\":\"completed\",\"n\":1}\n"
        << "garbage here\n"
        << "\n"
        << "[1,2]\n"
        << "{\"status\":\"completed\",\"n\":2}\n"
        << "{\"status\":\"comp";  // a partial last line
  }
  ResultsFile f = read_results(path.string());
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_EQ(number_of(field(f.records[1], "n")), 2);
  EXPECT_EQ(f.record_lines[1], 5);
  ASSERT_EQ(f.damaged.size(), 3u);
  EXPECT_EQ(f.damaged[0].line, 2);
  EXPECT_EQ(f.damaged[1].line, 4);
  EXPECT_EQ(f.damaged[2].line, 6);
  EXPECT_TRUE(drop_partial_last_line(path.string()));
  EXPECT_FALSE(drop_partial_last_line(path.string())) << "ends with a newline now";
  EXPECT_EQ(read_results(path.string()).damaged.size(), 2u);
  EXPECT_TRUE(read_results((path.string() + ".absent")).records.empty()) << "a missing file is empty";
  std::filesystem::remove(path);
}
