#pragma once
/// \file
/// Writing a built `Tree` (tree_builder.h) to an ASDF file: every `Array` gets a block (views
/// of one array share it) or is written inline when small, blocks are compressed as asked, and
/// the file appears under its name only when complete. python asdf opens the result with
/// validation on and no warning.
///
/// \code
///   asdfcore::Tree tree;
///   tree["sci"] = asdfcore::Array::view(std::span<const float>(pixels), {1024, 1024});
///   asdfcore::WriteOptions options;
///   options.compression = "zlib";
///   asdfcore::write("out.asdf", tree, options);
/// \endcode

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "asdfcore/format/container_writer.h"
#include "asdfcore/ndarray/dtype.h"
#include "asdfcore/tree_builder.h"

namespace asdfcore {

/// Settings for writing a tree.
struct WriteOptions {
  /// The ASDF Standard to declare: "1.5.0" (the default; python asdf 2.14 reads it without a
  /// warning) or "1.6.0" (ndarray-1.1.0; python asdf 2.14 warns that it has no schema for it).
  /// float16 arrays need 1.6.0 (python asdf 2.14 cannot read them at all).
  std::string asdf_standard = "1.5.0";
  /// The codec of every array that does not choose its own (`Array::compression`): "" (none,
  /// the default), "zlib", "bzp2" or "lz4".
  std::string compression;
  /// The codec's level for those arrays (-1: the codec's default).
  int compression_level = -1;
  /// The byte order of the written multi-byte numbers: `kNotApplicable` (the default) keeps
  /// each array's own, `kLittle` or `kBig` converts the arrays that differ (a converted copy
  /// is made of each such array).
  ndarray::ByteOrder byte_order = ndarray::ByteOrder::kNotApplicable;
  /// Which bytes each block's MD5 covers (see `format::ChecksumConvention`): the stored bytes
  /// (the standard's reading). python asdf 2.14 checks the decoded
  /// data when asked to (`validate_checksums=True`), so it refuses compressed blocks of the
  /// default: use `kDecodedData` for files that version must check.
  format::ChecksumConvention checksum = format::ChecksumConvention::kStoredBytes;
  /// Write arrays with fewer elements than this inline, as `data:` lists in the tree (0: never;
  /// python asdf's `array_inline_threshold`). Streamed and pending arrays never are.
  std::uint64_t inline_threshold = 0;
  /// Threads that compress one block's pieces side by side; 0 means one per core.
  unsigned threads = 0;
  /// Spare bytes after the tree, so that it can later grow in place (`asdfcore::Update`,
  /// `fitsasdf edit`). Unset: a tenth of the tree, at least 1 KiB, up to the next 4 KiB
  /// boundary, when blocks follow (`format::default_tree_padding`); 0: none.
  std::optional<std::uint64_t> tree_padding;
  /// fsync the file before renaming it into place.
  bool durable = true;
  /// Extra `#` comment lines after the header (without the `#`).
  std::vector<std::string> comments;
};

/// Write `tree` (whose root must be a mapping) to `path` atomically: the file appears only
/// when complete, and nothing is left behind on failure. Every array's bytes are read where
/// they are (borrowed ones must be alive and unchanged until this returns). Throws `Error`
/// (invalid-argument) for an unsupported standard, an unknown codec, a root that is not a
/// mapping, or a streamed or pending array (those need a `StreamWriter`), and (io) when the
/// file cannot be written.
void write(const std::string& path, const Tree& tree, const WriteOptions& options = {});

/// Return the bytes of the ASDF file `write` would write for `tree` (through a temporary
/// file). Throws as `write` does.
std::vector<std::uint8_t> write_to_memory(const Tree& tree, const WriteOptions& options = {});

}  // namespace asdfcore
