#pragma once
/// \file
/// ASDF to FITS: write back the FITS file an ASDF tree holds as a `fits` list (fitsasdf's own
/// output, asdf-astropy's `HDUList`, or any list tagged with the standard's or astropy's fits
/// tag).

#include <string>

#include "fitsasdf/convert.h"
#include "fitsasdf/progress.h"

namespace fitsasdf {

/// Settings for `convert_asdf_to_fits`.
struct AsdfToFitsOptions {
  /// fsync the output before renaming it into place.
  bool durable = true;
  /// Give every HDU a fresh CHECKSUM and DATASUM (appended when the header has none). HDUs whose
  /// header has them get them recomputed whatever this says, keeping their comments, so a valid
  /// original comes back byte for byte.
  bool add_checksums = false;
  /// Verify each block's MD5 checksum (when its header carries one; zeros mean none) in either
  /// convention, the stored bytes' (the standard) or the decoded data's (python asdf 2.14-5.2):
  /// as its data is read for the output (an uncompressed block hashed by a second thread while
  /// it is written, a compressed one at the end of its streamed decode), and the blocks the
  /// output does not read before the output is committed. A mismatch is an `Error` (checksum).
  bool verify_checksums = true;
  /// Limits on what the ASDF input may make this read (block sizes, tree size and depth).
  ReadLimits limits;
  /// Progress reports and cancellation: `total` is the data bytes the items' headers declare,
  /// counted as each data unit is written.
  RunControl control;
  /// Replace an existing output. False: refuse with `Error` (exists) before converting anything,
  /// and again, atomically, at the final rename (astropy's `writeto(overwrite=False)`).
  bool overwrite = true;
  /// Threads that compress the bands of a tile-compressed image side by side (0: one per core;
  /// 1: none besides the caller's). The output is the same whatever the count.
  unsigned threads = 0;
};

/// Write the FITS file held by the ASDF file `input` to `output`, which appears only when
/// complete. The first list tagged `fits-1.x` (`tag:stsci.edu:asdf/fits/` or
/// `tag:astropy.org:astropy/fits/`; `/fits` first) is written HDU by HDU: each header card in
/// order (from its recorded image while the card still reads as it, else in the fixed format),
/// then the data: images in big-endian order (unsigned integers made from a BZERO offset
/// flipped back, physical values turned back into the stored integers when they are exact),
/// raw bytes (`raw_data`), tile-compressed images compressed again by CFITSIO with the recorded
/// parameters (`compressed_header`), binary and ASCII tables and random groups from their
/// structured arrays. The report's `fits_tag` is the list's tag, `hdus` says what each item
/// became (`notes`: what was not written back exactly). Throws `asdfcore::Error` naming the
/// file, and the item's tree path and HDU: (not-fits) for a tree without a fits list,
/// (malformed) for an item whose header and data disagree, or whose cards or data FITS cannot
/// hold; (checksum) with `verify_checksums` for a block whose stored MD5 matches neither its
/// stored bytes nor its decoded data, naming the block (0-based) and its offset; (io) when the
/// output cannot be written. Nothing is left at `output` when it throws.
ConversionReport convert_asdf_to_fits(const std::string& input, const std::string& output,
                                      const AsdfToFitsOptions& options = {});

}  // namespace fitsasdf
