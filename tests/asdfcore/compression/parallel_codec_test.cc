// Compression in pieces on several threads: every codec round-trips at the piece boundaries
// with one thread and with several, the bytes do not depend on the thread count, and a zlib
// block cut into many pieces is still one standard zlib stream (plain zlib inflate and libdeflate
// both read it to its last byte, Adler-32 included).
#include <bzlib.h>
#include <libdeflate.h>
#include <zlib.h>

#include <cstring>
#include <string>
#include <vector>

#include "asdfcore/compression/codec.h"
#include "asdfcore/error.h"
#include "support/catch.h"

using namespace asdfcore::compression;

namespace {

using Bytes = std::vector<std::uint8_t>;
constexpr std::size_t kPiece = std::size_t{64} << 10;

/// Float-like data: a slowly varying value with noisy low bits, compressible but not trivially.
Bytes noisy(std::size_t n, std::uint32_t seed) {
  Bytes out(n);
  std::uint32_t x = seed * 2654435761u + 1u;
  for (std::size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    out[i] = (i % 4 < 2) ? static_cast<std::uint8_t>(i / 4096) : static_cast<std::uint8_t>(x >> 24);
  }
  return out;
}

/// Inflate `packed` with plain zlib as ONE stream: true only when the stream ends exactly at the
/// last input byte, with a matching Adler-32, having produced `expected`.
bool zlib_reads_one_stream(const Bytes& packed, const Bytes& expected) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return false;
  Bytes out(expected.size() + 1);
  z.next_in = const_cast<Bytef*>(packed.data());
  z.avail_in = static_cast<uInt>(packed.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&z, Z_FINISH);
  const bool ok = rc == Z_STREAM_END && z.avail_in == 0 && z.total_out == expected.size() &&
                  (expected.empty() || std::memcmp(out.data(), expected.data(), expected.size()) == 0);
  inflateEnd(&z);
  return ok;
}

/// Decode `packed` with libdeflate; true when it is one zlib stream using every byte.
bool libdeflate_reads_one_stream(const Bytes& packed, const Bytes& expected) {
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  Bytes out(expected.size() + 1);
  std::size_t used = 0;
  std::size_t produced = 0;
  const auto rc = libdeflate_zlib_decompress_ex(d, packed.data(), packed.size(), out.data(),
                                                out.size(), &used, &produced);
  libdeflate_free_decompressor(d);
  out.resize(produced);
  return rc == LIBDEFLATE_SUCCESS && used == packed.size() && out == expected;
}

/// Decode `packed` with plain libbz2 as ONE stream: true only when the stream ends exactly at the
/// last input byte (CRCs checked) having produced `expected`.
bool bzip2_reads_one_stream(const Bytes& packed, const Bytes& expected) {
  bz_stream z{};
  if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK) return false;
  Bytes out(expected.size() + 1);
  z.next_in = const_cast<char*>(reinterpret_cast<const char*>(packed.data()));
  z.avail_in = static_cast<unsigned>(packed.size());
  z.next_out = reinterpret_cast<char*>(out.data());
  z.avail_out = static_cast<unsigned>(out.size());
  const int rc = BZ2_bzDecompress(&z);
  const bool ok = rc == BZ_STREAM_END && z.avail_in == 0 &&
                  out.size() - z.avail_out == expected.size() &&
                  (expected.empty() || std::memcmp(out.data(), expected.data(), expected.size()) == 0);
  BZ2_bzDecompressEnd(&z);
  return ok;
}

/// Compress `input` with plain libbz2 in one call, as python's bz2.compress does.
Bytes plain_bzip2(const Bytes& input, int level) {
  unsigned n = static_cast<unsigned>(input.size() + input.size() / 100 + 600);
  Bytes out(n);
  if (BZ2_bzBuffToBuffCompress(reinterpret_cast<char*>(out.data()), &n,
                               const_cast<char*>(reinterpret_cast<const char*>(input.data())),
                               static_cast<unsigned>(input.size()), level, 0, 0) != BZ_OK) {
    return {};
  }
  out.resize(n);
  return out;
}

std::vector<std::size_t> boundary_sizes() {
  return {0, 1, kPiece - 1, kPiece, kPiece + 1, 7 * kPiece + kPiece / 2};
}

}  // namespace

TEST_CASE("every codec round-trips at the piece boundaries, on one thread and on four",
          "[codec][parallel]") {
  const CodecRegistry registry = CodecRegistry::with_builtins();
  const std::string label = GENERATE(as<std::string>{}, "zlib", "bzp2", "lz4");
  const Codec* codec = registry.find(label);
  REQUIRE(codec != nullptr);
  for (const std::size_t size : boundary_sizes()) {
    const Bytes input = noisy(size, static_cast<std::uint32_t>(size));
    Bytes first;
    for (const unsigned threads : {1u, 4u}) {
      INFO(label << ", " << size << " bytes, " << threads << " threads");
      const Bytes packed = codec->compress(input, {.threads = threads, .piece_size = kPiece});
      Bytes out(input.size(), 0xAA);
      codec->decompress(packed, out);
      CHECK(out == input);
      // The thread count never changes the bytes.
      if (threads == 1) {
        first = packed;
      } else {
        CHECK(packed == first);
      }
    }
  }
}

TEST_CASE("a zlib block of many pieces is one standard zlib stream", "[codec][parallel][zlib]") {
  const auto codec = make_zlib_codec();
  for (const std::size_t size : boundary_sizes()) {
    const Bytes input = noisy(size, 7);
    INFO(size << " bytes");
    const Bytes packed = codec->compress(input, {.threads = 3, .piece_size = kPiece});
    REQUIRE(packed.size() >= 6);
    CHECK(packed[0] == 0x78);
    CHECK(((packed[0] << 8) | packed[1]) % 31 == 0);
    CHECK(zlib_reads_one_stream(packed, input));
    CHECK(libdeflate_reads_one_stream(packed, input));
    // The trailer is the Adler-32 of the whole input, big-endian.
    const uLong adler = adler32(1, input.data(), static_cast<uInt>(input.size()));
    const std::size_t t = packed.size() - 4;
    CHECK(((std::uint32_t{packed[t]} << 24) | (std::uint32_t{packed[t + 1]} << 16) |
           (std::uint32_t{packed[t + 2]} << 8) | packed[t + 3]) == adler);
  }
}

TEST_CASE("every zlib level gives a standard stream that round-trips", "[codec][parallel][zlib]") {
  const auto codec = make_zlib_codec();
  const Bytes input = noisy(3 * kPiece + 5, 11);
  for (int level = -1; level <= 9; ++level) {
    INFO("level " << level);
    const Bytes packed = codec->compress(input, {.level = level, .threads = 2, .piece_size = kPiece});
    CHECK(zlib_reads_one_stream(packed, input));
    Bytes out(input.size());
    codec->decompress(packed, out);
    CHECK(out == input);
    if (level == 0) CHECK(packed.size() > input.size());  // stored, as zlib's level 0
    // ISA-L's level 0 (our 1) uses fixed Huffman tables, so it may not shrink match-less data.
    if (level != 0 && level != 1) CHECK(packed.size() < input.size());
  }
}

TEST_CASE("zlib decodes what plain zlib writes at any level, as python's zlib.compress does",
          "[codec][zlib]") {
  const auto codec = make_zlib_codec();
  const Bytes input = noisy(300000, 3);
  for (const int level : {0, 1, 6, 9}) {
    INFO("level " << level);
    uLongf n = compressBound(static_cast<uLong>(input.size()));
    Bytes packed(n);
    REQUIRE(compress2(packed.data(), &n, input.data(), static_cast<uLong>(input.size()), level) ==
            Z_OK);
    packed.resize(n);
    Bytes out(input.size());
    codec->decompress(packed, out);
    CHECK(out == input);
    // Bytes after the end of the stream are ignored, as python's decompressobj ignores them.
    packed.push_back(0x42);
    codec->decompress(packed, out);
    CHECK(out == input);
  }
}

TEST_CASE("a corrupt piece in the middle of a parallel zlib stream is refused",
          "[codec][parallel][zlib][error]") {
  const auto codec = make_zlib_codec();
  const Bytes input = noisy(5 * kPiece, 5);
  Bytes packed = codec->compress(input, {.threads = 2, .piece_size = kPiece});
  packed[packed.size() / 2] ^= 0x55;
  Bytes out(input.size());
  CHECK_THROWS_AS(codec->decompress(packed, out), asdfcore::Error);
  // A stream that decodes to one byte more or less than declared is refused.
  const Bytes good = codec->compress(input, {.threads = 2, .piece_size = kPiece});
  Bytes shorter(input.size() - 1);
  CHECK_THROWS_AS(codec->decompress(good, shorter), asdfcore::Error);
  Bytes longer(input.size() + 1);
  CHECK_THROWS_AS(codec->decompress(good, longer), asdfcore::Error);
}

TEST_CASE("lz4 cuts its input into independent chunks of the piece size", "[codec][parallel][lz4]") {
  const auto codec = make_lz4_codec();
  const Bytes input = noisy(3 * kPiece + 1, 9);
  const Bytes packed = codec->compress(input, {.threads = 4, .piece_size = kPiece});
  std::size_t at = 0;
  std::vector<std::uint32_t> decoded;
  while (at < packed.size()) {
    const std::uint32_t stored = (std::uint32_t{packed[at]} << 24) |
                                 (std::uint32_t{packed[at + 1]} << 16) |
                                 (std::uint32_t{packed[at + 2]} << 8) | packed[at + 3];
    decoded.push_back(std::uint32_t{packed[at + 4]} | (std::uint32_t{packed[at + 5]} << 8) |
                      (std::uint32_t{packed[at + 6]} << 16) |
                      (std::uint32_t{packed[at + 7]} << 24));
    at += 4 + stored;
  }
  CHECK(at == packed.size());
  CHECK(decoded == std::vector<std::uint32_t>{kPiece, kPiece, kPiece, 1});
}

TEST_CASE("a bzp2 block of many pieces is one bzip2 stream, spliced from one block per piece",
          "[codec][parallel][bzp2]") {
  const auto codec = make_bzp2_codec();
  for (const std::size_t size : boundary_sizes()) {
    const Bytes input = noisy(size, 13);
    INFO(size << " bytes");
    const Bytes packed = codec->compress(input, {.threads = 3, .piece_size = kPiece});
    CHECK(bzip2_reads_one_stream(packed, input));
    // One piece is exactly what libbz2 writes alone.
    if (size > 0 && size <= kPiece) CHECK(packed == plain_bzip2(input, 9));
  }
}

TEST_CASE("bzp2's default pieces fit one block even for input that libbz2 expands most",
          "[codec][parallel][bzp2]") {
  // Runs of exactly 4 equal bytes grow by a quarter in bzip2's first run-length stage; level 1
  // keeps the blocks (100 kB) and so the test small. Three and a bit pieces.
  Bytes input(3 * 80000 + 7);
  for (std::size_t i = 0; i < input.size(); ++i) {
    input[i] = i % 5 == 4 ? static_cast<std::uint8_t>(i / 5) : static_cast<std::uint8_t>('a');
  }
  const auto codec = make_bzp2_codec();
  const Bytes packed = codec->compress(input, {.level = 1, .threads = 2});
  CHECK(bzip2_reads_one_stream(packed, input));
  // Not the plain single-call stream, so it was spliced from several pieces (no fallback).
  CHECK(packed != plain_bzip2(input, 1));
  CHECK(packed.size() < input.size());
}

TEST_CASE("compress_stream writes what compress returns, reading its input once and in order",
          "[codec][parallel][stream]") {
  const CodecRegistry registry = CodecRegistry::with_builtins();
  const std::string label = GENERATE(as<std::string>{}, "zlib", "bzp2", "lz4");
  const Codec* codec = registry.find(label);
  REQUIRE(codec != nullptr);
  for (const std::size_t size : boundary_sizes()) {
    const Bytes input = noisy(size, static_cast<std::uint32_t>(size) + 3);
    for (const unsigned threads : {1u, 4u}) {
      INFO(label << ", " << size << " bytes, " << threads << " threads");
      const CompressOptions options{.threads = threads, .piece_size = kPiece};
      std::size_t taken = 0;
      std::size_t reads = 0;
      Bytes streamed;
      std::size_t writes = 0;
      bool overrun = false;  // (checked here: Catch2's assertions are not for worker threads)
      codec->compress_stream(
          input.size(),
          [&](std::span<std::uint8_t> buffer) {
            // Never past the declared size, and each read continues where the last one ended.
            if (taken + buffer.size() > input.size()) {
              overrun = true;
              return;
            }
            std::memcpy(buffer.data(), input.data() + taken, buffer.size());
            taken += buffer.size();
            ++reads;
          },
          [&](std::span<const std::uint8_t> bytes) {
            streamed.insert(streamed.end(), bytes.begin(), bytes.end());
            ++writes;
          },
          options);
      CHECK_FALSE(overrun);
      CHECK(taken == input.size());
      CHECK(streamed == codec->compress(input, options));
      // zlib and lz4 stream piece by piece: one read per piece, never the input whole.
      if (label != "bzp2" && size > 2 * kPiece) {
        CHECK(reads == (size + kPiece - 1) / kPiece);
        CHECK(writes >= reads);
      }
    }
  }
}

TEST_CASE("an error while reading stops a streaming compression and reaches the caller",
          "[codec][parallel][stream][error]") {
  const CodecRegistry registry = CodecRegistry::with_builtins();
  const std::string label = GENERATE(as<std::string>{}, "zlib", "bzp2", "lz4");
  const Codec* codec = registry.find(label);
  const std::size_t size = 12 * kPiece + 5;
  for (const unsigned threads : {1u, 4u}) {
    INFO(label << ", " << threads << " threads");
    std::size_t taken = 0;
    std::size_t written = 0;
    try {
      codec->compress_stream(
          size,
          [&](std::span<std::uint8_t> buffer) {
            if (taken + buffer.size() > 5 * kPiece) {
              throw asdfcore::Error(asdfcore::ErrorCode::kIo, "test: the input cannot be read");
            }
            std::memset(buffer.data(), 7, buffer.size());
            taken += buffer.size();
          },
          [&](std::span<const std::uint8_t> bytes) { written += bytes.size(); },
          {.threads = threads, .piece_size = kPiece});
      FAIL("the read error was swallowed");
    } catch (const asdfcore::Error& e) {
      CHECK(e.code() == asdfcore::ErrorCode::kIo);
      CHECK(std::string(e.what()).find("cannot be read") != std::string::npos);
    }
    CHECK(taken <= 5 * kPiece);
  }
}
