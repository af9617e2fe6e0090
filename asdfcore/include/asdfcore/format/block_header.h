#pragma once
/// \file
/// The binary block header of ASDF Standard 1.6.0 (magic, header_size, flags, compression,
/// sizes, checksum), all integers big-endian.

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace asdfcore::format {

/// The 4 bytes that open every block: "\323BLK".
inline constexpr std::array<std::uint8_t, 4> kBlockMagic{0xd3, 'B', 'L', 'K'};
/// Bytes before the fields that `header_size` counts: the magic and the u16 size itself.
inline constexpr std::size_t kBlockPrefixSize = 6;
/// The smallest legal `header_size`, and the size this library writes, in bytes.
inline constexpr std::uint16_t kBlockHeaderSize = 48;
/// Flag bit: the block extends to the end of the file.
inline constexpr std::uint32_t kFlagStreamed = 0x1;

/// One block header as stored in the file.
struct BlockHeader {
  std::uint16_t header_size = kBlockHeaderSize;  ///< Bytes after the size field; >= 48.
  std::uint32_t flags = 0;                       ///< Bit field; see kFlagStreamed.
  std::array<char, 4> compression{};             ///< Label, NUL padded; all NUL = none.
  std::uint64_t allocated_size = 0;              ///< Bytes reserved for data on disk.
  std::uint64_t used_size = 0;                   ///< Bytes of stored (encoded) data.
  std::uint64_t data_size = 0;                   ///< Bytes after decoding.
  std::array<std::uint8_t, 16> checksum{};       ///< MD5; all zero = not checked.

  /// Return true when the STREAMED flag is set.
  bool streamed() const noexcept { return (flags & kFlagStreamed) != 0; }
  /// Return the compression label without NUL padding ("" when uncompressed).
  std::string compression_label() const;
  /// Set the compression label (at most 4 characters; "" for none).
  void set_compression_label(const std::string& label);
  /// Return true when a checksum is stored (not all zeros).
  bool has_checksum() const noexcept;
  /// Return the bytes from the magic to the end of the header: 6 + header_size.
  std::uint64_t total_header_bytes() const noexcept { return kBlockPrefixSize + header_size; }
};

/// Return true when `bytes` starts with the block magic.
bool starts_with_block_magic(std::span<const std::uint8_t> bytes) noexcept;

/// Parse the block header that starts at byte `offset` of `file`. Throws `Error` (truncated)
/// when the file ends inside the header and (malformed) for a wrong magic or a header_size
/// below 48; the error carries `offset`.
BlockHeader parse_block_header(std::span<const std::uint8_t> file, std::uint64_t offset);

/// Return the 54 bytes of `header` as written by this library (header_size forced to 48).
std::array<std::uint8_t, kBlockPrefixSize + kBlockHeaderSize> encode_block_header(
    const BlockHeader& header);

}  // namespace asdfcore::format
