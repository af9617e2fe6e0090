#pragma once
// The HDUs of a FITS file as the comparisons need them: the parsed header with its raw bytes,
// the structure read from the cards (BITPIX, axes, PCOUNT, GCOUNT, groups, table columns), and
// the data area without and with its padding. Read through the fits/ layer (CFITSIO finds the
// HDUs; tile-compressed images are decompressed by it on request).
#include <cstdint>
#include <string>
#include <vector>

#include "asdfcore/io/buffer.h"
#include "fits/checksum_check.h"
#include "fitsasdf/header.h"

namespace fitsasdf::compare {

/// One column of a table.
struct Column {
  std::string name;    ///< TTYPEn without trailing blanks, or "col<n>".
  int number = 0;      ///< n, 1-based.
  char type = 'A';     ///< TFORM letter: L X B I J K A E D C M P Q (binary), A I F E D (ASCII).
  char heap_type = 0;  ///< The element letter of a P or Q column ('E' for 1PE(20)).
  std::uint64_t repeat = 1;  ///< Items in the field (bits for X, characters for A).
  std::uint64_t offset = 0;  ///< Bytes from the start of the row (0-based).
  std::uint64_t width = 0;   ///< Bytes the field takes in the row.
};

/// The columns of a binary or ASCII table, from TFIELDS, TFORMn, TTYPEn, TBCOLn, THEAP.
struct TableLayout {
  bool ascii = false;             ///< An ASCII table (XTENSION = 'TABLE').
  std::uint64_t row_size = 0;     ///< NAXIS1, bytes.
  std::uint64_t rows = 0;         ///< NAXIS2.
  std::uint64_t heap_offset = 0;  ///< THEAP (default NAXIS1 * NAXIS2), bytes from the data start.
  std::vector<Column> columns;
  std::string problem;  ///< Why the columns could not be read ("" when they could).
};

/// One HDU as the comparisons see it.
struct FitsHdu {
  int index = 0;         ///< 1-based.
  Header header;         ///< Every card, the END card and the padding after it.
  std::string kind;      ///< See `HduComparison::kind`.
  std::string name;      ///< EXTNAME (",EXTVER" when above 1), "PRIMARY" for HDU 1, else "".
  std::string xtension;  ///< XTENSION without trailing blanks; "" for the primary HDU.
  long long bitpix = 8;
  std::vector<std::uint64_t> axes;  ///< NAXIS1 ... NAXISn.
  long long pcount = 0;
  long long gcount = 1;
  bool groups = false;              ///< Random groups (GROUPS = T, NAXIS1 = 0).
  bool tile_compressed = false;     ///< A tile-compressed image (as stored, unless decompressed).
  bool decompressed = false;        ///< The header and data are CFITSIO's decompressed image.
  TableLayout table;                ///< Binary and ASCII tables (tile-compressed ones as stored).
  std::uint64_t declared_size = 0;  ///< Data bytes the header declares (without padding).
  asdfcore::io::Buffer data;        ///< The data bytes present, at most `declared_size`.
  asdfcore::io::Buffer padding;     ///< The bytes after the data up to the end of its last block.
};

/// Read every HDU of the FITS file `path`. With `decompress_tiles`, a tile-compressed image
/// gets the header and data of the image CFITSIO decompresses. Headers are read leniently
/// (`HeaderOptions::fix_unparsable_values`). With `checksums`, it also receives the verdict on
/// each HDU's DATASUM and CHECKSUM cards (`fits::verify_checksums`), from the same reading of
/// the file. Throws `asdfcore::Error` for a file that is not FITS or cannot be read.
std::vector<FitsHdu> read_fits_hdus(const std::string& path, bool decompress_tiles,
                                    std::vector<fits::HduChecksumVerdict>* checksums = nullptr);

/// Return the value of the first card called `keyword` when it is an integer, else `fallback`.
long long card_integer(const std::vector<Card>& cards, std::string_view keyword,
                       long long fallback);
/// Return the value of the first card called `keyword` when it is a string, else "".
std::string card_string(const std::vector<Card>& cards, std::string_view keyword);

}  // namespace fitsasdf::compare
