#pragma once
/// \file
/// Writing the byte-level layout of an ASDF file: header, comments, tree text, blocks and
/// block index, atomically (temporary file + rename).

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/compression/codec.h"

namespace asdfcore::format {

/// Which bytes a written checksum covers.
enum class ChecksumConvention {
  kStoredBytes,  ///< MD5 of the bytes on disk, as the standard says (the default).
  kDecodedData,  ///< MD5 of the decoded data, what python asdf 2.14 checks with
                 ///< `validate_checksums=True`.
  kNone,         ///< Write all zeros (no checksum).
};

/// Return the convention called `name` where users choose one ("stored", "decoded", "none"),
/// or nothing for another name.
std::optional<ChecksumConvention> checksum_convention_named(std::string_view name) noexcept;

/// Bytes of an open file, streamed into the output in bounded chunks instead of being held in
/// memory (a FITS image copied as it is).
struct FileRange {
  int fd = -1;               ///< An open, readable descriptor; the caller keeps it open.
  std::uint64_t offset = 0;  ///< Byte offset in that file.
  std::uint64_t length = 0;  ///< Bytes to copy.
  /// Applied in place to each chunk before it is hashed and written (a sign-bit flip, a byte
  /// swap, a change of the bytes of some table columns), with the chunk's offset from the start
  /// of the range. Chunks come in order and are whole multiples of 4 MiB from `offset` except
  /// the last, so a transform of elements of up to 8 bytes always sees whole elements; one of
  /// fixed-size records (table rows) finds its place in a record from the chunk offset. Empty:
  /// bytes copied unchanged (by the kernel where it can).
  std::function<void(std::span<std::uint8_t> chunk, std::uint64_t chunk_offset)> transform;
};

/// One block to write. The data is `pieces` in order, then `file_ranges` in order. Memory
/// pieces are written without copying; file ranges are streamed through a small buffer, so an
/// uncompressed block of any size costs bounded memory. A compressed block is read by its codec
/// piece by piece and written as it is compressed (zlib and lz4: a few pieces per thread in
/// memory; bzp2 holds the block whole).
struct BlockToWrite {
  std::vector<std::span<const std::uint8_t>> pieces;  ///< The decoded data, in order.
  std::vector<FileRange> file_ranges;                  ///< More data, after `pieces`.
  std::string compression;     ///< "" for none, else a label in the registry ("zlib", ...).
  int level = -1;              ///< Compression level; -1 for the codec's default.
  std::uint64_t padding = 0;   ///< Extra allocated bytes after the used data (zero filled);
                               ///< must be 0 for a streamed block.
  bool streamed = false;       ///< Write as a streamed block; only the last block may be.
  /// More data after `file_ranges`, pulled in order: `source(buffer)` fills `buffer` from its
  /// start and returns the bytes it gave, fewer than `buffer.size()` only at the end of the
  /// data. With `source_size` set the source must give exactly that many bytes (it is asked
  /// for no more); without it (an uncompressed streamed block only) the block runs until the
  /// source gives 0 bytes. The source may block (a `StreamWriter` waiting for its caller).
  std::function<std::size_t(std::span<std::uint8_t> buffer)> source;
  std::optional<std::uint64_t> source_size;  ///< The bytes `source` gives, when known.
};

/// Settings for writing a file.
struct WriteOptions {
  std::string asdf_standard = "1.6.0";  ///< Written as `#ASDF_STANDARD`.
  std::vector<std::string> comments;    ///< Extra `#` lines (without the `#`).
  bool block_index = true;              ///< Write the index (never after a streamed block).
  /// Spare bytes after the tree so that it can grow in place later (`asdfcore::Update`).
  /// Unset: `default_tree_padding` when blocks follow the tree, none when none do (the tree
  /// can then grow into the end of the file). None is written when there is no tree.
  std::optional<std::uint64_t> tree_padding;
  ChecksumConvention checksum = ChecksumConvention::kStoredBytes;  ///< What block MD5s cover.
  bool durable = true;                  ///< fsync before the rename.
  /// Replace a file already at the path. False: keep it and throw `Error` (exists), decided
  /// atomically at the rename.
  bool replace = true;
  /// Threads that compress the pieces of a large block side by side (the writing thread
  /// included), and that hash large uncompressed blocks copied from files while the next
  /// blocks are copied; 0 means `std::thread::hardware_concurrency()`. The bytes written do
  /// not depend on it.
  unsigned threads = 0;
  /// Called with each count of block data bytes (decoded, before compression) taken for the
  /// output, at least every 4 MiB, then once with 0 just before the file is committed. It
  /// may throw to stop the write: nothing is left behind. Called on the writing thread, or on
  /// one compressing thread at a time while a compressed block is written. Empty: not called.
  std::function<void(std::uint64_t bytes)> on_data;
};

/// Return the spare bytes left after a tree of `tree_size` bytes that ends at byte `tree_end`
/// of the file, when blocks follow and no amount is asked for: a tenth of the tree, at least
/// 1 KiB, then up to the next 4 KiB boundary, so that the first block starts on one (python
/// asdf rounds its padding to the file system's block size too).
std::uint64_t default_tree_padding(std::uint64_t tree_end, std::uint64_t tree_size) noexcept;

/// Write an ASDF file at `path` from `tree` (a complete YAML document from `%YAML` through the
/// `...` line, or empty for no tree) and `blocks`. The file appears only when complete.
/// Returns the offset of each block. Throws `Error` for an unknown codec, a streamed block that
/// is not last, a tree without its markers, or an I/O failure (nothing is left behind).
std::vector<std::uint64_t> write_container(
    const std::string& path, std::string_view tree, std::span<const BlockToWrite> blocks,
    const WriteOptions& options = {},
    const compression::CodecRegistry& codecs = compression::CodecRegistry::with_builtins());

}  // namespace asdfcore::format
