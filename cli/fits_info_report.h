#pragma once
// What `fitsasdf info` shows of a FITS file: the HDU table astropy's `fitsinfo` prints, the
// cards `fitsheader` prints, and the same as JSON.
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "fitsasdf/fits_info.h"

namespace fitsasdf::cli {

/// Which HDUs `--header` shows: every one, or the one a key named (as the user wrote it).
struct HduChoice {
  std::optional<std::size_t> index;  ///< The HDU (0-based); none for every HDU.
  std::string key;                   ///< What named it: "1", "SCI", "SCI,2".
};

/// Print the HDU table as `fitsinfo` does, then the line about an embedded ASDF file, if any.
void print_fits_table(std::ostream& out, const FitsInfo& info);

/// Print the cards of the chosen HDUs as `fitsheader` does ("# HDU n in FILE:", then each
/// card's image, a blank line between HDUs); `stored` shows a compressed image's own cards.
void print_fits_headers(std::ostream& out, const FitsInfo& info, const HduChoice& choice,
                        bool stored);

/// Return the description as JSON: {"file", "format": "fits", "container", "hdus",
/// "embedded_asdf"}; with `headers`, each chosen HDU also has "header" (and with `stored`,
/// "stored_header") as a list of {"keyword", "value", "comment", "image"}.
nlohmann::ordered_json fits_info_json(const FitsInfo& info, bool headers, const HduChoice& choice,
                                      bool stored);

}  // namespace fitsasdf::cli
