#pragma once
// The draft layout's block encodings (asdf-draft-0.1.0-file-layout-with-encodings, "Block
// encoding"): a chain of `zlib` (binary to binary), `quantize` (array to binary) and `tile`
// (array to array), undone in reverse order.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "asdfcore/ndarray/dtype.h"
#include "asdfcore/tree/node.h"

namespace asdfcore::format::legacy {

// The names in `chain` (a sequence of names or [name, {args}] pairs), in encoding order. Throws
// `Error` (malformed) when `chain` is not such a sequence.
std::vector<std::string> chain_names(const tree::Node& chain);

// Undo `chain` on `stored` (the block's bytes after the chain's YAML). `order` is the byte order
// of the array the block holds (quantize writes its floats in it). The result may not exceed
// `limit` bytes. Throws `Error`: compression (an unknown encoding, a corrupt stream, sizes that
// disagree with the arguments), limit.
std::vector<std::uint8_t> decode_chain(const tree::Node& chain, std::span<const std::uint8_t> stored,
                                       ndarray::ByteOrder order, std::uint64_t limit);

// Inflate a zlib stream of unknown decoded size, refusing more than `limit` bytes.
std::vector<std::uint8_t> inflate(std::span<const std::uint8_t> stored, std::uint64_t limit);

}  // namespace asdfcore::format::legacy
