#pragma once
// Verifying the checksum cards (DATASUM and CHECKSUM, the FITS standard's appendix J) of a FITS
// file, as CFITSIO's `fits_verify_chksum` does, with its sums (fits/checksum.h).
#include <cstdint>
#include <span>
#include <vector>

#include "asdfcore/io/buffer.h"
#include "fitsasdf/header.h"

namespace fitsasdf::fits {

class FitsFile;

/// What CFITSIO says about one checksum card of an HDU.
enum class ChecksumVerdict {
  kAbsent,   ///< The card is not in the header.
  kValid,    ///< The card matches the bytes.
  kInvalid,  ///< The card does not match the bytes.
};

/// The checksum cards of one HDU.
struct HduChecksumVerdict {
  ChecksumVerdict datasum = ChecksumVerdict::kAbsent;   ///< DATASUM: the data area.
  ChecksumVerdict checksum = ChecksumVerdict::kAbsent;  ///< CHECKSUM: the whole HDU.
};

/// One HDU's checksum cards and the sums they were checked against.
struct HduChecksums {
  HduChecksumVerdict verdict;
  std::uint32_t data_sum = 0;  ///< The 32-bit ones' complement sum of the data and its padding.
  std::uint32_t hdu_sum = 0;   ///< The sum of the header and the data (0 or all ones: valid).
};

/// Verify the CHECKSUM and DATASUM cards (`cards`) of one HDU, as CFITSIO's
/// `fits_verify_chksum` does: DATASUM read as `strtoul` reads it (blanks are 0, the sum of no
/// data) must equal the data's sum; the header (`header_bytes`, whole 2880-byte blocks) and the
/// data must sum to 0 or all ones. `data` is the data area with its padding; a short last block
/// is summed as if padded with zeros. Sums nothing when neither card is there; otherwise one
/// pass over the data, whose pages are released as they are summed.
HduChecksums check_hdu_checksums(std::span<const std::uint8_t> header_bytes,
                                 const asdfcore::io::Buffer& data, const std::vector<Card>& cards);

/// Verify the DATASUM and CHECKSUM cards of every HDU of the open FITS file `file` (plain, .gz,
/// .bz2, .Z; over each HDU's bytes as the HDU walk found them); one entry per HDU in file order.
std::vector<HduChecksumVerdict> verify_checksums(const FitsFile& file);

}  // namespace fitsasdf::fits
