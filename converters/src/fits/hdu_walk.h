#pragma once
// Finding the HDUs of a FITS byte stream the way astropy finds them, without CFITSIO: each
// header is read by the project's own card parser (fitsasdf/header.h), its kind comes from its
// first card, and its data size from the structural keywords looked up by name (BITPIX, NAXIS,
// NAXISn, PCOUNT, GCOUNT, GROUPS), wherever they stand. Headers whose mandatory keywords are not
// where the FITS standard puts them (which CFITSIO refuses to open) are read all the same and
// said to be non-standard.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/error.h"
#include "fitsasdf/header.h"

namespace fitsasdf::fits {

/// The kinds of HDU, by their first card (the values are CFITSIO's type codes where it has one).
enum HduKind : int {
  kForeignHdu = -1,   ///< An XTENSION the standard does not define, or a SIMPLE = F primary.
  kImageHdu = 0,      ///< The primary HDU (SIMPLE = T, random groups included) or 'IMAGE'.
  kAsciiTableHdu = 1, ///< XTENSION = 'TABLE'.
  kBinaryTableHdu = 2 ///< XTENSION = 'BINTABLE' (or 'A3DTABLE', its prototype, as astropy reads).
};

/// Where one HDU lies in the FITS byte stream (0-based byte offsets; `index` is 1-based as FITS
/// tools count HDUs).
struct HduExtent {
  int index = 0;
  int type = kImageHdu;           ///< An `HduKind`.
  bool tile_compressed = false;   ///< A tile-compressed image stored as a binary table (ZIMAGE).
  bool compressed_table = false;  ///< A tile-compressed table (a binary table with ZTABLE = T).
  /// A primary HDU with SIMPLE = F: its data is every byte after the header, unpadded (astropy's
  /// `_NonstandardHDU`), and it is the only HDU.
  bool nonstandard_primary = false;
  /// Why the header's mandatory keywords are not as the FITS standard orders them ("BITPIX is
  /// card 3, not 2"), or "" when they are.
  std::string misplaced;
  std::uint64_t header_start = 0;
  std::uint64_t data_start = 0;
  std::uint64_t data_size = 0;  ///< Bytes of data the header declares, before the padding.
  std::uint64_t data_end = 0;   ///< End of the data including the padding to 2880 bytes.
};

/// The HDUs of a byte stream (what follows the last one starts at its `data_end`).
struct HduLayout {
  std::vector<HduExtent> hdus;
  std::vector<Header> headers;  ///< Each HDU's header, parsed with unparsable values repaired.
};

/// Return the first card of `cards` with `keyword`, or nullptr.
const Card* find_card(const std::vector<Card>& cards, std::string_view keyword);

/// Return the data size, in bytes before padding, that `cards` declare: |BITPIX|/8 * GCOUNT *
/// (PCOUNT + NAXIS1 * ... * NAXISn), NAXIS1 left out for random groups (GROUPS = T, NAXIS1 = 0);
/// 0 when NAXIS is 0 or absent (astropy's rule). Throws `Error` (malformed, with `where`) for a
/// keyword of the wrong type, a negative or missing NAXISn, BITPIX missing when NAXIS > 0, or a
/// size that overflows.
std::uint64_t declared_data_size(const std::vector<Card>& cards, const asdfcore::ErrorContext& where);

/// Walk the HDUs of `bytes` (a whole FITS stream, decompressed) of the file `path`. An HDU
/// follows the previous one's padding when the bytes there start with "XTENSION"; any other
/// bytes there end the walk (they are what follows the last HDU). Throws `Error` (truncated) when
/// the stream ends inside a header or before the data a header declares, (malformed) for a
/// header without END or with structural keywords that cannot be read.
HduLayout walk_hdus(std::string_view bytes, const std::string& path);

}  // namespace fitsasdf::fits
