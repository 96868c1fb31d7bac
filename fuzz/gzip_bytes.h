// gzip_bytes: compresses bytes into a gzip stream (RFC 1952) with zlib, so a fuzz target can
// hand a reader the gzip form of the fuzzer's bytes and reach the parser behind the inflater
// (mutated gzip bytes mostly fail the CRC and stop in zlib).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ablate::fuzz {

std::vector<std::uint8_t> gzip_bytes(const std::uint8_t* data, std::size_t size);

}  // namespace ablate::fuzz
