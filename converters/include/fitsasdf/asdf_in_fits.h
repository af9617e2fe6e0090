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
/// integers, other scaling applied, as astropy's `hdu.data`); an array node that names the
/// machine's byte order gets its stored values in that order (python asdf keeps the HDU's),
/// so the files `write_asdf_in_fits` makes come back with their arrays' own byte order. EXTNAME
/// may hold commas (EXTVER follows the last one). The embedded file may be a
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
/// 999 dimensions without inline nulls (EXTNAME from its tree path: keys joined by '.', upper
/// case, other characters than A-Z 0-9 _ - as '_', made unique, never PRIMARY or ASDF;
/// EXTVER 1, BZERO for unsigned integers, BUNIT from a quantity's unit), a BINTABLE for every
/// table whose columns FITS can hold (TUNITn from the column units), and an ASDF extension
/// holding the whole tree as written (`$ref`s stay references), in which each image array is
/// `source: fits:EXTNAME,1` with the array's own datatype and byte order, and every other array
/// (strings, complex, bool, records, zero-size, 0-d, and the tables' columns) is a block of the
/// embedded file, or stays inline when it was. A node reached through several paths (YAML
/// aliases) stays one node and one HDU; a mask array is planned as an array of its own, a mask
/// value is kept. `extract_embedded_asdf` of the output gives back the tree (tags included) and
/// the array values and dtypes. Throws `asdfcore::Error` naming the file.
ConversionReport write_asdf_in_fits(const std::string& input, const std::string& output,
                                    const AsdfToFitsOptions& options = {});

}  // namespace fitsasdf
