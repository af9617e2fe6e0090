#pragma once
/// \file
/// Reading the byte-level layout of an ASDF file: prologue, tree text, blocks and block index.
/// This layer knows nothing of YAML semantics; it hands out the tree as text and each block's
/// bytes, decoded on request.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/compression/codec.h"
#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"
#include "asdfcore/format/block_header.h"
#include "asdfcore/format/block_index.h"
#include "asdfcore/format/legacy.h"
#include "asdfcore/format/prologue.h"
#include "asdfcore/io/buffer.h"

namespace asdfcore::format {

/// Options for opening a file.
struct ReadOptions {
  /// Throw at open when the chain of blocks is broken, instead of listing the blocks up to the
  /// break and recording the problem in `Container::problems()`.
  bool strict = false;
  /// Refuse to decode a block whose declared `data_size` exceeds this many bytes.
  std::uint64_t max_block_data_size = std::uint64_t{16} << 30;
};

/// One block found in the file.
struct BlockInfo {
  std::uint64_t offset = 0;       ///< Where the magic starts.
  BlockHeader header;             ///< As stored.
  std::uint64_t data_offset = 0;  ///< First byte of the stored data.
  std::uint64_t stored_size = 0;  ///< Bytes of stored data: used_size, or to the end of the file
                                  ///< for a streamed block.
  std::string problem;            ///< Why this block cannot be read; empty when it can.
};

/// A flaw in the layout that does not stop the tree and the other blocks from being read.
struct LayoutProblem {
  /// What kind of flaw.
  enum class Kind {
    kBrokenChain,   ///< No valid block where the previous one ends; later blocks are unreachable.
    kStaleIndex,    ///< A block index is present but disagrees with the blocks; it is ignored.
    kTrailingBytes, ///< Bytes after the last block that are neither a block nor an index.
  };
  Kind kind;                 ///< What kind of flaw.
  std::uint64_t offset = 0;  ///< Where the problem was found.
  std::string message;       ///< What was wrong.
};

/// How a block's stored checksum compares with its data.
enum class ChecksumStatus {
  kUnchecked,        ///< The checksum field is all zeros.
  kMatchesStored,    ///< MD5 of the bytes on disk (the standard's rule).
  kMatchesDecoded,   ///< MD5 of the decoded data (what python asdf 2.14 to 5.2 wrote).
  kMismatch,         ///< Neither.
  kUndecodable,      ///< No match on the stored bytes, and the data cannot be decoded to try.
};

/// Return a short name for `status` ("unchecked", "stored", "decoded", "mismatch", ...).
std::string_view checksum_status_name(ChecksumStatus status) noexcept;

/// The layout of one ASDF file, read through a memory mapping. Cheap to copy: copies share the
/// mapping.
class Container {
 public:
  /// Map and scan the file at `path`. Throws `Error` for an unreadable or non-ASDF file.
  static Container open(const std::string& path, const ReadOptions& options = {},
                        compression::CodecRegistry codecs = compression::CodecRegistry::with_builtins());
  /// Scan `bytes` already in memory; `name` is used in errors.
  static Container from_buffer(io::Buffer bytes, std::string name, const ReadOptions& options = {},
                               compression::CodecRegistry codecs = compression::CodecRegistry::with_builtins());

  /// Return the file's name as given to open.
  const std::string& name() const noexcept { return name_; }
  /// Return the whole file's bytes.
  const io::Buffer& bytes() const noexcept { return bytes_; }
  /// Return the header, comments and tree position.
  const Prologue& prologue() const noexcept { return prologue_; }
  /// Return the YAML tree text (from `%YAML` through `...`), or an empty view when absent.
  std::string_view tree_text() const noexcept;
  /// Return the blocks in file order, up to the first one whose successor cannot be found.
  const std::vector<BlockInfo>& blocks() const noexcept { return blocks_; }
  /// Return the block index as found in the file, if one is present.
  const std::optional<BlockIndex>& block_index() const noexcept { return index_; }
  /// Return true when a block index is present and agrees with the blocks found by walking the
  /// headers (the standard's recommended checks). A stale index is otherwise ignored.
  bool block_index_valid() const noexcept { return index_valid_; }
  /// Return what was wrong with the layout (a broken chain of blocks, a stale index, junk after
  /// the last block). Empty for a clean file.
  const std::vector<LayoutProblem>& problems() const noexcept { return problems_; }
  /// For a file in a pre-1.0 dialect (read through `upgrade_legacy`, so that everything else
  /// here describes its modern form): what it was. nullopt for a modern file.
  const std::optional<LegacyInfo>& legacy() const noexcept { return legacy_; }

  /// Return block `i`'s bytes as stored on disk: a zero-copy view of the mapping.
  io::Buffer stored_data(std::size_t i) const;
  /// Return block `i`'s decoded data: a zero-copy view when uncompressed, else a new buffer of
  /// exactly data_size bytes. With `verify_checksum`, throw `Error` (checksum) naming the block
  /// and its offset when the stored MD5 matches neither convention.
  io::Buffer data(std::size_t i, bool verify_checksum = false) const;
  /// Hand block `i`'s decoded data to `write` in order, in pieces, without holding it whole:
  /// mapped pieces of an uncompressed block, or the codec's `decompress_stream` (a few MiB at a
  /// time for zlib and lz4). The same checks and errors as `data`, except that a corrupt
  /// stream or a checksum mismatch is found only after earlier pieces were handed on: whoever
  /// writes them somewhere must discard the result when this throws. `threads` decode a zlib
  /// block written in pieces side by side (0: the hardware's; see `Codec::decompress_stream`).
  void data_stream(std::size_t i, bool verify_checksum, const compression::WriteNext& write,
                   unsigned threads = 0) const;
  /// Compare block `i`'s checksum with its stored and decoded bytes.
  ChecksumStatus check(std::size_t i) const;
  /// Verify block `i`'s checksum without keeping its data: the MD5 of its stored bytes, else,
  /// for a compressed block, of its data decoded as a stream (bounded memory). Return
  /// kUnchecked (no checksum), kMatchesStored or kMatchesDecoded; throw `Error` (checksum)
  /// naming the block, its offset and the MD5s when neither convention matches (or the data
  /// cannot be decoded to try the second).
  ChecksumStatus verify_checksum(std::size_t i) const;

 private:
  Container() = default;
  void scan(const ReadOptions& options);
  void walk_blocks(std::uint64_t first, bool strict);
  void check_index();
  void add_problem(LayoutProblem::Kind kind, std::uint64_t offset, std::string message,
                   bool strict);
  const BlockInfo& block_at(std::size_t i) const;
  ErrorContext where(std::size_t i) const;
  /// Return block `i`'s codec (nullptr when uncompressed) after checking that it is known and
  /// that the declared data_size is within the limit and what the stored bytes can decode to.
  const compression::Codec* codec_for(std::size_t i) const;
  /// Return the MD5 of block `i`'s stored bytes when `verify` is set and its header has a
  /// checksum, else nothing.
  std::optional<compression::Md5Digest> stored_digest(std::size_t i, bool verify) const;
  /// Return the error for block `i`, whose stored bytes hash to `stored_md5` and decoded data to
  /// `decoded_md5` (when it was hashed; else `why_not_decoded` says why not, if it was tried),
  /// matching neither checksum convention.
  Error checksum_mismatch(std::size_t i, const compression::Md5Digest& stored_md5,
                          const std::optional<compression::Md5Digest>& decoded_md5 = std::nullopt,
                          const std::string& why_not_decoded = {}) const;

  std::string name_;
  io::Buffer bytes_;
  compression::CodecRegistry codecs_;
  std::uint64_t max_block_data_size_ = 0;
  Prologue prologue_;
  std::vector<BlockInfo> blocks_;
  std::optional<BlockIndex> index_;
  bool index_valid_ = false;
  std::vector<LayoutProblem> problems_;
  std::optional<LegacyInfo> legacy_;
};

}  // namespace asdfcore::format
