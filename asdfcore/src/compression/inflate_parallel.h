#pragma once
// One zlib stream decoded on several threads. fitsasdf's zlib writer cuts a block into pieces
// that each end with a full flush: an empty stored block (its LEN and NLEN are the bytes
// 00 00 FF FF) after which nothing refers back. Nothing in the stream says where those points
// are, so the decoder guesses: it looks for the four bytes, cuts the stream there into
// segments, and decodes the segments side by side, each from an empty state. A guess is kept
// only when it is proven: the segment before it ended exactly there, on a block boundary with
// no bit left over (so the sequential decoder would start a new block there too), and the
// segment after it decoded without reaching back past its start (ISA-L refuses such a
// distance). Any other stream (a false match inside the data, a sync flush that keeps the
// history, one long piece as python's zlib.compress writes it, a damaged stream) is decoded on
// in order from the last proven point, with the history before it, so the bytes and the errors
// are those of the one-thread decoder.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "asdfcore/compression/codec.h"
#include "asdfcore/io/buffer.h"

namespace asdfcore::compression {

/// How the stream is cut; tests use small values.
struct ParallelInflateSettings {
  /// The input is cut into ranges of this many bytes; a segment runs from the first flush
  /// point in one range to the first in a later one (each worker finds its own ends).
  std::size_t segment_in = std::size_t{512} << 10;
  /// Decoded bytes a worker holds for one segment; the rest is decoded when it is written.
  std::size_t segment_out = std::size_t{4} << 20;
  /// Decoded bytes handed on at a time on the stretches decoded in order.
  std::size_t out_step = std::size_t{4} << 20;
  /// Streams shorter than this (compressed) are left to the one-thread decoder.
  std::size_t min_input = std::size_t{4} << 20;
};

/// What the parallel decoder did, for tests and profiles.
struct ParallelInflateReport {
  std::size_t segments = 0;            ///< Segments whose workers' output was used.
  std::uint64_t decoded_in_order = 0;  ///< Decoded bytes produced on the in-order stretches.
};

/// Decode the zlib stream `input` (declared to decode to `size` bytes) on `threads` decoding
/// threads (0: the hardware's), handing the bytes to `write` in order from the calling thread,
/// with the guarantees of `Codec::decompress_stream`. Returns nullopt, having written nothing,
/// when the stream is not worth it (fewer than 2 threads, a short stream, no flush point near
/// its start, a header ISA-L's own decoder should judge); the caller then decodes it in order.
std::optional<ParallelInflateReport> inflate_parallel(const io::Buffer& input, std::uint64_t size,
                                                      const WriteNext& write, unsigned threads,
                                                      const ParallelInflateSettings& settings = {});

/// Return what ISA-L's inflate return code `rc` (negative: an error) means.
std::string isal_inflate_error(int rc);

}  // namespace asdfcore::compression
