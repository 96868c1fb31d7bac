// The command line (bench/cli/command_line.h, CLI11): values, switches, inline values, the last
// of a repeated option, every occurrence of a repeatable one, positionals; unknown options and
// missing values are errors naming the option; typed reads name the flag and its value.
#include "bench/cli/command_line.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bench/cli/commands.h"

using ablate::bench::cli::Command;
using ablate::bench::cli::parse_options;
using ablate::bench::run::Flags;

namespace {

Command test_command() {
  return {"test",
          "a command for the tests",
          "Takes a batch, a switch, a learning rate, repeatable factors and a positional.",
          {{"batch", "N", "batch"},
           {"quiet", "", "a switch"},
           {"lr", "X", "learning rate"},
           {"vary", "KEY=V", "repeatable", true},
           {"file", "FILE", "a positional", false, true}},
          [](const Flags&) { return 0; }};
}

Flags parse(const std::vector<std::string>& words) { return parse_options(test_command(), words); }

std::string error_of(const std::vector<std::string>& words) {
  try {
    parse(words);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in: " << (haystack)

}  // namespace

TEST(CommandLine, ReadsValuesSwitchesInlineValuesAndPositionals) {
  Flags a = parse({"results.jsonl", "--batch", "32", "--quiet", "--lr=0.5"});
  EXPECT_EQ(a.get_int("batch", 0, 1), 32);
  EXPECT_TRUE(a.has("quiet"));
  EXPECT_EQ(a.get("quiet"), "true");
  EXPECT_DOUBLE_EQ(a.get_double("lr", 0), 0.5);
  EXPECT_EQ(a.get("file"), "results.jsonl");
  EXPECT_FALSE(a.has("vary"));
  EXPECT_EQ(a.get("vary", "none"), "none");
}

TEST(CommandLine, TheLastOfARepeatedOptionCountsAndARepeatableOneKeepsAll) {
  Flags a = parse({"--batch", "8", "--batch", "-3", "--vary", "batch=1,2", "--vary=lr=0.1,0.2"});
  EXPECT_EQ(a.get("batch"), "-3") << "a negative number is a value, and the last one wins";
  EXPECT_EQ(a.all("vary"), (std::vector<std::string>{"batch=1,2", "lr=0.1,0.2"}));
  EXPECT_EQ(a.values().at("vary"), "lr=0.1,0.2");
}

TEST(CommandLine, UnknownOptionsAndMissingValuesAreNamed) {
  EXPECT_CONTAINS(error_of({"--bacth", "3"}), "--bacth");
  EXPECT_CONTAINS(error_of({"--batch"}), "--batch");
  EXPECT_CONTAINS(error_of({"--batch"}), "--batch needs a value");
  EXPECT_CONTAINS(error_of({"--quiet=maybe"}), "--quiet is a switch and takes no value");
  EXPECT_CONTAINS(error_of({"--bacth", "3"}), "unknown option --bacth");
  EXPECT_CONTAINS(error_of({"a.jsonl", "b.jsonl"}), "b.jsonl");
  EXPECT_CONTAINS(error_of({"--bacth", "3"}), "see ablate test --help");
}

TEST(CommandLine, MalformedAndTooSmallNumbersNameTheFlagAndTheValue) {
  Flags a = parse({"--batch", "12x", "--lr", "fast"});
  try {
    a.get_int("batch", 0, 1);
    FAIL() << "no error for 12x";
  } catch (const std::invalid_argument& e) {
    EXPECT_CONTAINS(e.what(), "--batch 12x: expected a whole number");
  }
  try {
    a.get_double("lr", 0);
    FAIL() << "no error for fast";
  } catch (const std::invalid_argument& e) {
    EXPECT_CONTAINS(e.what(), "--lr fast: expected a finite number");
  }
  try {
    parse({"--batch", "-4"}).get_int("batch", 0, 1);
    FAIL() << "no error for -4";
  } catch (const std::invalid_argument& e) {
    EXPECT_CONTAINS(e.what(), "--batch -4: expected a number of at least 1");
  }
}

TEST(CommandLine, EveryCommandRegistersAndItsOptionsParse) {
  const auto commands = ablate::bench::cli::all_commands();
  ASSERT_EQ(commands.size(), 13u);  // with explain, gradcheck, export (ONNX) and ablate (designed ablations)
  for (const Command& c : commands) {
    SCOPED_TRACE(c.name);
    EXPECT_FALSE(c.summary.empty());
    for (const auto& f : c.options) {
      if (f.positional) continue;
      const Flags a = parse_options(c, f.metavar.empty() ? std::vector<std::string>{"--" + f.name}
                                                         : std::vector<std::string>{"--" + f.name, "v"});
      EXPECT_TRUE(a.has(f.name)) << "--" << f.name;
    }
  }
}
