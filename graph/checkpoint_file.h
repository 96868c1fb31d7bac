// The checkpoint file: everything needed to continue a run exactly (exact resume), in one
// documented binary format shared by every strategy:
//
//   offset  size  field
//   0       8     magic "ABLATECK"
//   8       4     format version, little-endian u32 (this build writes and reads 1)
//   12      8     payload size P, u64
//   20      P     payload:
//                   u32 M, then M metadata entries: key, value    (strings: u32 length + bytes)
//                   u32 T, then T tensors: name (string), dtype (u8: 0 f32, 1 f64, 2 i32, 3 u8),
//                   u32 rank, rank x i64 dims, numel x element bytes (host order, little-endian)
//   20+P    4     CRC-32 (zlib) of the payload
//
// Metadata holds the configuration, iteration, random generator states and the data
// loader's position as text; tensors hold parameters, optimizer state and weight averages by
// name. Writing goes to PATH.tmp, is flushed to disk (fsync) and renamed over PATH, so a
// crash at any moment leaves the previous checkpoint whole.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernels/tensor.h"

namespace ablate::graph {

struct Checkpoint {
  std::map<std::string, std::string> metadata;
  std::vector<std::pair<std::string, kernels::Tensor>> tensors;  // host tensors

  const std::string& meta(const std::string& key) const;  // throws naming the key if absent
  const kernels::Tensor& tensor(const std::string& name) const;  // throws naming it if absent
};

constexpr std::uint32_t kCheckpointVersion = 1;

// Throws std::runtime_error naming the path when it cannot be written (a full disk too);
// the previous file at `path`, if any, is then untouched.
void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);
// Throws std::invalid_argument naming the path and the problem: not a checkpoint (magic),
// another version, truncated, checksum mismatch, a malformed entry.
Checkpoint read_checkpoint(const std::string& path);
// The same from bytes in memory (`source` names them in errors); for tests and fuzzing.
Checkpoint parse_checkpoint(const std::string& bytes, const std::string& source);

}  // namespace ablate::graph
