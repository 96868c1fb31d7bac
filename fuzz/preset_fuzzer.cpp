// libFuzzer target: the preset parser (models/preset.h) and its typed getters. The input is
// the preset text. A clean rejection is std::invalid_argument or std::runtime_error; an
// accepted preset must hold only known keys, each with its line, and every getter on every
// key must return or reject cleanly.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/clean_rejection.h"
#include "models/preset.h"

using namespace ablate;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  models::Preset preset;
  if (!fuzz::accepts([&] { preset = models::parse_preset(text, "fuzz.preset"); })) return 0;
  const auto& keys = models::preset_keys();
  fuzz::fuzz_check(preset.values.size() == preset.lines.size(), "one line per key");
  for (const auto& entry : preset.values) {
    const std::string& key = entry.first;
    const std::string& value = entry.second;
    fuzz::fuzz_check(std::find(keys.begin(), keys.end(), key) != keys.end(), "only known keys");
    fuzz::fuzz_check(!value.empty() && preset.lines.count(key) == 1, "a value and a line per key");
    fuzz::fuzz_check(preset.get(key) == value, "get returns the value");
    fuzz::accepts([&] { preset.get_double(key); });
    fuzz::accepts([&] { preset.get_int(key); });
  }
  return 0;
}
