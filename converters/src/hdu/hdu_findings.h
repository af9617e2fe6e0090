#pragma once
// Findings about a whole HDU (see `Finding` in fitsasdf/convert.h): header cards whose value
// astropy cannot parse (read with its `verify('fix')` repair, the card image kept for the way
// back) and CHECKSUM/DATASUM cards that do not verify over the HDU's own bytes. Findings inside
// a table's data (descriptors, TNULLn) are the table converter's.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "asdfcore/error.h"
#include "asdfcore/io/buffer.h"
#include "fitsasdf/convert.h"
#include "fitsasdf/header.h"

namespace fitsasdf::hdu {

/// The header options of every FITS -> ASDF header read: an unparsable card value is repaired
/// as astropy's `verify('fix')` does (`HeaderOptions::fix_unparsable_values`).
HeaderOptions repairing_header_options();

/// Return true when `keyword` sizes or decodes an HDU (BITPIX, NAXISn, PCOUNT, GCOUNT, TFORMn,
/// TSCALn, the tile-compression Z keywords, ...): a card astropy cannot parse there makes the
/// HDU unreadable.
bool structural_keyword(std::string_view keyword);

/// Throw `asdfcore::Error` (malformed, with `where`) for the first repaired card of `header`
/// (see `Card::problem`) whose keyword is structural; the other repaired cards are findings.
void check_structural_cards(const Header& header, const asdfcore::ErrorContext& where);

/// Append an `unparsable-card` finding for each repaired card of `header` (HDU `hdu`, 1-based),
/// naming the card number (1-based), keyword, the value as read and astropy's complaint.
void add_unparsable_card_findings(const Header& header, int hdu, std::vector<Finding>& out);

/// Append a `datasum-mismatch` / `checksum-mismatch` finding for each checksum card of the HDU
/// that does not verify (`fits::check_hdu_checksums`: `header_bytes` whole 2880-byte blocks,
/// `data` the data area with its padding; one pass over the data when a card is there).
void add_checksum_findings(std::string_view header_bytes, const asdfcore::io::Buffer& data,
                           const std::vector<Card>& cards, int hdu, std::vector<Finding>& out);

}  // namespace fitsasdf::hdu
