// Error cases of reading the byte layout, driven by small files built in memory: a bad prologue
// fails the open; a damaged block is listed with its problem and fails only when it is read; a
// broken chain of blocks is a recorded problem (or an error under `strict`); a stale or garbage
// block index is ignored and the blocks are found by walking their headers.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asdfcore/compression/codec.h"
#include "asdfcore/compression/md5.h"
#include "asdfcore/error.h"
#include "asdfcore/format/block_header.h"
#include "asdfcore/format/block_index.h"
#include "asdfcore/format/container.h"
#include "asdfcore/io/buffer.h"
#include "support/bytes.h"
#include "support/catch.h"

namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::format::BlockHeader;
using asdfcore::format::ChecksumStatus;
using asdfcore::format::Container;
using asdfcore::format::LayoutProblem;
using asdfcore::format::ReadOptions;
using Bytes = std::vector<std::uint8_t>;
using fitsasdf::test::sample;
using Catch::Matchers::Contains;

constexpr char kName[] = "name.asdf";
/// A header and a one-line tree; the first block follows at once.
constexpr std::string_view kTree =
    "#ASDF 1.0.0\n#ASDF_STANDARD 1.6.0\n%YAML 1.1\n--- {a: 1}\n...\n";

Bytes to_bytes(std::string_view text) { return Bytes(text.begin(), text.end()); }

Bytes to_bytes(std::span<const std::uint8_t> bytes) { return Bytes(bytes.begin(), bytes.end()); }

/// What a block's checksum field holds.
enum class Sum { kNone, kStored, kDecoded, kWrong };

/// One block before it is laid out: its header and the bytes stored after it. Tests edit the
/// header or the stored bytes to make the block lie.
struct RawBlock {
  BlockHeader header;
  Bytes stored;               ///< The bytes written after the header.
  std::uint64_t padding = 0;  ///< Zero bytes written after `stored`.
};

/// Encode `data` as a block compressed with `label` ("" for none; a label with no built-in codec
/// stores the bytes as they are), with consistent sizes.
RawBlock make_block(const Bytes& data, const std::string& label = "", Sum sum = Sum::kNone,
                    std::uint64_t padding = 0) {
  const auto registry = asdfcore::compression::CodecRegistry::with_builtins();
  const auto* codec = label.empty() ? nullptr : registry.find(label);
  RawBlock b;
  b.stored = codec != nullptr ? codec->compress(data, {}) : data;
  b.padding = padding;
  b.header.set_compression_label(label);
  b.header.used_size = b.stored.size();
  b.header.allocated_size = b.stored.size() + padding;
  b.header.data_size = data.size();
  switch (sum) {
    case Sum::kNone:
      break;
    case Sum::kStored:
      b.header.checksum = asdfcore::compression::md5(b.stored);
      break;
    case Sum::kDecoded:
      b.header.checksum = asdfcore::compression::md5(data);
      break;
    case Sum::kWrong:
      b.header.checksum.fill(0x5a);
      break;
  }
  return b;
}

/// Return the bytes of `b`: its 54-byte header, the stored bytes and the padding.
Bytes encode(const RawBlock& b) {
  const auto head = asdfcore::format::encode_block_header(b.header);
  Bytes out(head.begin(), head.end());
  out.insert(out.end(), b.stored.begin(), b.stored.end());
  out.resize(out.size() + static_cast<std::size_t>(b.padding), 0);
  return out;
}

/// Lays out a file in memory: a prologue, then blocks, raw bytes and a block index.
class FileBuilder {
 public:
  explicit FileBuilder(std::string_view prologue = kTree) : bytes_(to_bytes(prologue)) {}

  /// Append `b`; return its offset.
  std::uint64_t block(const RawBlock& b) {
    const std::uint64_t at = bytes_.size();
    offsets_.push_back(at);
    raw(encode(b));
    return at;
  }
  /// Append `bytes` as they are.
  FileBuilder& raw(const Bytes& bytes) {
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
    return *this;
  }
  FileBuilder& raw(std::string_view text) { return raw(to_bytes(text)); }
  /// Append a block index listing `offsets`; return its offset.
  std::uint64_t index(const std::vector<std::uint64_t>& offsets) {
    const std::uint64_t at = bytes_.size();
    raw(asdfcore::format::encode_block_index(offsets));
    return at;
  }
  /// Append a block index listing every block appended so far; return its offset.
  std::uint64_t index() { return index(offsets_); }

  const std::vector<std::uint64_t>& offsets() const noexcept { return offsets_; }
  Bytes& bytes() noexcept { return bytes_; }

 private:
  Bytes bytes_;
  std::vector<std::uint64_t> offsets_;
};

Container open_bytes(Bytes bytes, const ReadOptions& options = {}) {
  return Container::from_buffer(asdfcore::io::Buffer::from_vector(std::move(bytes)), kName,
                                options);
}

/// Run `f`, require it to throw `Error` with `code`, and return the error.
template <typename F>
Error expect_error(ErrorCode code, F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const Error& e) {
    INFO("what(): " << e.what());
    CHECK(asdfcore::error_code_name(e.code()) == asdfcore::error_code_name(code));
    return e;
  }
  FAIL("expected an asdfcore::Error (" << asdfcore::error_code_name(code)
                                       << "), but nothing was thrown");
  throw std::logic_error("unreachable");
}

/// Require `f` to throw `Error` with `code` naming block `block` at byte `offset`.
template <typename F>
Error expect_block_error(ErrorCode code, std::size_t block, std::uint64_t offset, F&& f) {
  const Error e = expect_error(code, std::forward<F>(f));
  INFO("what(): " << e.what());
  CHECK(e.context().file == kName);
  CHECK(e.context().block == std::optional<std::size_t>(block));
  CHECK(e.context().offset == std::optional<std::uint64_t>(offset));
  CHECK_THAT(e.what(), Contains(kName) && Contains("block " + std::to_string(block)) &&
                           Contains("byte " + std::to_string(offset)));
  return e;
}

/// Return the problems of `kind`.
std::vector<LayoutProblem> problems_of(const Container& c, LayoutProblem::Kind kind) {
  std::vector<LayoutProblem> out;
  for (const auto& p : c.problems()) {
    if (p.kind == kind) out.push_back(p);
  }
  return out;
}

std::vector<std::uint64_t> block_offsets(const Container& c) {
  std::vector<std::uint64_t> out;
  for (const auto& b : c.blocks()) out.push_back(b.offset);
  return out;
}

/// Write `v` big-endian into `bytes` at `at`, `width` bytes wide.
void poke_be(Bytes& bytes, std::uint64_t at, std::uint64_t v, int width) {
  for (int i = width - 1; i >= 0; --i) {
    bytes[static_cast<std::size_t>(at) + static_cast<std::size_t>(i)] =
        static_cast<std::uint8_t>(v);
    v >>= 8;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The prologue: everything here fails the open.

TEST_CASE("an empty file is not ASDF", "[container][error]") {
  const Error e = expect_error(ErrorCode::kNotAsdf, [] { open_bytes({}); });
  CHECK(e.context().file == kName);
  CHECK(e.context().offset == std::optional<std::uint64_t>(0));
  CHECK_THAT(e.what(), Contains(kName) && Contains("empty"));
}

TEST_CASE("a truncated or garbage header line is not ASDF", "[container][error]") {
  for (const std::string_view text :
       {"#", "#AS", "#ASDF", "#ASDF\n", "#ASDF \n", "#ASDF1.0.0\n", "#ASDFX 1.0.0\n",
        "#ASDF one.two\n", "#ASDF 1.0.0 and more\n", "ASDF 1.0.0\n", "hello world\n",
        "\n#ASDF 1.0.0\n", " #ASDF 1.0.0\n"}) {
    INFO("file: " << text);
    const Error e = expect_error(ErrorCode::kNotAsdf, [&] { open_bytes(to_bytes(text)); });
    CHECK(e.context().offset == std::optional<std::uint64_t>(0));
    CHECK_THAT(e.what(), Contains(kName));
  }
}

TEST_CASE("a file format version other than 0.x and 1.x is unsupported", "[container][error]") {
  for (const std::string_view version : {"2.0.0", "10.0.0"}) {
    INFO(version);
    const std::string text = "#ASDF " + std::string(version) + "\n%YAML 1.1\n--- {}\n...\n";
    const Error e =
        expect_error(ErrorCode::kUnsupportedVersion, [&] { open_bytes(to_bytes(text)); });
    CHECK_THAT(e.message(), Contains(std::string(version)));
    CHECK_THAT(e.what(), Contains(kName));
  }
}

TEST_CASE("the pre-1.0 layouts read as ASDF 1.0.0 (format/legacy.h)", "[container]") {
  for (const char* header : {"%ASDF 0.1.0", "#ASDF 0.1.0"}) {
    INFO(header);
    const auto c = open_bytes(to_bytes(std::string(header) + "\n%YAML 1.1\n--- {}\n...\n"));
    REQUIRE(c.legacy());
    CHECK(c.legacy()->header_line == header);
    CHECK(c.prologue().file_format_version == "1.0.0");
    CHECK(c.blocks().empty());
  }
}

TEST_CASE("an HDF5 file is named as seismic ASDF, not read", "[container][error]") {
  const std::string_view signature("\x89HDF\r\n\x1a\n", 8);
  SECTION("signature at byte 0") {
    Bytes file = to_bytes(signature);
    file.resize(600, 0);
    const Error e = expect_error(ErrorCode::kNotAsdf, [&] { open_bytes(file); });
    CHECK_THAT(e.message(), Contains("seismic") && Contains("pyasdf"));
  }
  SECTION("signature after a 512-byte user block") {
    Bytes file(1200, 0);
    std::fill(file.begin(), file.begin() + 512, std::uint8_t{' '});
    std::copy(signature.begin(), signature.end(), file.begin() + 512);
    const Error e = expect_error(ErrorCode::kNotAsdf, [&] { open_bytes(file); });
    CHECK_THAT(e.message(), Contains("seismic") && Contains("pyasdf"));
  }
}

TEST_CASE("a FITS file is not ASDF", "[container][error]") {
  std::string card = "SIMPLE  =                    T / conforms to FITS standard";
  card.resize(2880, ' ');
  const Error e = expect_error(ErrorCode::kNotAsdf, [&] { open_bytes(to_bytes(card)); });
  CHECK_THAT(e.message(), Contains("FITS"));
}

TEST_CASE("a tree without its end marker is malformed", "[container][error]") {
  const std::string head = "#ASDF 1.0.0\n#ASDF_STANDARD 1.6.0\n";
  for (const std::string_view tree :
       {"%YAML 1.1\n--- {a: 1}\n", "%YAML 1.1\n--- {a: 1}", "%YAML 1.1\n--- {a: 1}\n....\n",
        "%YAML 1.1\n--- {a: 1}\n...x\n", "--- {a: 1}\n"}) {
    INFO("tree: " << tree);
    const Error e = expect_error(ErrorCode::kMalformed,
                                 [&] { open_bytes(to_bytes(head + std::string(tree))); });
    CHECK(e.context().offset == std::optional<std::uint64_t>(head.size()));
    CHECK_THAT(e.what(), Contains("byte " + std::to_string(head.size())) && Contains("..."));
  }
  SECTION("a block after the unterminated tree does not end it") {
    FileBuilder f("#ASDF 1.0.0\n%YAML 1.1\n--- {a: 1}\n");
    f.block(make_block(sample(10)));
    expect_error(ErrorCode::kMalformed, [&] { open_bytes(f.bytes()); });
  }
}

TEST_CASE("garbage after the header is malformed", "[container][error]") {
  SECTION("right after the header line") {
    const Error e =
        expect_error(ErrorCode::kMalformed, [] { open_bytes(to_bytes("#ASDF 1.0.0\nhello\n")); });
    CHECK(e.context().offset == std::optional<std::uint64_t>(12));
    CHECK_THAT(e.what(), Contains("byte 12"));
  }
  SECTION("after the comments") {
    const std::string head = "#ASDF 1.0.0\n#ASDF_STANDARD 1.6.0\n#a comment\n";
    const Error e = expect_error(
        ErrorCode::kMalformed, [&] { open_bytes(to_bytes(head + "  %YAML 1.1\n--- {}\n...\n")); });
    CHECK(e.context().offset == std::optional<std::uint64_t>(head.size()));
  }
  SECTION("binary bytes that are almost a block magic") {
    const std::string text = std::string("#ASDF 1.0.0\n") + "\xd3" + "BLX and more";
    const Error e = expect_error(ErrorCode::kMalformed, [&] { open_bytes(to_bytes(text)); });
    CHECK(e.context().offset == std::optional<std::uint64_t>(12));
  }
}

// ---------------------------------------------------------------------------------------------
// The chain of blocks: a break is a recorded problem, or an error under `strict`.

TEST_CASE("a bad block magic where the next block should be breaks the chain",
          "[container][error]") {
  FileBuilder f;
  const auto b0 = f.block(make_block(sample(10, 1)));
  const auto b1 = f.block(make_block(sample(20, 2)));
  const auto b2 = f.block(make_block(sample(30, 3)));
  Bytes bytes = f.bytes();
  bytes[static_cast<std::size_t>(b1) + 3] = 'X';  // "\323BLX"

  SECTION("lenient: the blocks before the break are listed and the problem recorded") {
    const Container c = open_bytes(bytes);
    CHECK(block_offsets(c) == std::vector<std::uint64_t>{b0});
    const auto broken = problems_of(c, LayoutProblem::Kind::kBrokenChain);
    REQUIRE(broken.size() == 1);
    CHECK(broken[0].offset == b1);
    CHECK_THAT(broken[0].message, Contains(std::to_string(b2)));
    CHECK(to_bytes(c.data(0).span()) == sample(10, 1));
    CHECK(c.tree_text() == "%YAML 1.1\n--- {a: 1}\n...\n");
  }
  SECTION("strict: the open fails at the break") {
    const Error e = expect_error(ErrorCode::kMalformed,
                                 [&] { open_bytes(bytes, ReadOptions{.strict = true}); });
    CHECK(e.context().file == kName);
    CHECK(e.context().offset == std::optional<std::uint64_t>(b1));
    CHECK_THAT(e.what(), Contains(kName) && Contains("byte " + std::to_string(b1)));
  }
}

TEST_CASE("a bad magic on the last block listed by the index is not silently dropped",
          "[container][error]") {
  // The index says a block starts here; only the magic is damaged. The block must not vanish
  // without a trace, and `strict` must refuse the file.
  FileBuilder f;
  const auto b0 = f.block(make_block(sample(10, 1)));
  const auto b1 = f.block(make_block(sample(20, 2)));
  f.index();
  Bytes bytes = f.bytes();
  bytes[static_cast<std::size_t>(b1) + 3] = 'X';

  const Container c = open_bytes(bytes);
  CHECK(block_offsets(c) == std::vector<std::uint64_t>{b0});
  CHECK_FALSE(c.block_index_valid());
  const auto& problems = c.problems();
  CHECK(std::any_of(problems.begin(), problems.end(), [&](const LayoutProblem& p) {
    return p.offset == b1 && p.kind != LayoutProblem::Kind::kStaleIndex;
  }));
  expect_error(ErrorCode::kMalformed, [&] { open_bytes(bytes, ReadOptions{.strict = true}); });
}

TEST_CASE("a block header_size below 48 breaks the chain", "[container][error]") {
  FileBuilder f;
  const auto b0 = f.block(make_block(sample(10, 1)));
  const auto b1 = f.block(make_block(sample(20, 2)));
  f.block(make_block(sample(30, 3)));
  Bytes bytes = f.bytes();
  poke_be(bytes, b1 + 4, 40, 2);

  SECTION("lenient") {
    const Container c = open_bytes(bytes);
    CHECK(block_offsets(c) == std::vector<std::uint64_t>{b0});
    const auto broken = problems_of(c, LayoutProblem::Kind::kBrokenChain);
    REQUIRE(broken.size() == 1);
    CHECK(broken[0].offset == b1);
    CHECK_THAT(broken[0].message, Contains("header_size") && Contains("40"));
  }
  SECTION("strict") {
    const Error e = expect_error(ErrorCode::kMalformed,
                                 [&] { open_bytes(bytes, ReadOptions{.strict = true}); });
    CHECK(e.context().offset == std::optional<std::uint64_t>(b1));
    CHECK_THAT(e.what(), Contains("header_size") && Contains("byte " + std::to_string(b1)));
  }
  SECTION("on the first block") {
    FileBuilder g;
    const auto first = g.block(make_block(sample(10, 1)));
    Bytes only = g.bytes();
    poke_be(only, first + 4, 0, 2);
    const Container c = open_bytes(only);
    CHECK(c.blocks().empty());
    REQUIRE(problems_of(c, LayoutProblem::Kind::kBrokenChain).size() == 1);
    CHECK(c.problems()[0].offset == first);
    expect_error(ErrorCode::kMalformed, [&] { open_bytes(only, ReadOptions{.strict = true}); });
  }
}

TEST_CASE("a file that ends inside a block header is truncated", "[container][error]") {
  FileBuilder f;
  const auto b0 = f.block(make_block(sample(10, 1)));
  const auto b1 = f.block(make_block(sample(20, 2)));
  Bytes bytes = f.bytes();
  for (const std::uint64_t keep : {std::uint64_t{6}, std::uint64_t{30}, std::uint64_t{53}}) {
    INFO("kept " << keep << " bytes of the second block header");
    Bytes cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(b1 + keep));

    const Container c = open_bytes(cut);
    CHECK(block_offsets(c) == std::vector<std::uint64_t>{b0});
    REQUIRE(c.problems().size() == 1);
    CHECK(c.problems()[0].offset == b1);
    CHECK_THAT(c.problems()[0].message, Contains("ends inside a block header"));

    // The file's real trouble is that it is cut short; strict mode must say so.
    const Error e =
        expect_error(ErrorCode::kTruncated, [&] { open_bytes(cut, ReadOptions{.strict = true}); });
    CHECK(e.context().offset == std::optional<std::uint64_t>(b1));
    CHECK_THAT(e.what(), Contains(kName) && Contains("byte " + std::to_string(b1)));
  }
}

TEST_CASE("used_size above allocated_size makes the block unreadable", "[container][error]") {
  FileBuilder f;
  RawBlock raw = make_block(sample(20, 1));
  raw.header.allocated_size = 10;
  const auto b0 = f.block(raw);

  const Container c = open_bytes(f.bytes());
  REQUIRE(c.blocks().size() == 1);
  CHECK_THAT(c.blocks()[0].problem, Contains("used_size") && Contains("allocated_size"));
  CHECK(c.tree_text() == "%YAML 1.1\n--- {a: 1}\n...\n");
  expect_block_error(ErrorCode::kMalformed, 0, b0, [&] { c.data(0); });
  expect_block_error(ErrorCode::kMalformed, 0, b0, [&] { c.data(0, true); });
  expect_block_error(ErrorCode::kMalformed, 0, b0, [&] { c.stored_data(0); });
  expect_block_error(ErrorCode::kMalformed, 0, b0, [&] { c.check(0); });
  CHECK(problems_of(c, LayoutProblem::Kind::kBrokenChain).size() == 1);

  expect_block_error(ErrorCode::kMalformed, 0, b0,
                     [&] { open_bytes(f.bytes(), ReadOptions{.strict = true}); });
}

TEST_CASE("used_size past the end of the file makes the block unreadable", "[container][error]") {
  FileBuilder f;
  f.block(make_block(sample(10, 1)));
  RawBlock raw = make_block(sample(1000, 2));
  raw.stored.resize(10);  // the header still declares 1000 bytes
  const auto b1 = f.block(raw);

  const Container c = open_bytes(f.bytes());
  REQUIRE(c.blocks().size() == 2);
  CHECK(c.blocks()[0].problem.empty());
  CHECK_FALSE(c.blocks()[1].problem.empty());
  CHECK_THAT(c.blocks()[1].problem, Contains("1000"));
  CHECK(to_bytes(c.data(0).span()) == sample(10, 1));
  expect_block_error(ErrorCode::kMalformed, 1, b1, [&] { c.data(1); });
  expect_block_error(ErrorCode::kMalformed, 1, b1, [&] { c.stored_data(1); });

  expect_block_error(ErrorCode::kMalformed, 1, b1,
                     [&] { open_bytes(f.bytes(), ReadOptions{.strict = true}); });
}

TEST_CASE("an uncompressed block with data_size != used_size is unreadable", "[container][error]") {
  for (const std::uint64_t data_size : {std::uint64_t{19}, std::uint64_t{21}, std::uint64_t{0}}) {
    INFO("data_size " << data_size);
    FileBuilder f;
    RawBlock raw = make_block(sample(20, 1));
    raw.header.data_size = data_size;
    const auto b0 = f.block(raw);
    const auto b1 = f.block(make_block(sample(30, 2)));

    const Container c = open_bytes(f.bytes());
    // The sizes on disk are consistent, so the chain goes on to the next block.
    CHECK(block_offsets(c) == std::vector<std::uint64_t>{b0, b1});
    CHECK(c.problems().empty());
    CHECK_THAT(c.blocks()[0].problem, Contains("data_size") && Contains("used_size"));
    expect_block_error(ErrorCode::kMalformed, 0, b0, [&] { c.data(0); });
    CHECK(to_bytes(c.data(1).span()) == sample(30, 2));

    expect_block_error(ErrorCode::kMalformed, 0, b0,
                       [&] { open_bytes(f.bytes(), ReadOptions{.strict = true}); });
  }
}

// ---------------------------------------------------------------------------------------------
// Decoding: a bad stream fails only the block that holds it.

namespace {

/// Lay out three blocks: a good zlib block, the block `bad`, and a good uncompressed block.
/// Return the file and the offset of `bad`.
std::pair<Bytes, std::uint64_t> around(const RawBlock& bad) {
  FileBuilder f;
  f.block(make_block(sample(40, 1), "zlib"));
  const auto at = f.block(bad);
  f.block(make_block(sample(30, 3)));
  f.index();
  return {f.bytes(), at};
}

/// Require the blocks around block 1 and the tree to stay readable.
void check_neighbours(const Container& c) {
  CHECK(c.tree_text() == "%YAML 1.1\n--- {a: 1}\n...\n");
  REQUIRE(c.blocks().size() == 3);
  CHECK(to_bytes(c.data(0, true).span()) == sample(40, 1));
  CHECK(to_bytes(c.data(2, true).span()) == sample(30, 3));
  CHECK(c.block_index_valid());
  CHECK(c.problems().empty());
}

}  // namespace

TEST_CASE("a corrupt compressed block fails to decode with its block and offset",
          "[container][error]") {
  const std::string label = GENERATE(as<std::string>{}, "zlib", "bzp2", "lz4");
  INFO(label);
  const Bytes data = sample(2000, 2);

  SECTION("bytes flipped") {
    RawBlock raw = make_block(data, label);
    if (label == "lz4") {
      // lz4 has no checksum: overwrite the sequences so the structure itself is broken.
      std::fill(raw.stored.begin() + 8, raw.stored.end(), std::uint8_t{0xff});
    } else {
      for (std::size_t i = raw.stored.size() / 2; i < raw.stored.size() / 2 + 3; ++i) {
        raw.stored[i] = static_cast<std::uint8_t>(~raw.stored[i]);
      }
    }
    const auto [bytes, at] = around(raw);
    const Container c = open_bytes(bytes);
    check_neighbours(c);
    CHECK(c.blocks()[1].problem.empty());
    const Error e = expect_block_error(ErrorCode::kCompression, 1, at, [&] { c.data(1); });
    CHECK_THAT(e.message(), Contains(label));
    expect_block_error(ErrorCode::kCompression, 1, at, [&] { c.data(1, true); });
    CHECK(c.stored_data(1).size() == raw.stored.size());
  }
  SECTION("stream truncated, with sizes that agree with the truncation") {
    RawBlock raw = make_block(data, label);
    raw.stored.resize(raw.stored.size() - 5);
    raw.header.used_size = raw.stored.size();
    raw.header.allocated_size = raw.stored.size();
    const auto [bytes, at] = around(raw);
    const Container c = open_bytes(bytes);
    check_neighbours(c);
    expect_block_error(ErrorCode::kCompression, 1, at, [&] { c.data(1); });
  }
  SECTION("stream replaced by garbage") {
    RawBlock raw = make_block(data, label);
    std::fill(raw.stored.begin(), raw.stored.end(), std::uint8_t{0xff});
    const auto [bytes, at] = around(raw);
    const Container c = open_bytes(bytes);
    check_neighbours(c);
    expect_block_error(ErrorCode::kCompression, 1, at, [&] { c.data(1); });
  }
  SECTION("stream decodes to more than data_size") {
    RawBlock raw = make_block(data, label);
    for (const std::uint64_t less : {std::uint64_t{1}, std::uint64_t{1000}}) {
      raw.header.data_size = data.size() - less;
      const auto [bytes, at] = around(raw);
      const Container c = open_bytes(bytes);
      check_neighbours(c);
      const Error e = expect_block_error(ErrorCode::kCompression, 1, at, [&] { c.data(1); });
      CHECK_THAT(e.message(), Contains(std::to_string(data.size() - less)));
    }
  }
  SECTION("stream decodes to less than data_size") {
    RawBlock raw = make_block(data, label);
    for (const std::uint64_t more : {std::uint64_t{1}, std::uint64_t{1000}}) {
      raw.header.data_size = data.size() + more;
      const auto [bytes, at] = around(raw);
      const Container c = open_bytes(bytes);
      check_neighbours(c);
      const Error e = expect_block_error(ErrorCode::kCompression, 1, at, [&] { c.data(1); });
      CHECK_THAT(e.message(), Contains(std::to_string(data.size() + more)));
    }
  }
}

TEST_CASE("an unknown compression label fails only that block", "[container][error]") {
  const Bytes data = sample(50, 2);
  RawBlock raw = make_block(data, "xxxx");
  const auto [bytes, at] = around(raw);
  const Container c = open_bytes(bytes);
  check_neighbours(c);
  CHECK(c.blocks()[1].problem.empty());
  CHECK(c.blocks()[1].header.compression_label() == "xxxx");
  const Error e = expect_block_error(ErrorCode::kCompression, 1, at, [&] { c.data(1); });
  CHECK_THAT(e.message(),
             Contains("xxxx") && Contains("zlib") && Contains("bzp2") && Contains("lz4"));
  // The stored bytes stay reachable, e.g. to copy the block unchanged.
  CHECK(to_bytes(c.stored_data(1).span()) == data);

  SECTION("a checksum that cannot be tested on decoded data is undecodable") {
    RawBlock summed = make_block(data, "xxxx", Sum::kWrong);
    const auto [bytes2, at2] = around(summed);
    const Container c2 = open_bytes(bytes2);
    CHECK(c2.check(1) == ChecksumStatus::kUndecodable);
    expect_block_error(ErrorCode::kCompression, 1, at2, [&] { c2.data(1, true); });
  }
}

TEST_CASE("a data_size above the configured limit is refused", "[container][error]") {
  const Bytes data = sample(2000, 2);
  const auto [bytes, at] = around(make_block(data, "zlib"));
  SECTION("a small limit") {
    const Container c = open_bytes(bytes, ReadOptions{.max_block_data_size = 1999});
    const Error e = expect_block_error(ErrorCode::kLimit, 1, at, [&] { c.data(1); });
    CHECK_THAT(e.message(),
               Contains("2000") && Contains("1999") && Contains("max_block_data_size"));
    CHECK(to_bytes(open_bytes(bytes, ReadOptions{.max_block_data_size = 2000}).data(1).span()) ==
          data);
  }
  SECTION("an absurd data_size under the default limit is refused before allocating") {
    RawBlock raw = make_block(data, "zlib");
    raw.header.data_size = std::uint64_t{1} << 40;
    const auto [huge, huge_at] = around(raw);
    expect_block_error(ErrorCode::kLimit, 1, huge_at, [&] { open_bytes(huge).data(1); });
  }
  SECTION("a data_size no machine can hold is an Error even with no limit") {
    // With the limit lifted, a size no zlib stream of this length can decode to is refused by
    // the codec's expansion bound, before any allocation, as asdfcore::Error naming the block.
    RawBlock raw = make_block(data, "zlib");
    raw.header.data_size = ~std::uint64_t{0};
    const auto [huge, huge_at] = around(raw);
    const Container c = open_bytes(huge, ReadOptions{.max_block_data_size = ~std::uint64_t{0}});
    const Error e = expect_block_error(ErrorCode::kCompression, 1, huge_at, [&] { c.data(1); });
    CHECK_THAT(e.message(), Contains("can decode to"));
  }
}

// ---------------------------------------------------------------------------------------------
// Checksums.

TEST_CASE("a checksum mismatch fails a verified read", "[container][error]") {
  SECTION("uncompressed") {
    const Bytes data = sample(50, 2);
    const auto [bytes, at] = around(make_block(data, "", Sum::kWrong));
    const Container c = open_bytes(bytes);
    check_neighbours(c);
    CHECK(c.check(1) == ChecksumStatus::kMismatch);
    const Error e = expect_block_error(ErrorCode::kChecksum, 1, at, [&] { c.data(1, true); });
    CHECK_THAT(e.message(), Contains("5a5a5a5a"));
    // Without verification the bytes are handed out as they are.
    CHECK(to_bytes(c.data(1).span()) == data);
  }
  SECTION("one byte of stored data changed after the checksum was taken") {
    RawBlock raw = make_block(sample(50, 2), "", Sum::kStored);
    raw.stored[7] = static_cast<std::uint8_t>(raw.stored[7] ^ 1u);
    const auto [bytes, at] = around(raw);
    const Container c = open_bytes(bytes);
    CHECK(c.check(1) == ChecksumStatus::kMismatch);
    expect_block_error(ErrorCode::kChecksum, 1, at, [&] { c.data(1, true); });
  }
  SECTION("a corrupt stream whose checksum does not match the stored bytes") {
    RawBlock raw = make_block(sample(500, 2), "zlib", Sum::kWrong);
    raw.stored[2] = static_cast<std::uint8_t>(~raw.stored[2]);
    const auto [bytes, at] = around(raw);
    const Container c = open_bytes(bytes);
    CHECK(c.check(1) == ChecksumStatus::kUndecodable);
  }
}

TEST_CASE("a compressed block whose checksum matches neither convention fails a verified read",
          "[container][error]") {
  const std::string label = GENERATE(as<std::string>{}, "zlib", "bzp2", "lz4");
  INFO(label);
  const Bytes data = sample(500, 2);
  const auto [bytes, at] = around(make_block(data, label, Sum::kWrong));
  const Container c = open_bytes(bytes);
  check_neighbours(c);
  CHECK(c.check(1) == ChecksumStatus::kMismatch);
  expect_block_error(ErrorCode::kChecksum, 1, at, [&] { c.data(1, true); });
  CHECK(to_bytes(c.data(1).span()) == data);
}

TEST_CASE("a checksum of the decoded data is accepted for a compressed block",
          "[container][error]") {
  const std::string label = GENERATE(as<std::string>{}, "zlib", "bzp2", "lz4");
  INFO(label);
  const Bytes data = sample(500, 2);
  const auto [bytes, at] = around(make_block(data, label, Sum::kDecoded));
  const Container c = open_bytes(bytes);
  check_neighbours(c);
  CHECK(c.check(1) == ChecksumStatus::kMatchesDecoded);
  CHECK(to_bytes(c.data(1, true).span()) == data);
  (void)at;

  SECTION("while an uncompressed block has only one convention") {
    RawBlock raw = make_block(data, "", Sum::kStored);
    const auto [plain, plain_at] = around(raw);
    CHECK(open_bytes(plain).check(1) == ChecksumStatus::kMatchesStored);
    (void)plain_at;
  }
}

TEST_CASE("verify_checksum checks a block in either convention without keeping its data",
          "[container][error][checksum]") {
  const std::string label = GENERATE(as<std::string>{}, "", "zlib", "lz4");
  INFO(label);
  const Bytes data = sample(500, 2);
  const auto ok = [&](Sum sum) { return open_bytes(around(make_block(data, label, sum)).first); };
  CHECK(ok(Sum::kNone).verify_checksum(1) == ChecksumStatus::kUnchecked);
  CHECK(ok(Sum::kStored).verify_checksum(1) == ChecksumStatus::kMatchesStored);
  if (!label.empty()) {
    CHECK(ok(Sum::kDecoded).verify_checksum(1) == ChecksumStatus::kMatchesDecoded);
  }
  const auto [bytes, at] = around(make_block(data, label, Sum::kWrong));
  const Container c = open_bytes(bytes);
  const Error e = expect_block_error(ErrorCode::kChecksum, 1, at, [&] { c.verify_checksum(1); });
  CHECK_THAT(e.message(), Contains("5a5a5a5a"));
  if (!label.empty()) CHECK_THAT(e.message(), Contains("decoded data to"));
}

TEST_CASE("a streamed read verifies an uncompressed block as it hands it on",
          "[container][error][checksum]") {
  // 40 MiB: three 16 MiB pieces, hashed by a second thread while they are handed on.
  const Bytes data = sample(std::size_t{40} << 20, 1);
  RawBlock raw = make_block(data, "", Sum::kStored);
  const auto [good, good_at] = around(raw);
  std::uint64_t seen = 0;
  open_bytes(good).data_stream(1, true, [&](std::span<const std::uint8_t> piece) {
    seen += piece.size();
  });
  CHECK(seen == data.size());
  raw.stored[std::size_t{33} << 20] ^= 1u;
  const auto [bad, bad_at] = around(raw);
  const Container c = open_bytes(bad);
  seen = 0;
  const auto count = [&](std::span<const std::uint8_t> piece) { seen += piece.size(); };
  expect_block_error(ErrorCode::kChecksum, 1, bad_at, [&] { c.data_stream(1, true, count); });
  CHECK(seen == data.size());  // the pieces were handed on before the mismatch was known
  c.data_stream(1, false, count);  // without verification: no error
  (void)good_at;
}

// ---------------------------------------------------------------------------------------------
// The block index: a stale or garbage index never fails the open; the headers are walked.

namespace {

/// Lay out three blocks; return the file (without an index) and their offsets.
FileBuilder three_blocks() {
  FileBuilder f;
  f.block(make_block(sample(10, 1)));
  f.block(make_block(sample(20, 2), "zlib", Sum::kStored));
  f.block(make_block(sample(30, 3), "", Sum::kNone, 7));
  return f;
}

/// Require every block of `f` to be found and readable, and the index to be ignored as stale.
void check_walked(const FileBuilder& f, const Container& c) {
  CHECK(block_offsets(c) == f.offsets());
  REQUIRE(c.blocks().size() == 3);
  CHECK(to_bytes(c.data(0, true).span()) == sample(10, 1));
  CHECK(to_bytes(c.data(1, true).span()) == sample(20, 2));
  CHECK(to_bytes(c.data(2, true).span()) == sample(30, 3));
  CHECK(c.block_index().has_value());
  CHECK_FALSE(c.block_index_valid());
  CHECK(problems_of(c, LayoutProblem::Kind::kStaleIndex).size() == 1);
  CHECK(problems_of(c, LayoutProblem::Kind::kBrokenChain).empty());
}

}  // namespace

TEST_CASE("a valid block index is accepted (the baseline for the stale cases)",
          "[container][error]") {
  FileBuilder f = three_blocks();
  const auto at = f.index();
  const Container c = open_bytes(f.bytes());
  CHECK(block_offsets(c) == f.offsets());
  CHECK(c.block_index_valid());
  REQUIRE(c.block_index().has_value());
  CHECK(c.block_index()->offset == at);
  CHECK(c.problems().empty());
}

TEST_CASE("a stale block index is ignored and the blocks are walked", "[container][error]") {
  FileBuilder f = three_blocks();
  const auto& o = f.offsets();
  std::vector<std::uint64_t> entries;
  SECTION("wrong first offset (the tree was edited by hand)") {
    entries = {o[0] + 16, o[1] + 16, o[2] + 16};
  }
  SECTION("first offset right, later ones wrong") { entries = {o[0], o[1] + 1, o[2]}; }
  SECTION("offsets past the end of the file") { entries = {o[0], o[1], 1u << 30}; }
  SECTION("an offset beyond the last byte") { entries = {o[0], o[1], f.bytes().size() + 200}; }
  SECTION("offsets out of order") { entries = {o[0], o[2], o[1]}; }
  SECTION("a repeated offset") { entries = {o[0], o[1], o[1], o[2]}; }
  SECTION("a block missing") { entries = {o[0], o[2]}; }
  SECTION("the last block missing") { entries = {o[0], o[1]}; }
  SECTION("an extra block") { entries = {o[0], o[1], o[2], o[2] + 100}; }
  SECTION("an empty list") { entries = {}; }
  f.index(entries);
  const Container c = open_bytes(f.bytes());
  check_walked(f, c);
  CHECK(c.problems().size() == 1);
}

TEST_CASE("a garbage block index is ignored and the blocks are walked", "[container][error]") {
  FileBuilder f = three_blocks();
  const std::string o0 = std::to_string(f.offsets()[0]);
  std::string text;
  SECTION("non-integer entries") { text = "%YAML 1.1\n--- [a, b, c]\n...\n"; }
  SECTION("negative entries") { text = "%YAML 1.1\n--- [" + o0 + ", -2]\n...\n"; }
  SECTION("fractional entries") { text = "%YAML 1.1\n--- [" + o0 + ", 1.5]\n...\n"; }
  SECTION("quoted entries") { text = "%YAML 1.1\n--- ['" + o0 + "']\n...\n"; }
  SECTION("a mapping") { text = "%YAML 1.1\n--- {a: " + o0 + "}\n...\n"; }
  SECTION("a scalar") { text = "%YAML 1.1\n--- " + o0 + "\n...\n"; }
  SECTION("unterminated YAML") { text = "%YAML 1.1\n--- [" + o0 + ", \n"; }
  SECTION("not YAML at all") { text = "]]] \x01\x02\x03 [[[\n"; }
  SECTION("nothing after the header") { text = ""; }
  SECTION("two documents") { text = "%YAML 1.1\n--- [" + o0 + "]\n...\n--- [1]\n...\n"; }
  SECTION("an integer too large for 64 bits") {
    text = "%YAML 1.1\n--- [" + o0 + ", 99999999999999999999999]\n...\n";
  }
  f.raw(std::string(asdfcore::format::kBlockIndexHeader) + "\n" + text);
  const Container c = open_bytes(f.bytes());
  check_walked(f, c);
  CHECK(c.problems().size() == 1);
  REQUIRE(c.block_index().has_value());
  CHECK_FALSE(c.block_index()->parsed);
}

TEST_CASE("an index that does not start where the last block ends is ignored",
          "[container][error]") {
  FileBuilder f = three_blocks();
  SECTION("spaces between the last block and the index") { f.raw("    \n"); }
  SECTION("zero bytes between the last block and the index") { f.raw(Bytes(8, 0)); }
  f.index();
  const Container c = open_bytes(f.bytes());
  check_walked(f, c);
}

TEST_CASE("an index that starts inside the last block's allocated space is ignored",
          "[container][error]") {
  FileBuilder f;
  f.block(make_block(sample(10, 1)));
  f.block(make_block(sample(20, 2), "zlib", Sum::kStored));
  RawBlock last = make_block(sample(30, 3), "", Sum::kNone, 7);
  const std::string index = asdfcore::format::encode_block_index(std::vector<std::uint64_t>{});
  last.header.allocated_size += index.size() + 100;  // claims the index as its own padding
  f.block(last);
  f.index();
  f.raw(Bytes(100, ' '));
  const Container c = open_bytes(f.bytes());
  check_walked(f, c);
}

TEST_CASE("trailing NUL bytes after a valid index keep it valid", "[container][error]") {
  FileBuilder f = three_blocks();
  f.index();
  SECTION("a few") { f.raw(Bytes(3, 0)); }
  SECTION("a page") { f.raw(Bytes(4096, 0)); }
  const Container c = open_bytes(f.bytes());
  CHECK(block_offsets(c) == f.offsets());
  CHECK(c.block_index_valid());
  CHECK(c.problems().empty());
}

TEST_CASE("index text inside a block's data does not hide the blocks after it",
          "[container][error]") {
  // Block 0 holds a whole ASDF file, block index included (a file stored as a byte array). The
  // outer file has no index of its own: the inner one must not cut the walk short.
  FileBuilder inner;
  inner.block(make_block(sample(10, 4)));
  inner.index();
  FileBuilder f;
  f.block(make_block(inner.bytes()));
  f.block(make_block(sample(20, 2)));
  SECTION("no index in the outer file") {}
  SECTION("a streamed last block (which never has an index)") {
    RawBlock streamed = make_block(sample(30, 3));
    streamed.header.flags = asdfcore::format::kFlagStreamed;
    f.block(streamed);
  }
  const Container c = open_bytes(f.bytes());
  CHECK(block_offsets(c) == f.offsets());
  CHECK_FALSE(c.block_index_valid());
  CHECK(problems_of(c, LayoutProblem::Kind::kBrokenChain).empty());
  if (c.blocks().size() >= 2) CHECK(to_bytes(c.data(1).span()) == sample(20, 2));
  // Under strict, the open must not fail either: nothing is broken.
  CHECK_NOTHROW(open_bytes(f.bytes(), ReadOptions{.strict = true}));
}
