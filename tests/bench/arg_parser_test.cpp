// Tests of command-line parsing: values, flags, and errors that name the option.
#include "bench/run/arg_parser.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace ablate::bench::run;

namespace {
ParsedArgs parse(std::vector<std::string> words) {
  ArgParser parser("ablate test", "test", {{"batch", "N", "batch"}, {"quiet", "", "flag"}, {"lr", "X", "lr"}});
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  return parser.parse(static_cast<int>(argv.size()), argv.data(), 0);
}

std::string error_of(std::vector<std::string> words) {
  try {
    parse(std::move(words));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(ArgParser, ReadsValuesFlagsAndInlineValues) {
  auto a = parse({"--batch", "32", "--quiet", "--lr=0.5"});
  EXPECT_EQ(a.get_int("batch", 0, 1), 32);
  EXPECT_TRUE(a.has("quiet"));
  EXPECT_DOUBLE_EQ(a.get_double("lr", 0), 0.5);
  EXPECT_FALSE(a.has("missing"));
}

TEST(ArgParser, UnknownOptionIsNamed) {
  EXPECT_NE(error_of({"--bacth", "3"}).find("--bacth"), std::string::npos);
}

TEST(ArgParser, MissingValueIsNamed) {
  EXPECT_NE(error_of({"--batch"}).find("--batch needs a value"), std::string::npos);
}

TEST(ArgParser, MalformedAndTooSmallNumbersAreNamed) {
  auto a = parse({"--batch", "12x"});
  try {
    a.get_int("batch", 0, 1);
    FAIL() << "no error for 12x";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--batch 12x"), std::string::npos) << e.what();
  }
  auto b = parse({"--batch", "-4"});
  try {
    b.get_int("batch", 0, 1);
    FAIL() << "no error for -4";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("-4"), std::string::npos) << e.what();
  }
}
