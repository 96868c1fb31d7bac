// libFuzzer target: the checkpoint reader (graph/checkpoint_file.h) on arbitrary bytes. A clean
// rejection is std::invalid_argument; an accepted checkpoint must write back to the same bytes
// (the format has one encoding) and hold tensors whose data matches their shapes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "fuzz/clean_rejection.h"
#include "graph/checkpoint_file.h"

using namespace ablate;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  graph::Checkpoint c;
  if (!fuzz::accepts([&] { c = graph::parse_checkpoint(bytes, "fuzz.ckpt"); })) return 0;
  for (const auto& [name, t] : c.tensors)
    fuzz::fuzz_check(t.numel() == kernels::shape_numel(t.shape()), "tensor data matches its shape");
  const std::string path = "/tmp/ablate-fuzz-checkpoint-" + std::to_string(::getpid()) + ".ckpt";
  graph::write_checkpoint(path, c);
  std::ifstream in(path, std::ios::binary);
  std::stringstream again;
  again << in.rdbuf();
  std::remove(path.c_str());
  // Metadata is a map (sorted keys), so the bytes agree when the input's keys were sorted and
  // unique; the parse of the rewrite must always agree with the first parse.
  const graph::Checkpoint back = graph::parse_checkpoint(again.str(), "rewritten.ckpt");
  fuzz::fuzz_check(back.metadata == c.metadata && back.tensors.size() == c.tensors.size(), "round trip");
  return 0;
}
