#include "asdfcore/format/block_header.h"

#include <algorithm>
#include <cstring>

#include "asdfcore/error.h"
#include "util/endian.h"

namespace asdfcore::format {

using detail::load_be;
using detail::store_be;

std::string BlockHeader::compression_label() const {
  std::string label(compression.data(), compression.size());
  label.erase(std::find(label.begin(), label.end(), '\0'), label.end());
  return label;
}

void BlockHeader::set_compression_label(const std::string& label) {
  if (label.size() > compression.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                "compression label '" + label + "' is longer than 4 characters");
  }
  compression.fill('\0');
  std::copy(label.begin(), label.end(), compression.begin());
}

bool BlockHeader::has_checksum() const noexcept {
  return std::any_of(checksum.begin(), checksum.end(), [](std::uint8_t b) { return b != 0; });
}

bool starts_with_block_magic(std::span<const std::uint8_t> bytes) noexcept {
  return bytes.size() >= kBlockMagic.size() &&
         std::equal(kBlockMagic.begin(), kBlockMagic.end(), bytes.begin());
}

BlockHeader parse_block_header(std::span<const std::uint8_t> file, std::uint64_t offset) {
  const ErrorContext at{.offset = offset};
  if (offset > file.size() || file.size() - offset < kBlockPrefixSize) {
    throw Error(ErrorCode::kTruncated, "the file ends inside a block header", at);
  }
  const auto rest = file.subspan(static_cast<std::size_t>(offset));
  if (!starts_with_block_magic(rest)) {
    throw Error(ErrorCode::kMalformed, "no block magic (\\323BLK) where a block should start", at);
  }
  BlockHeader h;
  h.header_size = static_cast<std::uint16_t>(load_be(rest.data() + 4, 2));
  if (h.header_size < kBlockHeaderSize) {
    throw Error(ErrorCode::kMalformed,
                "block header_size is " + std::to_string(h.header_size) +
                    "; the standard requires at least 48",
                at);
  }
  if (rest.size() - kBlockPrefixSize < h.header_size) {
    throw Error(ErrorCode::kTruncated,
                "the file ends inside a block header of " + std::to_string(h.header_size) +
                    " bytes",
                at);
  }
  const std::uint8_t* p = rest.data() + kBlockPrefixSize;
  h.flags = static_cast<std::uint32_t>(load_be(p, 4));
  std::memcpy(h.compression.data(), p + 4, 4);
  h.allocated_size = load_be(p + 8, 8);
  h.used_size = load_be(p + 16, 8);
  h.data_size = load_be(p + 24, 8);
  std::memcpy(h.checksum.data(), p + 32, 16);
  return h;
}

std::array<std::uint8_t, kBlockPrefixSize + kBlockHeaderSize> encode_block_header(
    const BlockHeader& header) {
  std::array<std::uint8_t, kBlockPrefixSize + kBlockHeaderSize> out{};
  std::copy(kBlockMagic.begin(), kBlockMagic.end(), out.begin());
  std::uint8_t* p = out.data() + 4;
  store_be(p, kBlockHeaderSize, 2);
  p += 2;
  store_be(p, header.flags, 4);
  std::memcpy(p + 4, header.compression.data(), 4);
  store_be(p + 8, header.allocated_size, 8);
  store_be(p + 16, header.used_size, 8);
  store_be(p + 24, header.data_size, 8);
  std::memcpy(p + 32, header.checksum.data(), 16);
  return out;
}

}  // namespace asdfcore::format
