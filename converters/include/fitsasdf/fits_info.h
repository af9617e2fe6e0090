#pragma once
/// \file
/// A FITS file described the way astropy describes it: the HDU table of `HDUList.info()` (and
/// so of the `fitsinfo` tool) and the headers `fitsheader` prints, for `fitsasdf info`. A
/// tile-compressed image shows the header of the image it holds (astropy's `CompImageHDU.header`,
/// rebuilt from the table's cards without decompressing anything), with the table's own cards
/// beside it. HDUs are numbered from 0 here, as astropy numbers them.
///
/// \code
///   const fitsasdf::FitsInfo info = fitsasdf::describe_fits("jw01234_cal.fits");
///   for (const auto& hdu : info.hdus) {
///     std::cout << hdu.index << " " << hdu.name << " " << hdu.type << " "
///               << fitsasdf::dimensions_text(hdu) << " " << hdu.format << "\n";
///   }
///   const auto& sci = info.hdus[fitsasdf::find_hdu(info, "SCI,1")].cards;
/// \endcode

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/tree/node.h"
#include "fitsasdf/header.h"

namespace fitsasdf {

/// One HDU as astropy's `HDUList.info()` lists it, with its header.
struct FitsHduInfo {
  int index = 0;  ///< 0-based position in the file (astropy's "No.").
  /// EXTNAME as Python's `str()` shows it, or the class's default: "PRIMARY" for a primary or
  /// random-groups HDU, "COMPRESSED_IMAGE" for a tile-compressed image, "" otherwise.
  std::string name;
  asdfcore::tree::NodePtr ver;  ///< EXTVER's value (an integer, 1 when absent).
  /// astropy's class name: PrimaryHDU, GroupsHDU, ImageHDU, CompImageHDU, BinTableHDU,
  /// TableHDU, NonstandardHDU (SIMPLE = F) or NonstandardExtHDU (an unknown XTENSION).
  std::string type;
  bool table = false;  ///< A table: `rows` and `columns` are its dimensions, not `axes`.
  /// The axis lengths in FITS order (NAXIS1 first): an image's, a compressed image's (ZNAXISn),
  /// a random-groups HDU's without NAXIS1, a nonstandard extension's data size in bytes.
  std::vector<std::int64_t> axes;
  std::int64_t rows = 0;     ///< A table's NAXIS2.
  std::int64_t columns = 0;  ///< A table's TFIELDS.
  /// astropy's format column: a numpy dtype name ("int16", "int16 (rescales to uint16)"), or
  /// a table's TFORMs ("[1J, 20A]"), or "" when there is no data.
  std::string format;
  /// astropy's last column: "10 Groups  3 Parameters" for random groups, else "".
  std::string extra;
  /// The header astropy's `hdu.header` holds (for a compressed image, the image's), every card
  /// with its 80-byte images. `len(hdu.header)` is its size.
  std::vector<Card> cards;
  /// A tile-compressed image's own cards (the binary table's header, astropy's `hdu._header`,
  /// `fitsheader --compressed`); empty for any other HDU.
  std::vector<Card> stored_cards;
};

/// A FITS file described.
struct FitsInfo {
  std::string file;               ///< The path given.
  std::string container;          ///< "gzip", "bzip2", "compress", or "" for a plain file.
  std::vector<FitsHduInfo> hdus;  ///< Every HDU, in file order.
  /// The 0-based index of the HDU holding an embedded ASDF file (an extension named ASDF, as
  /// JWST writes), or -1 when there is none. `fitsasdf extract` writes that ASDF file out.
  int embedded_asdf_hdu = -1;
};

/// Return whether the file `path` starts as the FITS files `describe_fits` reads do: a SIMPLE
/// card, or a gzip, bzip2 or compress (.Z) stream. False for anything else, an unreadable file
/// included.
bool is_fits_file(const std::string& path);

/// Describe the FITS file `path` (plain, .gz, .bz2 or .Z, found by content). Reads the headers
/// only; `max_memory` bounds the bytes a compressed file may decompress to. Throws
/// `asdfcore::Error` naming the file (and the HDU, when one is at fault) for a file that is not
/// FITS, cannot be read, or is damaged (truncated, a header without END, structural keywords that
/// cannot be read, a compressed image without ZBITPIX, ZNAXIS or ZNAXISn).
FitsInfo describe_fits(const std::string& path, std::uint64_t max_memory = std::uint64_t{8} << 30);

/// Return the 0-based index of the HDU `key` names: a 0-based number, an EXTNAME (any case, as
/// astropy's `hdulist[name]`), or "EXTNAME,EXTVER". Throws `asdfcore::Error` (not-found, naming
/// the file) when no HDU matches.
std::size_t find_hdu(const FitsInfo& info, std::string_view key);

/// Return the dimensions as astropy prints them: "(11, 10, 7)", "(538,)", "()", "3R x 4C".
std::string dimensions_text(const FitsHduInfo& hdu);

/// Return the text `fitsheader` prints for `card`: its images joined (a long string continued
/// on CONTINUE cards is one line of 160 or more characters), each byte above 0x7f as '?', as
/// astropy reads it.
std::string card_text(const Card& card);

}  // namespace fitsasdf
