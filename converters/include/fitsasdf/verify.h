#pragma once
/// \file
/// Round-trip verification: does an ASDF file (made by `convert_fits_to_asdf`, or on the spot)
/// give back its FITS file? The ASDF file is converted back to FITS in a temporary folder and
/// compared with the original in `CompareMode::kVerify` (every card in place, data byte for
/// byte, checksums), and the ASDF file's block checksums are checked.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fitsasdf/diff.h"
#include "fitsasdf/options.h"
#include "fitsasdf/progress.h"

namespace fitsasdf {

/// Settings for the verification.
struct VerifyOptions {
  /// FITS -> ASDF settings of `verify_round_trip` (the ASDF file it makes and converts back).
  ConvertOptions convert;
  /// List at most this many card and data differences per HDU (the counts are complete).
  std::size_t max_listed = 10;
  /// Progress reports and cancellation for the whole verification (`convert.control` is not
  /// used): each pass (to ASDF, back to FITS, the comparison) fills an equal share of `total`.
  /// A cancelled verification leaves nothing in its temporary folder.
  RunControl control;
};

/// The MD5 check of one block of the ASDF file.
struct BlockCheck {
  std::size_t block = 0;  ///< 0-based, in file order.
  /// "stored" (the MD5 of the bytes on disk, as the standard says), "decoded" (the MD5 of the
  /// decoded data, as python asdf 2.14-5.2 wrote), "none" (no checksum stored), "mismatch",
  /// "undecodable" or "unreadable" (the block cannot be read: `problem` says why).
  std::string status;
  std::string problem;  ///< Why the block cannot be read; "" otherwise.

  /// Return true unless the checksum is wrong or the block cannot be read.
  bool ok() const noexcept;
};

/// The outcome of a verification.
struct VerifyReport {
  std::string fits;         ///< A: the FITS file.
  std::string asdf;         ///< B: the ASDF file given, or "" when `verify_round_trip` made it.
  std::string other;        ///< B when it is a FITS file (compared directly), else "".
  bool round_trip = false;  ///< True when the ASDF file was made from `fits` on the spot.
  std::vector<BlockCheck> blocks;  ///< One per block of the ASDF file (none for a FITS B).
  /// A compared with B converted back to FITS (B itself when it is a FITS file), in
  /// `CompareMode::kVerify`.
  FitsComparison comparison;

  /// Return true when every block checksum is right and `comparison` is equivalent.
  bool equivalent() const noexcept;
};

/// Convert the FITS file `fits` to ASDF (with `options.convert`) and back to FITS in a temporary
/// folder (removed afterwards, whatever happens) and compare the result with `fits`. Throws
/// `asdfcore::Error` when `fits` cannot be read or a conversion fails.
VerifyReport verify_round_trip(const std::string& fits, const VerifyOptions& options = {});

/// Compare the FITS file `fits` with `other`: an ASDF file (converted back to FITS in a
/// temporary folder, and its block checksums checked) or a FITS file (compared directly).
/// Throws `asdfcore::Error` when either cannot be read or the conversion fails.
VerifyReport verify_pair(const std::string& fits, const std::string& other,
                         const VerifyOptions& options = {});

}  // namespace fitsasdf
