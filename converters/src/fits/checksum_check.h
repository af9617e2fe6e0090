#pragma once
// Verifying the checksum cards (DATASUM and CHECKSUM, the FITS standard's appendix J) of a FITS
// file, as CFITSIO's `fits_verify_chksum` does, with its sums (fits/checksum.h).
#include <string>
#include <vector>

namespace fitsasdf::fits {

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

/// Verify the DATASUM and CHECKSUM cards of every HDU of the FITS file `path` (plain, .gz,
/// .bz2, .Z); one entry per HDU in file order. Throws `asdfcore::Error` when the file cannot be
/// opened or its HDUs found (`FitsFile::open`).
std::vector<HduChecksumVerdict> verify_checksums(const std::string& path);

}  // namespace fitsasdf::fits
