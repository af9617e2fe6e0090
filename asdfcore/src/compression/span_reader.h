#pragma once
// A codec's streaming input over bytes already in memory: how `compress` shares the code of
// `compress_stream`.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "asdfcore/compression/codec.h"

namespace asdfcore::compression {

/// Return a `ReadNext` that hands out `input` from its start, piece after piece.
inline ReadNext span_reader(std::span<const std::uint8_t> input) {
  return [input, at = std::size_t{0}](std::span<std::uint8_t> buffer) mutable {
    if (!buffer.empty()) std::memcpy(buffer.data(), input.data() + at, buffer.size());
    at += buffer.size();
  };
}

}  // namespace asdfcore::compression
