#pragma once
// The FITS checksum (the 32-bit ones' complement sum of the FITS Standard's checksum
// convention), summed and encoded by CFITSIO (`ffcsum`, `ffesum`): the sums are CFITSIO's, not
// a second implementation.
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace fitsasdf::fits {

/// A running FITS checksum over whole 2880-byte blocks. CFITSIO sums from its own file handle,
/// so the blocks are handed to it through a scratch in-memory FITS file, one piece at a time
/// (memory stays bounded whatever the data size). Move-only.
class ChecksumSum {
 public:
  /// Start a sum at `start` (0 for data; a header's sum starts at its data's sum, which is how
  /// CHECKSUM covers the whole HDU).
  explicit ChecksumSum(std::uint32_t start = 0);
  ~ChecksumSum();
  ChecksumSum(ChecksumSum&& other) noexcept;
  ChecksumSum& operator=(ChecksumSum&& other) noexcept;
  ChecksumSum(const ChecksumSum&) = delete;
  ChecksumSum& operator=(const ChecksumSum&) = delete;

  /// Add `blocks` (a whole number of 2880-byte blocks; anything else throws invalid-argument).
  /// Throws `asdfcore::Error` when CFITSIO cannot make its scratch file.
  void add(std::span<const std::uint8_t> blocks);
  /// Return the sum so far.
  std::uint32_t value() const noexcept { return sum_; }

 private:
  struct Scratch;  // CFITSIO keeps pointers into it, so it stays where it was made
  /// Make sure the scratch file (made on first use) holds a piece of `piece_bytes`.
  void make_room(std::size_t piece_bytes);
  std::unique_ptr<Scratch> scratch_;
  std::uint32_t sum_ = 0;
};

/// Return the 16-character CHECKSUM value that makes an HDU whose sum (with CHECKSUM set to
/// '0000000000000000') is `sum` sum to -0: CFITSIO's encoding of the complement of `sum`.
std::string encode_checksum(std::uint32_t sum);

}  // namespace fitsasdf::fits
