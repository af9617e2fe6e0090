#pragma once
/// \file
/// Block compression: one small interface per codec, chosen by the block's 4-byte label.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/io/buffer.h"

namespace asdfcore::compression {

/// Settings for compressing one block.
struct CompressOptions {
  /// Codec-specific level; -1 picks the codec's default. zlib (zlib's 0-9 scale): -1 (default)
  /// and 1-2 = ISA-L level 1 (about 25x zlib 6's speed, a ratio within ~6% of it on float
  /// images), 3 = ISA-L 2, 4 = ISA-L 3, 0 and 5-9 = zlib itself at that level (0 stores; 6 is
  /// python asdf's ratio and speed per core). ISA-L's level 0 is not used: it leaves float data
  /// uncompressed. Every level is cut into pieces compressed in parallel.
  /// bzp2: 1-9 (block size in 100 kB; default 9). lz4: the acceleration (default 1).
  int level = -1;
  /// Threads that compress pieces of one block side by side (the caller's own thread included);
  /// 0 means `std::thread::hardware_concurrency()`. The output does not depend on it.
  unsigned threads = 0;
  /// Bytes of input per independently compressed piece; 0 picks the codec's default (zlib
  /// 1 MiB, lz4 4 MiB as python asdf cuts it). Tests use small pieces; the output of a given
  /// piece size does not depend on `threads`.
  std::size_t piece_size = 0;
};

/// Fill `buffer` with the next bytes of the data to compress, in order: exactly `buffer.size()`
/// bytes (the caller never asks past the declared size). Called one call at a time.
using ReadNext = std::function<void(std::span<std::uint8_t> buffer)>;

/// Take the next bytes of the compressed stream, in order. Called one call at a time.
using WriteNext = std::function<void(std::span<const std::uint8_t> bytes)>;

/// One compression algorithm as ASDF frames it inside a block.
class Codec {
 public:
  virtual ~Codec() = default;

  /// Return the block header label, 1 to 4 ASCII characters ("zlib", "bzp2", "lz4").
  virtual std::string_view label() const noexcept = 0;

  /// Compress `input` into a new byte vector in the framing that python asdf reads.
  virtual std::vector<std::uint8_t> compress(std::span<const std::uint8_t> input,
                                             const CompressOptions& options) const = 0;

  /// Compress `size` bytes taken from `read` and hand the framed stream to `write`, holding only
  /// a bounded number of pieces in memory (zlib and lz4: about 2 x threads pieces), so an array
  /// of any size is compressed straight from its file into the output. The bytes written are
  /// those `compress` returns for the same input and options. `read` is called in input order
  /// and `write` in output order, never two of either at once, but possibly from worker
  /// threads; an exception from either stops the work and is rethrown here. The default reads
  /// the whole input into memory and calls `compress` (bzp2, and codecs added by users).
  virtual void compress_stream(std::uint64_t size, const ReadNext& read, const WriteNext& write,
                               const CompressOptions& options) const;

  /// Return the most bytes `stored_size` bytes of this codec's output can decode to (the
  /// format's worst-case expansion), so a forged `data_size` is refused before any allocation.
  virtual std::uint64_t max_decoded_size(std::uint64_t stored_size) const noexcept = 0;

  /// Decode `input` into `output`, which has exactly the block's declared `data_size` bytes.
  /// Throws `Error` (compression) when the stream is corrupt or decodes to any other size; never
  /// writes past `output`.
  virtual void decompress(std::span<const std::uint8_t> input,
                          std::span<std::uint8_t> output) const = 0;

  /// Decode `input` (all of a block's stored bytes) and hand the decoded bytes to `write` in
  /// order, in pieces, holding a bounded amount in memory (zlib: a stream written in pieces, as
  /// fitsasdf writes them, is decoded in segments on `threads` threads (0: the hardware's),
  /// any other in 4 MiB pieces through ISA-L's streaming inflate, each written by a second
  /// thread while the next is decoded; lz4: one
  /// chunk at a time; bzp2: 4 MiB pieces through libbz2's streaming decoder), so a block of any size can be written somewhere else without being
  /// decoded whole. The pages of a file-backed `input` are released as they are consumed. The
  /// bytes handed on are those `decompress` gives into `size` bytes, and the same streams are
  /// refused, with `Error` (compression); but a stream found corrupt part way has had its
  /// earlier pieces handed on already, so the caller must discard what it wrote. `write` is
  /// called one call at a time, possibly from another thread. The default decodes the whole
  /// block into memory and hands it on at once (codecs added by users).
  virtual void decompress_stream(const io::Buffer& input, std::uint64_t size,
                                 const WriteNext& write, unsigned threads = 0) const;
};

/// The codecs a reader or writer knows, looked up by label; the first match wins.
class CodecRegistry {
 public:
  /// Return a registry holding zlib, bzp2 and lz4.
  static CodecRegistry with_builtins();

  /// Add `codec`; a codec added earlier with the same label keeps precedence.
  void add(std::shared_ptr<const Codec> codec);

  /// Return the codec for `label` (trailing NULs ignored), or nullptr when none is registered.
  const Codec* find(std::string_view label) const noexcept;

  /// Return the labels of every registered codec, in registration order.
  std::vector<std::string> labels() const;

 private:
  std::vector<std::shared_ptr<const Codec>> codecs_;
};

/// Return the zlib codec: one RFC 1950 stream per block (what python asdf's zlib.decompressobj
/// reads). Input is cut into pieces compressed side by side as raw deflate (ISA-L, or zlib for
/// levels 0 and 9), each but the last ending on a byte boundary after a full flush, so the
/// pieces concatenate into one deflate stream behind one zlib header; the Adler-32 trailer is
/// combined from the pieces' sums. Decoding uses libdeflate, and zlib's streaming inflate for
/// the diagnostics when libdeflate refuses a stream.
std::shared_ptr<const Codec> make_zlib_codec();
/// Return the bzip2 codec, label "bzp2".
std::shared_ptr<const Codec> make_bzp2_codec();
/// Return the lz4 codec in python asdf's framing: 4 MiB chunks, each a big-endian u32 byte count
/// followed by an lz4 block that starts with its little-endian u32 decoded size. The chunks are
/// independent, so they are compressed side by side.
std::shared_ptr<const Codec> make_lz4_codec();

}  // namespace asdfcore::compression
