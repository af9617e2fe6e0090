// The parallel zlib decoder (src/compression/inflate_parallel.h): a stream written in pieces is
// decoded in segments side by side, and every stream gives exactly the bytes and the verdict
// of the one-thread decoder, whatever looks like a flush point inside it. Small segments (a few
// KiB) make short inputs cross many of them.
#include <zlib.h>

#include <cstring>
#include <string>
#include <vector>

#include "asdfcore/compression/codec.h"
#include "asdfcore/error.h"
#include "asdfcore/io/buffer.h"
#include "compression/inflate_parallel.h"
#include "support/bytes.h"
#include "support/catch.h"

using namespace asdfcore::compression;
using asdfcore::Error;

namespace {

using Bytes = std::vector<std::uint8_t>;

using fitsasdf::test::float_like;

/// Text-like bytes with long repeats: back-references everywhere, compresses well.
Bytes repetitive(std::size_t n, std::uint32_t seed) {
  static const char* words[] = {"SIMPLE", "BITPIX", "NAXIS", "END", "COMMENT", "HISTORY", "  "};
  Bytes out;
  out.reserve(n);
  std::uint32_t x = seed;
  while (out.size() < n) {
    x = x * 1103515245u + 12345u;
    const char* w = words[(x >> 16) % 7];
    out.insert(out.end(), w, w + std::strlen(w));
  }
  out.resize(n);
  return out;
}

/// Segments of a few KiB, so a 100 KiB stream crosses dozens of them.
ParallelInflateSettings small() {
  return {.segment_in = 3000, .segment_out = 20000, .out_step = 7000,
          .min_input = 1};
}

struct Outcome {
  bool taken = false;  ///< The parallel decoder took the stream.
  bool ok = false;
  Bytes bytes;
  std::string error;
  ParallelInflateReport report;
};

Outcome parallel(const Bytes& packed, std::uint64_t size, unsigned threads,
                 const ParallelInflateSettings& settings = small()) {
  Outcome o;
  try {
    const auto input = asdfcore::io::Buffer::from_vector(packed);
    const auto report = inflate_parallel(
        input, size,
        [&](std::span<const std::uint8_t> piece) { o.bytes.insert(o.bytes.end(), piece.begin(), piece.end()); },
        threads, settings);
    o.taken = report.has_value();
    if (report) o.report = *report;
    o.ok = true;
  } catch (const Error& e) {
    o.taken = true;
    o.error = e.what();
  }
  return o;
}

/// What the one-thread decoder says of `packed`: the bytes, or why not.
Outcome in_order(const Bytes& packed, std::uint64_t size) {
  Outcome o;
  const auto codec = make_zlib_codec();
  try {
    const auto input = asdfcore::io::Buffer::from_vector(packed);
    codec->decompress_stream(
        input, size,
        [&](std::span<const std::uint8_t> piece) { o.bytes.insert(o.bytes.end(), piece.begin(), piece.end()); },
        1);
    o.ok = true;
  } catch (const Error& e) {
    o.error = e.what();
  }
  return o;
}

/// zlib's own deflate of `data`, flushing with `flush` every `every` bytes.
Bytes zlib_flushing(const Bytes& data, int level, int flush, std::size_t every) {
  z_stream z{};
  REQUIRE(deflateInit(&z, level) == Z_OK);
  Bytes out(deflateBound(&z, static_cast<uLong>(data.size())) + data.size() / every * 16 + 64);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  for (std::size_t at = 0; at < data.size(); at += every) {
    const std::size_t n = std::min(every, data.size() - at);
    z.next_in = const_cast<Bytef*>(data.data() + at);
    z.avail_in = static_cast<uInt>(n);
    const bool last = at + n == data.size();
    REQUIRE(deflate(&z, last ? Z_FINISH : flush) == (last ? Z_STREAM_END : Z_OK));
  }
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

/// The parallel decoder agrees with the one-thread one on `packed` (same bytes, or both refuse
/// it with the same message) when it takes the stream; returns whether it did.
bool agree(const Bytes& packed, std::uint64_t size, unsigned threads, const std::string& what) {
  INFO(what << " (" << packed.size() << " bytes, size " << size << ", " << threads << " threads)");
  const Outcome a = in_order(packed, size);
  const Outcome b = parallel(packed, size, threads);
  if (!b.taken) return false;
  REQUIRE(a.ok == b.ok);
  if (a.ok) {
    CHECK(a.bytes == b.bytes);
  } else {
    CHECK(a.error == b.error);
  }
  return true;
}

}  // namespace

TEST_CASE("a stream written in pieces is decoded in segments side by side",
          "[codec][zlib][parallel]") {
  const auto codec = make_zlib_codec();
  for (const unsigned threads : {2u, 3u}) {
    for (const Bytes& data : {float_like(200000, 1), repetitive(150000, 2)}) {
      INFO(threads << " threads, " << data.size() << " bytes");
      const Bytes packed = codec->compress(data, {.threads = 2, .piece_size = 4096});
      const Outcome o = parallel(packed, data.size(), threads);
      REQUIRE(o.taken);
      REQUIRE(o.ok);
      CHECK(o.bytes == data);
      // Segments of a few pieces: many decoded by the workers, none in order.
      INFO(packed.size() << " bytes packed");
      CHECK(o.report.segments >= packed.size() / 3000 - 1);
      CHECK(o.report.decoded_in_order == 0);
    }
  }
}

TEST_CASE("the codec's streaming decoder goes parallel with threads and gives the same bytes",
          "[codec][zlib][parallel]") {
  const auto codec = make_zlib_codec();
  const Bytes data = float_like((std::size_t{6} << 20) + 12345, 3);
  const Bytes packed = codec->compress(data, {});  // 1 MiB pieces
  REQUIRE(packed.size() > (std::size_t{4} << 20));
  const Outcome o = parallel(packed, data.size(), 2, ParallelInflateSettings{});
  REQUIRE(o.taken);
  CHECK(o.bytes == data);
  CHECK(o.report.segments >= 3);
  for (const unsigned threads : {0u, 1u, 2u}) {
    std::size_t calls = 0;
    Bytes out;
    const auto input = asdfcore::io::Buffer::from_vector(packed);
    codec->decompress_stream(
        input, data.size(),
        [&](std::span<const std::uint8_t> piece) {
          out.insert(out.end(), piece.begin(), piece.end());
          ++calls;
        },
        threads);
    CHECK(out == data);
  }
}

TEST_CASE("a segment too large for a worker is finished by the writing thread",
          "[codec][zlib][parallel]") {
  // Segments of two 100,000-byte pieces decode to ten times the 20,000 bytes a worker holds.
  const auto codec = make_zlib_codec();
  const Bytes data = repetitive(1000000, 4);
  const Bytes packed = codec->compress(data, {.threads = 2, .piece_size = 100000});
  ParallelInflateSettings settings = small();
  settings.segment_in = 30000;
  const Outcome o = parallel(packed, data.size(), 2, settings);
  INFO(packed.size() << " bytes packed");
  REQUIRE(o.taken);
  REQUIRE(o.ok);
  CHECK(o.bytes == data);
  CHECK(o.report.decoded_in_order > 0);
  CHECK(o.report.segments >= 5);
}

TEST_CASE("streams whose flush points keep the history are decoded in order from the first one "
          "that reaches back", "[codec][zlib][parallel]") {
  // Z_SYNC_FLUSH writes the same four bytes as a full flush but keeps the window: the next
  // piece refers back across it, which a segment started there cannot decode.
  const Bytes data = repetitive(200000, 5);
  const Bytes sync = zlib_flushing(data, 6, Z_SYNC_FLUSH, 5000);
  const Outcome o = parallel(sync, data.size(), 2);
  REQUIRE(o.taken);
  REQUIRE(o.ok);
  CHECK(o.bytes == data);
  CHECK(o.report.decoded_in_order > 0);
  CHECK(agree(sync, data.size(), 2, "sync flushes"));
  // zlib's full flushes are real cuts, as fitsasdf's are.
  const Bytes full = zlib_flushing(data, 6, Z_FULL_FLUSH, 5000);
  const Outcome f = parallel(full, data.size(), 2);
  REQUIRE(f.ok);
  CHECK(f.bytes == data);
  CHECK(f.report.segments >= full.size() / 3000 - 1);
  CHECK(f.report.decoded_in_order == 0);
}

TEST_CASE("four bytes that only look like a flush point do not cut the stream",
          "[codec][zlib][parallel]") {
  // Stored blocks (level 0) of data full of 00 00 FF FF: false flush points inside blocks.
  Bytes data(120000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = (i / 2) % 2 == 0 ? 0x00 : 0xff;
  const Bytes stored = zlib_flushing(data, 0, Z_NO_FLUSH, data.size());
  const Outcome o = parallel(stored, data.size(), 2);
  REQUIRE(o.ok);
  CHECK(o.bytes == data);
  CHECK(o.report.decoded_in_order > 0);  // the first false cut sent the rest in order
  CHECK(agree(stored, data.size(), 2, "stored blocks of 00 00 ff ff"));
  // The same bytes compressed (their Huffman codes are whatever they are) and in pieces.
  const auto codec = make_zlib_codec();
  for (const int level : {0, 1, 6}) {
    CHECK(agree(codec->compress(data, {.level = level, .threads = 2, .piece_size = 7000}),
                data.size(), 2, "pieces at level " + std::to_string(level)));
  }
}

TEST_CASE("the parallel decoder refuses what the one-thread decoder refuses, with its message",
          "[codec][zlib][parallel][error]") {
  const auto codec = make_zlib_codec();
  const Bytes data = float_like(100000, 6);
  const Bytes packed = codec->compress(data, {.threads = 2, .piece_size = 4096});
  CHECK(agree(packed, data.size(), 2, "sound"));
  SECTION("a declared size one byte short or long") {
    CHECK(agree(packed, data.size() - 1, 2, "short"));
    CHECK(agree(packed, data.size() + 1, 2, "long"));
    CHECK(agree(packed, data.size() + 100000, 2, "much longer"));
  }
  SECTION("cut anywhere") {
    std::size_t taken = 0;
    for (std::size_t keep = 3; keep < packed.size(); keep += packed.size() / 37) {
      taken += agree(Bytes(packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(keep)),
                     data.size(), 2, "cut to " + std::to_string(keep));
    }
    CHECK(taken > 30);  // all but the cuts before the first flush point
    CHECK(agree(Bytes(packed.begin(), packed.end() - 1), data.size(), 2, "one byte of the trailer cut"));
    CHECK(agree(Bytes(packed.begin(), packed.end() - 4), data.size(), 2, "the trailer cut"));
  }
  SECTION("a byte flipped anywhere") {
    for (std::size_t at = 2; at < packed.size(); at += packed.size() / 41) {
      Bytes bad = packed;
      bad[at] ^= 0x5a;
      CHECK(agree(bad, data.size(), 2, "flipped at " + std::to_string(at)));
      CHECK(agree(bad, data.size(), 3, "flipped at " + std::to_string(at)));
    }
  }
  SECTION("the trailer wrong, and junk after the stream") {
    Bytes bad = packed;
    bad.back() ^= 1;
    CHECK(agree(bad, data.size(), 2, "trailer"));
    Bytes more = packed;
    const Bytes junk = {0, 0, 0xff, 0xff, 1, 2, 3, 0, 0, 0xff, 0xff};
    for (int i = 0; i < 500; ++i) more.insert(more.end(), junk.begin(), junk.end());
    const Outcome o = parallel(more, data.size(), 2);
    REQUIRE(o.ok);
    CHECK(o.bytes == data);
  }
}

TEST_CASE("the parallel decoder leaves a stream it should not take to the one-thread decoder",
          "[codec][zlib][parallel]") {
  const Bytes data = float_like(100000, 7);
  // One long piece, as python's zlib.compress writes it: no flush point anywhere.
  uLongf n = compressBound(static_cast<uLong>(data.size()));
  Bytes plain(n);
  REQUIRE(compress2(plain.data(), &n, data.data(), static_cast<uLong>(data.size()), 6) == Z_OK);
  plain.resize(n);
  CHECK_FALSE(parallel(plain, data.size(), 2).taken);
  const auto codec = make_zlib_codec();
  const Bytes pieces = codec->compress(data, {.threads = 2, .piece_size = 4096});
  CHECK_FALSE(parallel(pieces, data.size(), 1).taken);  // one thread
  Bytes bad_header = pieces;
  bad_header[1] ^= 1;
  CHECK_FALSE(parallel(bad_header, data.size(), 2).taken);
  ParallelInflateSettings settings = small();
  settings.min_input = pieces.size() + 1;
  CHECK_FALSE(parallel(pieces, data.size(), 2, settings).taken);
}

TEST_CASE("an error from the writer stops the parallel decoder and reaches the caller",
          "[codec][zlib][parallel][error]") {
  const auto codec = make_zlib_codec();
  const Bytes data = float_like(200000, 8);
  const Bytes packed = codec->compress(data, {.threads = 2, .piece_size = 4096});
  const auto input = asdfcore::io::Buffer::from_vector(packed);
  std::size_t calls = 0;
  CHECK_THROWS_WITH(inflate_parallel(
                        input, data.size(),
                        [&](std::span<const std::uint8_t>) {
                          if (++calls == 5) throw std::runtime_error("disk full");
                        },
                        2, small()),
                    "disk full");
  CHECK(calls == 5);
}
