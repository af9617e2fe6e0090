// Streaming decompression (Codec::decompress_stream) against whole-block decompression: for
// every codec, sound streams give the same bytes piece by piece, and every damaged stream
// (truncated, a flipped byte, a wrong declared size, a bad trailer, a preset dictionary) that
// `decompress` refuses is refused too, with a compression error; bytes after the end of a zlib
// stream are ignored by both, as python's zlib does. The zlib pieces go through a second
// writing thread from 4 MiB on; zlib and bzp2 hand on 4 MiB pieces and lz4 python's 4 MiB
// chunks, so the larger inputs cross several pieces.
#include <zlib.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "asdfcore/compression/codec.h"
#include "asdfcore/error.h"
#include "asdfcore/io/buffer.h"
#include "support/bytes.h"
#include "support/catch.h"

using namespace asdfcore::compression;
using asdfcore::Error;
using asdfcore::ErrorCode;

namespace {

using Bytes = std::vector<std::uint8_t>;

using fitsasdf::test::float_like;

/// What decoding gave: the bytes, or the error's code.
struct Outcome {
  bool ok = false;
  Bytes bytes;
  ErrorCode code = ErrorCode::kCompression;
};

Outcome whole(const Codec& codec, const Bytes& packed, std::uint64_t size) {
  Outcome o;
  try {
    o.bytes.resize(size);
    codec.decompress(packed, o.bytes);
    o.ok = true;
  } catch (const Error& e) {
    o.code = e.code();
    o.bytes.clear();
  }
  return o;
}

Outcome streamed(const Codec& codec, const Bytes& packed, std::uint64_t size,
                 std::size_t* pieces = nullptr) {
  Outcome o;
  std::size_t count = 0;
  try {
    const auto input = asdfcore::io::Buffer::from_vector(packed);
    codec.decompress_stream(input, size, [&](std::span<const std::uint8_t> piece) {
      o.bytes.insert(o.bytes.end(), piece.begin(), piece.end());
      ++count;
    });
    o.ok = true;
  } catch (const Error& e) {
    o.code = e.code();
    o.bytes.clear();
  }
  if (pieces) *pieces = count;
  return o;
}

/// Both ways agree on `packed` declared as `size` bytes: the same bytes, or both refuse it with
/// a compression error.
void agree(const Codec& codec, const Bytes& packed, std::uint64_t size, const std::string& what) {
  INFO(std::string(codec.label()) << ": " << what << " (" << packed.size() << " bytes, size "
                                  << size << ")");
  const Outcome a = whole(codec, packed, size);
  const Outcome b = streamed(codec, packed, size);
  REQUIRE(a.ok == b.ok);
  if (a.ok) {
    CHECK(a.bytes == b.bytes);
  } else {
    CHECK(a.code == ErrorCode::kCompression);
    CHECK(b.code == ErrorCode::kCompression);
  }
}

/// A plain zlib stream of `data` (one deflate stream, as python's zlib.compress writes).
Bytes plain_zlib(const Bytes& data, int level) {
  uLongf n = compressBound(static_cast<uLong>(data.size()));
  Bytes out(n);
  REQUIRE(compress2(out.data(), &n, data.data(), static_cast<uLong>(data.size()), level) == Z_OK);
  out.resize(n);
  return out;
}

}  // namespace

TEST_CASE("streaming decompression hands on what whole decompression gives", "[codec][stream]") {
  const CodecRegistry registry = CodecRegistry::with_builtins();
  const std::string label = GENERATE("zlib", "lz4", "bzp2");
  const Codec& codec = *registry.find(label);
  // 0 and 1 byte, under one piece, and past two 4 MiB pieces (the writing thread's path).
  const std::size_t n = GENERATE(std::size_t{0}, std::size_t{1}, std::size_t{70001},
                                 (std::size_t{9} << 20) + 3);
  const Bytes data = float_like(n, static_cast<std::uint32_t>(n));
  CompressOptions options;
  options.threads = 2;
  const Bytes packed = codec.compress(data, options);
  std::size_t pieces = 0;
  const Outcome o = streamed(codec, packed, data.size(), &pieces);
  REQUIRE(o.ok);
  CHECK(o.bytes == data);
  if (label == "zlib" && n > (std::size_t{8} << 20)) CHECK(pieces >= 3);
  if (label == "lz4" && n > (std::size_t{8} << 20)) CHECK(pieces == 3);  // python's 4 MiB chunks
  if (label == "bzp2" && n > (std::size_t{8} << 20)) CHECK(pieces == 3);  // 4 MiB + 1 each
}

TEST_CASE("streaming zlib decodes plain zlib streams of every level", "[codec][stream][zlib]") {
  const auto zlib = make_zlib_codec();
  const Codec& codec = *zlib;
  const Bytes data = float_like((std::size_t{5} << 20) + 11, 3);
  const int level = GENERATE(0, 1, 6, 9);
  const Bytes packed = plain_zlib(data, level);
  const Outcome o = streamed(codec, packed, data.size());
  REQUIRE(o.ok);
  CHECK(o.bytes == data);
}

TEST_CASE("streaming and whole decompression refuse the same damaged streams",
          "[codec][stream][error]") {
  const CodecRegistry registry = CodecRegistry::with_builtins();
  const std::string label = GENERATE("zlib", "lz4", "bzp2");
  const Codec& codec = *registry.find(label);
  const std::size_t n = GENERATE(std::size_t{5000}, (std::size_t{5} << 20) + 1);
  const Bytes data = float_like(n, 11);
  const Bytes packed = codec.compress(data, {});
  agree(codec, packed, n, "sound");
  agree(codec, packed, n - 1, "declared one byte short");
  agree(codec, packed, n + 1, "declared one byte long");
  agree(codec, packed, 0, "declared empty");
  for (const double at : {0.0, 0.001, 0.3, 0.5, 0.999}) {
    const auto cut = static_cast<std::size_t>(static_cast<double>(packed.size()) * at);
    agree(codec, Bytes(packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(cut)), n,
          "truncated to " + std::to_string(cut));
  }
  agree(codec, Bytes(packed.begin(), packed.end() - 1), n, "last byte cut");
  for (const double at : {0.0, 0.01, 0.4, 0.8}) {
    Bytes bad = packed;
    const auto i = static_cast<std::size_t>(static_cast<double>(bad.size()) * at);
    bad[i] = static_cast<std::uint8_t>(bad[i] ^ 0x5a);
    agree(codec, bad, n, "byte " + std::to_string(i) + " flipped");
  }
  Bytes junk = packed;
  for (const char c : std::string("not part of the stream")) junk.push_back(static_cast<std::uint8_t>(c));
  agree(codec, junk, n, "junk after the stream");
}

TEST_CASE("streaming zlib checks the trailer and header and ignores what follows the stream",
          "[codec][stream][zlib][error]") {
  const auto zlib = make_zlib_codec();
  const Codec& codec = *zlib;
  const Bytes data = float_like((std::size_t{4} << 20) + 100, 5);
  const Bytes packed = codec.compress(data, {});
  SECTION("a wrong Adler-32 trailer") {
    Bytes bad = packed;
    bad.back() = static_cast<std::uint8_t>(bad.back() ^ 1);
    agree(codec, bad, data.size(), "adler");
    CHECK_FALSE(streamed(codec, bad, data.size()).ok);
  }
  SECTION("header check bits that do not divide by 31") {
    Bytes bad = packed;
    bad[1] = static_cast<std::uint8_t>(bad[1] ^ 1);
    agree(codec, bad, data.size(), "FCHECK");
    CHECK_FALSE(streamed(codec, bad, data.size()).ok);
  }
  SECTION("a method other than deflate") {
    Bytes bad = packed;
    bad[0] = 0x79;  // CM = 9
    bad[1] = static_cast<std::uint8_t>(bad[1] + (31 - (0x79 * 256 + bad[1]) % 31) % 31);
    agree(codec, bad, data.size(), "CM");
    CHECK_FALSE(streamed(codec, bad, data.size()).ok);
  }
  SECTION("a preset dictionary") {
    z_stream z{};
    REQUIRE(deflateInit(&z, 6) == Z_OK);
    const Bytes dict = float_like(1000, 9);
    REQUIRE(deflateSetDictionary(&z, dict.data(), static_cast<uInt>(dict.size())) == Z_OK);
    Bytes out(deflateBound(&z, static_cast<uLong>(data.size())));
    z.next_in = const_cast<Bytef*>(data.data());
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    agree(codec, out, data.size(), "FDICT");
    CHECK_FALSE(streamed(codec, out, data.size()).ok);
  }
  SECTION("bytes after the end of the stream") {
    Bytes more = packed;
    const Bytes junk = float_like(5000, 1);
    more.insert(more.end(), junk.begin(), junk.end());
    const Outcome o = streamed(codec, more, data.size());
    REQUIRE(o.ok);
    CHECK(o.bytes == data);
    agree(codec, more, data.size(), "junk after the stream");
  }
}

TEST_CASE("an error thrown by the writer stops streaming decompression and reaches the caller",
          "[codec][stream][error]") {
  const CodecRegistry registry = CodecRegistry::with_builtins();
  const std::string label = GENERATE("zlib", "lz4", "bzp2");
  const Codec& codec = *registry.find(label);
  const Bytes data = float_like(std::size_t{13} << 20, 2);
  const auto input = asdfcore::io::Buffer::from_vector(codec.compress(data, {}));
  std::size_t calls = 0;
  try {
    codec.decompress_stream(input, data.size(), [&calls](std::span<const std::uint8_t>) {
      if (++calls == 2) throw Error(ErrorCode::kIo, "disk full");
    });
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kIo);
    CHECK(std::string(e.what()).find("disk full") != std::string::npos);
  }
  CHECK(calls == 2);
}
