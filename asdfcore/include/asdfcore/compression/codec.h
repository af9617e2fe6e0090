#pragma once
/// \file
/// Block compression: one small interface per codec, chosen by the block's 4-byte label.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace asdfcore::compression {

/// Settings for compressing one block.
struct CompressOptions {
  int level = -1;  ///< Codec-specific level; -1 picks the codec's default.
};

/// One compression algorithm as ASDF frames it inside a block.
class Codec {
 public:
  virtual ~Codec() = default;

  /// Return the block header label, 1 to 4 ASCII characters ("zlib", "bzp2", "lz4").
  virtual std::string_view label() const noexcept = 0;

  /// Compress `input` into a new byte vector in the framing that python asdf reads.
  virtual std::vector<std::uint8_t> compress(std::span<const std::uint8_t> input,
                                             const CompressOptions& options) const = 0;

  /// Return the most bytes `stored_size` bytes of this codec's output can decode to (the
  /// format's worst-case expansion), so a forged `data_size` is refused before any allocation.
  virtual std::uint64_t max_decoded_size(std::uint64_t stored_size) const noexcept = 0;

  /// Decode `input` into `output`, which has exactly the block's declared `data_size` bytes.
  /// Throws `Error` (compression) when the stream is corrupt or decodes to any other size; never
  /// writes past `output`.
  virtual void decompress(std::span<const std::uint8_t> input,
                          std::span<std::uint8_t> output) const = 0;
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

/// Return the zlib codec (RFC 1950 streams).
std::shared_ptr<const Codec> make_zlib_codec();
/// Return the bzip2 codec, label "bzp2".
std::shared_ptr<const Codec> make_bzp2_codec();
/// Return the lz4 codec in python asdf's framing: 4 MiB chunks, each a big-endian u32 byte count
/// followed by an lz4 block that starts with its little-endian u32 decoded size.
std::shared_ptr<const Codec> make_lz4_codec();

}  // namespace asdfcore::compression
