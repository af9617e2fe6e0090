// Buffer::release: dropping the pages of a mapped file keeps its bytes readable and unchanged;
// memory owned by a vector is never discarded.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "asdfcore/io/buffer.h"
#include "asdfcore/io/mapped_file.h"
#include "support/catch.h"
#include "support/temp_dir.h"

using asdfcore::io::Buffer;

namespace {

std::vector<std::uint8_t> pattern(std::size_t n) {
  std::vector<std::uint8_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(i * 37 + i / 4096);
  return out;
}

}  // namespace

TEST_CASE("released pages of a mapped file read back unchanged", "[io][release]") {
  fitsasdf::test::TempDir dir;
  const auto bytes = pattern((1u << 20) + 123);
  const auto path = (dir / "data.bin").string();
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  const Buffer mapped = asdfcore::io::map_file(path);
  REQUIRE(mapped.file_backed());
  const Buffer middle = mapped.slice(5000, 300000);
  CHECK(middle.file_backed());
  // Touch everything, release an unaligned piece, the slice, then the whole: still the bytes.
  CHECK(std::equal(bytes.begin(), bytes.end(), mapped.data()));
  mapped.release(mapped.span().subspan(100, 70000));
  middle.release();
  CHECK(std::equal(bytes.begin() + 5000, bytes.begin() + 305000, middle.data()));
  mapped.release();
  CHECK(std::equal(bytes.begin(), bytes.end(), mapped.data()));
  // A range outside the buffer is ignored.
  middle.release(mapped.span());
  CHECK(std::equal(bytes.begin(), bytes.end(), mapped.data()));
}

TEST_CASE("releasing a buffer that owns its memory changes nothing", "[io][release]") {
  const auto bytes = pattern(3u << 16);
  const Buffer owned = Buffer::from_vector(bytes);
  CHECK_FALSE(owned.file_backed());
  owned.release();
  CHECK(std::equal(bytes.begin(), bytes.end(), owned.data()));
}
