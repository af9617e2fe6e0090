// zlib blocks: one RFC 1950 stream per block. That is all python asdf reads: its
// zlib.decompressobj stops at the end of the first stream and ignores what follows.
//
// Compression cuts the input into pieces and deflates them side by side as raw deflate. Every
// piece but the last ends with a full flush (an empty stored block), which leaves it on a byte
// boundary with no reference into earlier pieces and no final-block bit; the last piece ends the
// stream. Written in order after one zlib header, the pieces form a single deflate stream, and
// the Adler-32 trailer is the pieces' sums combined (adler32_combine). ISA-L's igzip does the
// deflating for the fast levels, zlib for levels 0 (stored) and 9 (its slowest, tightest).
//
// Decompression goes through libdeflate into the block's exactly sized buffer. When libdeflate
// refuses a stream (corrupt, truncated, wrong size), zlib's streaming inflate decodes it again
// to say precisely what is wrong. A block decoded on its way somewhere else (decompress_stream)
// goes through ISA-L's streaming inflate, a few MiB at a time: segments of a stream written in
// pieces side by side on every thread (inflate_parallel.h), any other stream in order.
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <future>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "asdfcore/compression/codec.h"
#include "asdfcore/error.h"
#include "compression/buffer_pool.h"
#include "compression/inflate_parallel.h"
#include "compression/ordered_parallel.h"
#include "compression/span_reader.h"

namespace asdfcore::compression {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw Error(ErrorCode::kCompression, "zlib: " + what);
}

/// Feeds a span of any size through zlib's 32-bit `avail_*` counters.
constexpr std::size_t kStep = std::numeric_limits<uInt>::max();

/// Bytes of input per piece unless the caller says otherwise: large enough that the flush
/// markers and the lost 32 KiB of history cost nothing measurable, small enough that two
/// threads share even a few-MiB array.
constexpr std::size_t kDefaultPiece = std::size_t{1} << 20;

/// Upper bound on a piece (ISA-L and zlib count input in 32 bits).
constexpr std::size_t kMaxPiece = std::size_t{1} << 30;

/// Which deflate implementation compresses, at which of its own levels.
struct Plan {
  bool isal = true;
  int level = 1;
  std::uint8_t flevel = 0;  ///< The zlib header's FLEVEL (0 fastest ... 3 slowest).
};

/// Map zlib's 0-9 scale (and -1 for the default) onto the implementations; see
/// CompressOptions. ISA-L's own level 0 is left out: its fixed Huffman tables leave float data
/// uncompressed.
Plan plan_for(int level) {
  if (level < 0) return {true, 1, 0};
  if (level == 0) return {false, 0, 0};
  if (level <= 2) return {true, 1, 0};
  if (level == 3) return {true, 2, 1};
  if (level == 4) return {true, 3, 1};
  const int z = std::min(level, 9);
  return {false, z, static_cast<std::uint8_t>(z == 5 ? 1 : z == 6 ? 2 : 3)};
}

/// The level buffer ISA-L needs for `level` (none for level 0).
std::size_t isal_level_buffer(int level) {
  switch (level) {
    case 1: return ISAL_DEF_LVL1_DEFAULT;
    case 2: return ISAL_DEF_LVL2_DEFAULT;
    case 3: return ISAL_DEF_LVL3_DEFAULT;
    default: return 0;
  }
}

/// One compressed piece, with what the trailer needs.
struct Piece {
  parallel::PooledBytes out;
  std::uint32_t adler = 1;
  std::size_t length = 0;
};

/// Raw deflate of `in` with ISA-L into `out` (grown when too small); ends the stream when
/// `last`, else ends on a full flush. Returns the bytes written at the front of `out`.
std::size_t deflate_isal(std::span<const std::uint8_t> in, int level, bool last,
                         std::vector<std::uint8_t>& level_buf, std::vector<std::uint8_t>& out) {
  // Stored blocks bound the output: 5 bytes per 64 KiB at worst, plus the flush marker.
  const std::size_t capacity = in.size() + in.size() / 8192 + 1024;
  if (out.size() < capacity) out.resize(capacity);
  for (;;) {
    isal_zstream z{};  // zeroed first: the stateless init leaves hist_bits (the window) unset
    isal_deflate_stateless_init(&z);
    z.next_in = const_cast<std::uint8_t*>(in.data());
    z.avail_in = static_cast<std::uint32_t>(in.size());
    z.next_out = out.data();
    z.avail_out = static_cast<std::uint32_t>(std::min<std::size_t>(out.size(), kMaxPiece * 2));
    z.level = static_cast<std::uint32_t>(level);
    z.level_buf = level_buf.empty() ? nullptr : level_buf.data();
    z.level_buf_size = static_cast<std::uint32_t>(level_buf.size());
    z.gzip_flag = IGZIP_DEFLATE;
    z.end_of_stream = last ? 1 : 0;
    z.flush = last ? NO_FLUSH : FULL_FLUSH;
    const int rc = isal_deflate_stateless(&z);
    if (rc == COMP_OK) return z.total_out;
    if (rc != STATELESS_OVERFLOW || out.size() > 2 * in.size() + 65536) {
      fail("ISA-L compressor failed with code " + std::to_string(rc));
    }
    out.resize(out.size() * 2);
  }
}

/// Raw deflate of `in` with zlib at `level` into `out` (grown when too small); ends the stream
/// when `last`, else on a full flush. Returns the bytes written at the front of `out`.
std::size_t deflate_zlib(std::span<const std::uint8_t> in, int level, bool last,
                         std::vector<std::uint8_t>& out) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    fail("cannot start the compressor");
  }
  const std::size_t bound = deflateBound(&z, static_cast<uLong>(in.size())) + 64;
  if (out.size() < bound) out.resize(bound);
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  std::size_t done = 0;
  for (;;) {
    if (done == out.size()) out.resize(out.size() * 2);
    z.next_out = out.data() + done;
    z.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - done, kStep));
    const uInt offered = z.avail_out;
    const int rc = deflate(&z, last ? Z_FINISH : Z_FULL_FLUSH);
    done += offered - z.avail_out;
    if (rc == Z_STREAM_ERROR) {
      deflateEnd(&z);
      fail("compressor failed");
    }
    if (last ? rc == Z_STREAM_END : (z.avail_in == 0 && z.avail_out > 0)) break;
  }
  deflateEnd(&z);
  return done;
}

/// Decode `input` with zlib's streaming inflate into exactly `output`; throws with the reason
/// for any stream that does not decode to exactly `output.size()` bytes.
void inflate_checked(std::span<const std::uint8_t> input, std::span<std::uint8_t> output) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) fail("cannot start the decompressor");
  std::size_t in_done = 0;
  std::size_t out_done = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    const std::size_t in_chunk = std::min(input.size() - in_done, kStep);
    const std::size_t out_chunk = std::min(output.size() - out_done, kStep);
    // One spare byte of room past the declared size detects a stream that decodes to more.
    std::uint8_t spare = 0;
    z.next_in = const_cast<Bytef*>(input.data() + in_done);
    z.avail_in = static_cast<uInt>(in_chunk);
    z.next_out = out_chunk > 0 ? output.data() + out_done : &spare;
    z.avail_out = out_chunk > 0 ? static_cast<uInt>(out_chunk) : 1;
    rc = inflate(&z, Z_NO_FLUSH);
    const std::size_t produced = (out_chunk > 0 ? out_chunk : 1) - z.avail_out;
    in_done += in_chunk - z.avail_in;
    if (out_chunk == 0 && produced > 0) {
      inflateEnd(&z);
      fail("stream decodes to more than the declared data_size of " +
           std::to_string(output.size()) + " bytes");
    }
    out_done += produced;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && in_done == input.size()) {
      inflateEnd(&z);
      fail("stream is truncated: it ends after decoding " + std::to_string(out_done) + " of " +
           std::to_string(output.size()) + " bytes");
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      std::string msg = z.msg != nullptr ? z.msg : "corrupt data";
      inflateEnd(&z);
      fail("corrupt stream (" + msg + ") after " + std::to_string(in_done) + " input bytes");
    }
  }
  inflateEnd(&z);
  if (out_done != output.size()) {
    fail("stream decodes to " + std::to_string(out_done) + " bytes, but the block declares " +
         "data_size " + std::to_string(output.size()));
  }
}

/// Decode `input` with libdeflate into exactly `output`; false when libdeflate refuses it
/// (the output is then undefined). Bytes after the end of the stream are ignored, as zlib and
/// python do.
bool inflate_fast(std::span<const std::uint8_t> input, std::span<std::uint8_t> output) {
  const std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(
      libdeflate_alloc_decompressor(), &libdeflate_free_decompressor);
  if (!d) return false;
  std::uint8_t none = 0;
  std::size_t consumed = 0;
  // No actual-size pointer: libdeflate then insists on exactly output.size() bytes and never
  // writes past them.
  const libdeflate_result rc = libdeflate_zlib_decompress_ex(
      d.get(), input.data(), input.size(), output.empty() ? &none : output.data(), output.size(),
      &consumed, nullptr);
  return rc == LIBDEFLATE_SUCCESS;
}

/// Decoded bytes per piece of `decompress_stream`, and the input it feeds ISA-L at a time.
constexpr std::size_t kInflatePiece = std::size_t{4} << 20;
constexpr std::size_t kInflateInput = std::size_t{16} << 20;

class ZlibCodec final : public Codec {
 public:
  std::string_view label() const noexcept override { return "zlib"; }

  std::vector<std::uint8_t> compress(std::span<const std::uint8_t> input,
                                     const CompressOptions& options) const override {
    std::vector<std::uint8_t> out;
    out.reserve(input.size() + input.size() / 64 + 64);
    compress_stream(input.size(), span_reader(input),
                    [&out](std::span<const std::uint8_t> b) { out.insert(out.end(), b.begin(), b.end()); },
                    options);
    return out;
  }

  void compress_stream(std::uint64_t size, const ReadNext& read, const WriteNext& write,
                       const CompressOptions& options) const override {
    const Plan plan = plan_for(options.level);
    const std::size_t piece = std::clamp<std::size_t>(
        options.piece_size > 0 ? options.piece_size : kDefaultPiece, 1, kMaxPiece);
    const std::uint64_t count = std::max<std::uint64_t>(1, (size + piece - 1) / piece);
    const unsigned threads = static_cast<unsigned>(
        std::min<std::uint64_t>(parallel::resolve_threads(options.threads), count));

    // CMF 0x78: deflate with a 32 KiB window; FLG: the level hint, then the check bits.
    const unsigned cmf = 0x78;
    unsigned flg = static_cast<unsigned>(plan.flevel) << 6;
    flg += (31 - (cmf * 256 + flg) % 31) % 31;
    const std::uint8_t header[2] = {static_cast<std::uint8_t>(cmf), static_cast<std::uint8_t>(flg)};
    write(header);

    // Each worker reads its piece into its own buffer (in turn: the input is one sequential
    // source), then deflates it while the others read and deflate theirs.
    std::vector<std::vector<std::uint8_t>> inputs(threads);
    std::vector<std::vector<std::uint8_t>> level_bufs(threads);
    parallel::BufferPool outputs;
    parallel::Turnstile reading;
    std::uint32_t adler = 1;
    parallel::run_in_order<Piece>(
        static_cast<std::size_t>(count), threads,
        [&](std::size_t index, unsigned worker) {
          const std::uint64_t at = std::uint64_t{index} * piece;
          const auto length = static_cast<std::size_t>(std::min<std::uint64_t>(piece, size - at));
          std::vector<std::uint8_t>& in = inputs[worker];
          in.resize(length);
          reading.pass(index, [&] {
            if (length > 0) read(in);
          });
          const bool last = index + 1 == count;
          Piece p;
          p.length = in.size();
          p.adler = isal_adler32(1, in.data(), in.size());
          p.out.buffer = outputs.take(in.size() + in.size() / 8192 + 1024);
          if (plan.isal) {
            auto& buf = level_bufs[worker];
            if (buf.size() != isal_level_buffer(plan.level)) buf.resize(isal_level_buffer(plan.level));
            p.out.used = deflate_isal(in, plan.level, last, buf, p.out.buffer);
          } else {
            p.out.used = deflate_zlib(in, plan.level, last, p.out.buffer);
          }
          return p;
        },
        [&](std::size_t, Piece&& p) {
          write(p.out.bytes());
          outputs.give(std::move(p.out.buffer));
          adler = static_cast<std::uint32_t>(
              adler32_combine(adler, p.adler, static_cast<z_off_t>(p.length)));
        });
    std::uint8_t trailer[4];
    for (int i = 0; i < 4; ++i) trailer[i] = static_cast<std::uint8_t>(adler >> (24 - 8 * i));
    write(trailer);
  }

  std::uint64_t max_decoded_size(std::uint64_t stored_size) const noexcept override {
    // deflate expands at most 1032:1 (a 258-byte match per 2 bits); a little slack for the header.
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / 1032;
    return stored_size >= limit ? std::numeric_limits<std::uint64_t>::max()
                                : stored_size * 1032 + 64;
  }

  void decompress(std::span<const std::uint8_t> input,
                  std::span<std::uint8_t> output) const override {
    if (inflate_fast(input, output)) return;
    inflate_checked(input, output);
  }

  void decompress_stream(const io::Buffer& input, std::uint64_t size, const WriteNext& write,
                         unsigned threads) const override {
    // A stream written in pieces (fitsasdf's) is decoded on every thread (inflate_parallel.h).
    if (inflate_parallel(input, size, write, threads)) return;
    // ISA-L's inflate, like zlib's, decodes a stream piece by piece (libdeflate only decodes
    // whole), at about libdeflate's speed. It checks the zlib header and the Adler-32 trailer
    // itself; what follows the end of the stream is ignored, as python does. Each decoded piece
    // is written by a second thread while the next is decoded into the other buffer (the
    // kernel's copy into the page cache costs about as much as the decoding).
    const auto state = std::make_unique<inflate_state>();
    isal_inflate_init(state.get());
    state->crc_flag = ISAL_ZLIB;
    const std::span<const std::uint8_t> in = input.span();
    // One byte more than the declared size can hold shows a stream that decodes to more.
    const auto capacity =
        static_cast<std::size_t>(std::min<std::uint64_t>(kInflatePiece, size)) + 1;
    std::vector<std::uint8_t> buffers[2] = {std::vector<std::uint8_t>(capacity),
                                            std::vector<std::uint8_t>(size >= kInflatePiece ? capacity : 0)};
    std::future<void> writing;
    const auto wait_writing = [&writing] {
      if (writing.valid()) writing.get();
    };
    int turn = 0;
    std::size_t fed = 0;
    std::size_t released = 0;
    std::uint64_t done = 0;
    try {
      for (;;) {
        if (state->avail_in == 0 && fed < in.size()) {
          // Input in 16 MiB steps, whose pages are let go once consumed (ISA-L counts in 32 bits).
          input.release(in.subspan(released, fed - released));
          released = fed;
          const std::size_t step = std::min<std::size_t>(in.size() - fed, kInflateInput);
          state->next_in = const_cast<std::uint8_t*>(in.data() + fed);
          state->avail_in = static_cast<std::uint32_t>(step);
          fed += step;
        }
        std::vector<std::uint8_t>& buffer = buffers[turn];
        state->next_out = buffer.data();
        state->avail_out = static_cast<std::uint32_t>(buffer.size());
        const int rc = isal_inflate(state.get());
        const std::size_t produced = buffer.size() - state->avail_out;
        if (produced > size - done) {
          fail("stream decodes to more than the declared data_size of " + std::to_string(size) +
               " bytes");
        }
        if (produced > 0) {
          wait_writing();  // in order, one at a time; and the other buffer is free again
          const std::span<const std::uint8_t> piece(buffer.data(), produced);
          if (buffers[1].empty()) {
            write(piece);
          } else {
            writing = std::async(std::launch::async, [&write, piece] { write(piece); });
            turn ^= 1;
          }
        }
        done += produced;
        if (rc < 0) {
          fail("corrupt stream (" + isal_inflate_error(rc) + ") after " +
               std::to_string(fed - state->avail_in) + " input bytes");
        }
        if (rc == ISAL_NEED_DICT) {
          fail("stream needs a preset dictionary, which a block cannot carry");
        }
        if (state->block_state == ISAL_BLOCK_FINISH) break;
        if (produced == 0 && state->avail_in == 0 && fed == in.size()) {
          fail("stream is truncated: it ends after decoding " + std::to_string(done) + " of " +
               std::to_string(size) + " bytes");
        }
      }
      wait_writing();
    } catch (...) {
      if (writing.valid()) writing.wait();  // it still uses a buffer; its own error is dropped
      throw;
    }
    input.release();
    if (done != size) {
      fail("stream decodes to " + std::to_string(done) + " bytes, but the block declares " +
           "data_size " + std::to_string(size));
    }
  }
};

}  // namespace

std::shared_ptr<const Codec> make_zlib_codec() { return std::make_shared<ZlibCodec>(); }

}  // namespace asdfcore::compression
