#pragma once
// ASDF-in-FITS: FITS files that carry an ASDF file in an extension named ASDF (JWST products,
// CRDS reference files, python asdf's AsdfInFits), whose arrays may point at the file's image
// HDUs with `source: fits:EXTNAME,EXTVER`.
#include <string>

#include "fitsasdf/convert.h"
#include "fitsasdf/options.h"
#include "fitsasdf/to_fits.h"

namespace fitsasdf {

/// Return the 1-based index of the HDU that holds an embedded ASDF file (the first HDU whose
/// EXTNAME is ASDF, in any case, as astropy's `hdulist['ASDF']` finds it), or 0 when there is
/// none. Throws `asdfcore::Error` for a file that is not FITS.
int find_embedded_asdf(const std::string& fits_path);

/// Write the ASDF file embedded in the FITS file `input` to `output` as a stand-alone ASDF file:
/// its tree as stored, its own blocks, and every array whose source is `fits:EXTNAME,EXTVER`
/// pulled in from that HDU as python asdf and stdatamodels read it (BZERO offsets as unsigned
/// integers, other scaling applied, as astropy's `hdu.data`). The embedded file may be a
/// one-row BINTABLE with a byte column ASDF_METADATA (the current form) or a uint8 IMAGE (the
/// older one). `options` supply the output settings (standard, checksums, compression, fsync).
/// Throws `asdfcore::Error` naming the file and HDU when there is no ASDF extension, when the
/// extension is not one of these forms, when a `fits:` source names a missing HDU or one
/// whose data does not match the array's datatype and shape.
ConversionReport extract_embedded_asdf(const std::string& input, const std::string& output,
                                       const ConvertOptions& options = {});

/// Write the ASDF file `input`, whose tree has no `fits` list, as the FITS file `output`, the
/// way JWST's data models are stored: an empty primary HDU whose cards are the tree's scalars
/// with FITS-sized names (booleans, integers, finite floats, printable strings of at most 68
/// characters; the first of a name wins), an IMAGE extension for every numeric array of 1 to
/// 999 dimensions (EXTNAME from its tree path, EXTVER 1, BZERO for unsigned integers, BUNIT from
/// a quantity's unit), a BINTABLE for every table whose columns FITS can hold (TUNITn from the
/// column units), and an ASDF extension holding the whole tree, in which each image array is
/// `source: fits:EXTNAME,1` and every other array (strings, complex, records, zero-size, and the
/// tables' columns) is a block of the embedded file. `extract_embedded_asdf` of the output gives
/// back the tree and the array values. Throws `asdfcore::Error` naming the file.
ConversionReport write_asdf_in_fits(const std::string& input, const std::string& output,
                                    const AsdfToFitsOptions& options = {});

}  // namespace fitsasdf
