#pragma once
/// \file
/// The ASDF dialects from before 1.0.0 (2014-2015), read-only: the `%ASDF 0.1.0` layout of
/// "ASDF Standard 0.1.0dev" (`\211BLK`, 40-byte headers), the 44-byte and 40-byte headers early
/// writers used under `#ASDF 0.1.0`, and the draft layout with 36-byte headers, `memory_size` and
/// the `ENCODED` flag whose blocks start with a YAML chain of encodings (`zlib`, `tile`,
/// `quantize`). The layout of each block is chosen by its `header_size`, never by the header line.
///
/// A legacy file is read by turning it, in memory, into the file it would be today: ASDF
/// Standard 1.0.0, its tags mapped to their 1.0.0 versions (`!core/ndarray` of the 0.1.0 tag
/// prefix, or `core/ndarray-0.1.0`, becomes `core/ndarray-1.0.0`; `dtype:` becomes `datatype:`),
/// every block decoded and stored plain with a fresh MD5. `format::Container` does this on open,
/// so everything above it (`AsdfFile`, `info`, `convert`, `defragment`, `validate`) works on legacy
/// files unchanged, and `Container::legacy()` says what the file was. Checksums of that era are
/// often zero or wrong: they are reported, never enforced.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "asdfcore/io/buffer.h"

namespace asdfcore::format {

struct ReadOptions;

/// What one block of a legacy file was.
struct LegacyBlock {
  std::uint64_t offset = 0;          ///< Where its magic starts in the original file.
  std::string magic;                 ///< "\\323BLK" or "\\211BLK".
  std::uint16_t header_size = 0;     ///< 36, 40, 44 or 48.
  std::string layout;                ///< Which layout that header_size selected (a short name).
  bool streamed = false;             ///< Extends to the end of the file.
  std::uint64_t used_size = 0;       ///< Stored bytes (encoding chain included).
  std::uint64_t decoded_size = 0;    ///< Bytes after decoding (0 when it could not be decoded).
  std::vector<std::string> encodings;///< The compression or encoding chain, in encoding order.
  std::string checksum;              ///< The stored checksum in hex ("" when zero).
  std::string problem;               ///< Why it could not be decoded ("" when it could).
};

/// What a legacy file was, and what reading it changed.
struct LegacyInfo {
  std::string header_line;           ///< "%ASDF 0.1.0", "#ASDF 0.1.0", ...
  std::string file_format_version;   ///< "0.1.0"
  std::vector<LegacyBlock> blocks;   ///< In file order.
  /// Each tag met and the 1.0.0 tag it was read as, once each, in tree order.
  std::vector<std::pair<std::string, std::string>> tags;
  bool dtype_renamed = false;        ///< Some ndarray said `dtype:` (read as `datatype:`).
};

/// Return true when `file` starts like a legacy ASDF file (`%ASDF ` or `#ASDF 0.`).
bool is_legacy_asdf(std::span<const std::uint8_t> file) noexcept;

/// A legacy file as it reads today.
struct UpgradedFile {
  io::Buffer bytes;   ///< A complete ASDF 1.0.0 file (Standard 1.0.0), blocks decoded.
  LegacyInfo info;    ///< What the original was.
};

/// Read the legacy file `file` (`name` for errors) into its modern form. A block whose encoding
/// cannot be decoded (an unknown encoding, a corrupt stream) is kept as an empty block and its
/// `problem` says why; reading that block's array then fails with that reason, the rest of the
/// file reads. Throws `Error`: malformed (a header or tree that breaks the layout, a header_size
/// no dialect has), truncated (a block past the end of the file), limit (a block that would
/// decode beyond `options.max_block_data_size`).
UpgradedFile upgrade_legacy(std::span<const std::uint8_t> file, const std::string& name,
                            const ReadOptions& options);

}  // namespace asdfcore::format
