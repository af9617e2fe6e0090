#include "fits/checksum.h"

#include <fitsio.h>

#include <algorithm>
#include <cstring>

#include "asdfcore/error.h"
#include "fits/fits_file.h"

namespace fitsasdf::fits {
namespace {

constexpr std::size_t kBlock = 2880;
constexpr std::size_t kPieceBlocks = 512;  // 1.4 MiB summed per CFITSIO call

/// The header of a scratch file holding one piece of `piece_bytes` (whole blocks) as a primary
/// array of bytes.
std::string scratch_header(std::size_t piece_bytes) {
  std::string h;
  const auto card = [&h](std::string text) {
    text.resize(80, ' ');
    h += text;
  };
  card("SIMPLE  =                    T");
  card("BITPIX  =                    8");
  card("NAXIS   =                    1");
  const std::string n = std::to_string(piece_bytes);
  card("NAXIS1  = " + std::string(20 - n.size(), ' ') + n);
  card("END");
  h.resize(kBlock, ' ');
  return h;
}

}  // namespace

struct ChecksumSum::Scratch {
  std::vector<std::uint8_t> bytes;
  void* memory = nullptr;
  std::size_t size = 0;
  fitsfile* fptr = nullptr;
  ~Scratch() {
    if (fptr != nullptr) {
      int status = 0;
      fits_close_file(fptr, &status);
      fits_clear_errmsg();
    }
  }
};

ChecksumSum::ChecksumSum(std::uint32_t start) : sum_(start) {}

void ChecksumSum::make_room(std::size_t piece_bytes) {
  if (scratch_ != nullptr && scratch_->bytes.size() >= kBlock + piece_bytes) return;
  // Sized by the first piece, not the largest: most sums cover a header or a small data unit.
  // A larger piece later gets a new scratch file (at most kPieceBlocks, so at most twice).
  auto scratch = std::make_unique<Scratch>();
  Scratch& s = *scratch;
  s.bytes.assign(kBlock + piece_bytes, 0);
  const std::string header = scratch_header(piece_bytes);
  std::memcpy(s.bytes.data(), header.data(), header.size());
  s.memory = s.bytes.data();
  s.size = s.bytes.size();
  int status = 0;
  fits_open_memfile(&s.fptr, "checksum", READONLY, &s.memory, &s.size, 0, nullptr, &status);
  check_status(status, "CFITSIO cannot open its checksum scratch file", {});
  scratch_ = std::move(scratch);
}

ChecksumSum::~ChecksumSum() = default;
ChecksumSum::ChecksumSum(ChecksumSum&& other) noexcept = default;
ChecksumSum& ChecksumSum::operator=(ChecksumSum&& other) noexcept = default;

void ChecksumSum::add(std::span<const std::uint8_t> blocks) {
  if (blocks.size() % kBlock != 0) {
    throw asdfcore::Error(asdfcore::ErrorCode::kInvalidArgument,
                          "a FITS checksum covers whole 2880-byte blocks, not " +
                              std::to_string(blocks.size()) + " bytes");
  }
  while (!blocks.empty()) {
    const std::size_t n = std::min(blocks.size(), kPieceBlocks * kBlock);
    make_room(n);
    Scratch& s = *scratch_;
    std::memcpy(s.bytes.data() + kBlock, blocks.data(), n);
    int status = 0;
    ffflsh(s.fptr, TRUE, &status);  // forget what CFITSIO buffered of the previous piece
    ffmbyt(s.fptr, static_cast<LONGLONG>(kBlock), 0 /* report EOF */, &status);
    unsigned long sum = sum_;
    ffcsum(s.fptr, static_cast<long>(n / kBlock), &sum, &status);
    check_status(status, "CFITSIO cannot compute the checksum", {});
    sum_ = static_cast<std::uint32_t>(sum);
    blocks = blocks.subspan(n);
  }
}

std::string encode_checksum(std::uint32_t sum) {
  char text[17] = {};
  fits_encode_chksum(sum, TRUE, text);
  return std::string(text, 16);
}

}  // namespace fitsasdf::fits
