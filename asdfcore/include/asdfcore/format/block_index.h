#pragma once
/// \file
/// The optional block index at the end of a file: `#ASDF BLOCK INDEX`, then a YAML list of
/// block offsets.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace asdfcore::format {

/// The header line that opens a block index.
inline constexpr char kBlockIndexHeader[] = "#ASDF BLOCK INDEX";

/// A block index as found in a file.
struct BlockIndex {
  std::uint64_t offset = 0;             ///< Where `#ASDF BLOCK INDEX` starts.
  std::vector<std::uint64_t> entries;   ///< The offsets it lists; empty when unparsable.
  bool parsed = false;                  ///< False when the YAML after the header is not a list
                                        ///< of non-negative integers.
};

/// Find and parse a block index at or after byte `search_from` of `file`, searching backward
/// from the end as the standard recommends. Trailing NUL bytes are ignored. Returns nothing
/// when no index header is present. Never throws for bad content: an unparsable index comes
/// back with `parsed == false`.
std::optional<BlockIndex> find_block_index(std::span<const std::uint8_t> file,
                                           std::uint64_t search_from);

/// Return the text of a block index listing `offsets`, as python asdf writes it.
std::string encode_block_index(std::span<const std::uint64_t> offsets);

}  // namespace asdfcore::format
