#pragma once
/// \file
/// FITS to ASDF.

#include <string>
#include <vector>

#include "fitsasdf/options.h"

namespace fitsasdf {

/// Something suspicious in the input that the conversion kept as it is (in the spirit of
/// fitsverify): nothing was lost, but an operator should look at the file before trusting or
/// deleting it.
struct Finding {
  int hdu = 0;           ///< 1-based HDU number; 0 for the file as a whole.
  std::string code;      ///< A stable short name ("nonstandard-header", "unparsable-card", ...).
  std::string message;   ///< What was found and where (card, byte offset), in words.
};

/// What happened to one HDU.
struct HduReport {
  int index = 0;            ///< 1-based HDU number.
  std::string kind;         ///< "image", "tile-compressed image", "raw" (carried as bytes), ...
  std::string name;         ///< EXTNAME (or "PRIMARY").
  std::vector<std::string> notes;  ///< Things the user should know (unparsed unit, scaling).
  std::vector<Finding> findings;   ///< Suspicious content kept as it is (see `Finding`).
};

/// The outcome of one conversion.
struct ConversionReport {
  std::string input;        ///< The input file's path, as given.
  std::string output;       ///< The output file's path, as given.
  std::string fits_tag;     ///< The tag the `fits` item got.
  std::vector<HduReport> hdus;    ///< One per HDU, in file order.
  std::vector<Finding> findings;  ///< File-level findings (HDU 0: bytes after the last HDU, ...).
  /// Return every finding: the file's, then each HDU's in order.
  std::vector<Finding> all_findings() const {
    std::vector<Finding> all = findings;
    for (const auto& h : hdus) all.insert(all.end(), h.findings.begin(), h.findings.end());
    return all;
  }
  std::uint64_t bytes_in = 0;   ///< Size of the input file in bytes (compressed, if it is).
  std::uint64_t bytes_out = 0;  ///< Size of the output file in bytes.
};

/// Convert the FITS file `input` (plain, .gz, .bz2, .Z) to the ASDF file `output`, which appears
/// only when complete. The tree holds `fits` (one item per HDU: every card in order, and the
/// data as an ndarray, big-endian and unscaled unless `options` say otherwise) and the native
/// view. Throws `asdfcore::Error` naming the file and HDU for input that is not valid FITS.
ConversionReport convert_fits_to_asdf(const std::string& input, const std::string& output,
                                      const ConvertOptions& options = {});

}  // namespace fitsasdf
