// The running FITS checksum (CFITSIO's ffcsum through a scratch memory file) against astropy
// 5.2.1: the expected sums are `PrimaryHDU()._compute_checksum(bytes)` for the same bytes, run
// with /usr/bin/python3. The pieces a sum is given must not change it, whatever their order of
// sizes (the scratch file is sized by the first piece and remade for a larger one).
#include "fits/checksum.h"

#include <cstdint>
#include <span>
#include <vector>

#include "asdfcore/error.h"
#include "support/catch.h"

using fitsasdf::fits::ChecksumSum;

namespace {

constexpr std::size_t kBlock = 2880;

/// 700 blocks of bytes i % 251: more than one CFITSIO call's piece (512 blocks).
std::vector<std::uint8_t> pattern() {
  std::vector<std::uint8_t> bytes(700 * kBlock);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i % 251);
  return bytes;
}

std::uint32_t sum_in_pieces(std::span<const std::uint8_t> bytes,
                            const std::vector<std::size_t>& blocks_per_piece) {
  ChecksumSum sum;
  for (const std::size_t blocks : blocks_per_piece) {
    sum.add(bytes.first(blocks * kBlock));
    bytes = bytes.subspan(blocks * kBlock);
  }
  REQUIRE(bytes.empty());
  return sum.value();
}

}  // namespace

TEST_CASE("the FITS checksum of whole blocks is astropy's", "[fits][checksum]") {
  const std::vector<std::uint8_t> ones(kBlock, 1);
  ChecksumSum one;
  one.add(ones);
  CHECK(one.value() == 3537031890U);  // astropy: 0x01010101 * 720 with end-around carry

  ChecksumSum empty;
  CHECK(empty.value() == 0);
  empty.add({});
  CHECK(empty.value() == 0);

  const auto bytes = pattern();
  const std::uint32_t astropy = 1869045591U;
  CHECK(sum_in_pieces(bytes, {700}) == astropy);
  // A small first piece, then larger ones (each makes the scratch file grow), then small again.
  CHECK(sum_in_pieces(bytes, {1, 3, 600, 96}) == astropy);
  CHECK(sum_in_pieces(bytes, {512, 1, 187}) == astropy);
  CHECK(sum_in_pieces(bytes, {2, 2, 2, 694}) == astropy);
}

TEST_CASE("a checksum refuses a piece that is not whole blocks", "[fits][checksum]") {
  ChecksumSum sum;
  const std::vector<std::uint8_t> bytes(kBlock + 1, 0);
  CHECK_THROWS_AS(sum.add(bytes), asdfcore::Error);
  sum.add(std::span<const std::uint8_t>(bytes).first(kBlock));
  CHECK(sum.value() == 0);
}
