// Regressions from the malformed-input suite (tests/malformed) in the ASDF reader: a header
// line cut inside its version, a `source` naming a block the damaged layout lost (the error
// says why), and error messages for hostile trees kept to one readable line.
#include <string>
#include <vector>

#include "asdfcore/asdf_file.h"
#include "asdfcore/error.h"
#include "asdfcore/format/container.h"
#include "asdfcore/io/buffer.h"
#include "support/catch.h"

using asdfcore::Error;
using asdfcore::ErrorCode;

namespace {

asdfcore::io::Buffer bytes_of(const std::string& s) {
  return asdfcore::io::Buffer::from_vector(std::vector<std::uint8_t>(s.begin(), s.end()));
}

Error open_error(const std::string& file, const asdfcore::OpenOptions& options = {}) {
  try {
    const auto f = asdfcore::AsdfFile::open_bytes(bytes_of(file), "test.asdf", options);
    const auto& data = f.tree()->get("data");
    if (data) (void)f.array(*data, "/data");
  } catch (const Error& e) {
    return e;
  }
  FAIL("no error");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("a header line cut inside its version is not an ASDF header") {
  for (const char* cut : {"#ASDF 1", "#ASDF 1.", "#ASDF 1.0", "#ASDF 1.0.", "#ASDF 1\n",
                          "#ASDF 1.0\n#ASDF_STANDARD 1.5.0\n"}) {
    INFO(cut);
    CHECK(open_error(cut).code() == ErrorCode::kNotAsdf);
  }
  // Complete versions still open (a suffix as in 1.0.0a1 is allowed).
  for (const char* ok : {"#ASDF 1.0.0\n", "#ASDF 1.0.0", "#ASDF 1.2.3a1\n"}) {
    INFO(ok);
    CHECK_NOTHROW(asdfcore::AsdfFile::open_bytes(bytes_of(ok), "test.asdf"));
  }
}

TEST_CASE("a source naming a block lost to a damaged header says why the block is missing") {
  const std::string head =
      "#ASDF 1.0.0\n%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n--- !core/asdf-1.1.0\n"
      "data: !core/ndarray-1.0.0 {source: 0, datatype: uint8, byteorder: big, shape: [4]}\n"
      "...\n";
  // A block magic with header_size 47, below the standard's 48.
  std::string block =
      "\xd3"
      "BLK";
  block += std::string("\x00\x2f", 2) + std::string(47, '\0');
  const Error e = open_error(head + block);
  CHECK(e.code() == ErrorCode::kMalformed);
  CHECK_THAT(e.message(), Catch::Contains("names no block"));
  CHECK_THAT(e.message(), Catch::Contains("header_size is 47"));
}

TEST_CASE("a tree path thousands of levels deep is shortened in the message") {
  std::string path;
  for (int i = 0; i < 5000; ++i) path += "/0";
  const Error e(ErrorCode::kLimit, "too deep", asdfcore::ErrorContext{.tree_path = path});
  const std::string what = e.what();
  CHECK(what.size() < 300);
  CHECK_THAT(what, Catch::Contains("/.../"));
  CHECK_THAT(what, Catch::Contains("too deep"));
}

TEST_CASE("the YAML limits name the command-line options that raise them") {
  const std::string head = "#ASDF 1.0.0\n%YAML 1.1\n---\n";
  asdfcore::OpenOptions options;
  options.yaml.max_depth = 10;
  const Error deep = open_error(head + "a: [[[[[[[[[[[[1]]]]]]]]]]]]\n...\n", options);
  CHECK(deep.code() == ErrorCode::kLimit);
  CHECK_THAT(deep.message(), Catch::Contains("--max-depth"));
}

TEST_CASE("references that repeat a target exponentially are refused (a $ref bomb)") {
  std::string tree = "#ASDF 1.0.0\n%YAML 1.1\n---\nx0: [a, a, a, a, a, a, a, a, a, a]\n";
  for (int i = 1; i < 10; ++i) {
    tree += "x" + std::to_string(i) + ": [";
    for (int k = 0; k < 10; ++k) {
      tree += (k ? ", " : "") + ("{$ref: '#/x" + std::to_string(i - 1) + "'}");
    }
    tree += "]\n";
  }
  const auto f = asdfcore::AsdfFile::open_bytes(bytes_of(tree + "...\n"), "test.asdf");
  try {
    (void)f.resolved_tree();
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kLimit);
    CHECK_THAT(e.message(), Catch::Contains("--max-alias-nodes"));
  }
  // A few repeats stay within the limit.
  const auto small = asdfcore::AsdfFile::open_bytes(
      bytes_of("#ASDF 1.0.0\n%YAML 1.1\n---\nx: [1, 2]\ny: [{$ref: '#/x'}, {$ref: '#/x'}]\n...\n"),
      "test.asdf");
  CHECK(small.resolved_tree()->get("y")->items().size() == 2);
}

TEST_CASE("a chain of 100,000 references is refused, not followed until the stack runs out") {
  std::string tree = "#ASDF 1.0.0\n%YAML 1.1\n---\n";
  for (int i = 0; i < 100000; ++i) {
    tree += "c" + std::to_string(i) + ": {$ref: '#/c" + std::to_string(i + 1) + "'}\n";
  }
  tree += "c100000: end\n...\n";
  const auto f = asdfcore::AsdfFile::open_bytes(bytes_of(tree), "test.asdf");
  try {
    (void)f.resolved_tree();
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kLimit);
  }
}

TEST_CASE("hashing a view whose strides overlap is bounded like copying it") {
  // shape [100000, 100000] with strides [1, 1] reads 10^10 bytes from a 200002-byte block.
  const std::uint64_t n = 200002;
  std::string block =
      "\xd3"
      "BLK";
  block += std::string("\x00\x30", 2) + std::string(8, '\0');  // header_size 48, flags, codec
  for (int field = 0; field < 3; ++field) {  // allocated_size, used_size, data_size
    for (int shift = 56; shift >= 0; shift -= 8) block += static_cast<char>((n >> shift) & 0xff);
  }
  block += std::string(16, '\0') + std::string(n, '\0');
  const std::string file =
      "#ASDF 1.0.0\n%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n--- !core/asdf-1.1.0\n"
      "data: !core/ndarray-1.0.0 {source: 0, datatype: uint8, byteorder: big, "
      "shape: [100000, 100000], strides: [1, 1]}\n...\n" +
      block;
  const auto f = asdfcore::AsdfFile::open_bytes(bytes_of(file), "test.asdf");
  const auto array = f.array(*f.tree()->get("data"), "/data");
  try {
    (void)array.md5_le();
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kLimit);
  }
}
