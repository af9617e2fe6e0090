#pragma once
// One writer per HDU kind: each reads a `fits` item (header cards and data as the tree holds
// them) and plans the HDU's header and data unit.
#include <cstdint>

#include "asdfcore/error.h"
#include "asdfcore/ndarray/ndarray.h"
#include "hdu/table_columns.h"
#include "to_fits/fits_items.h"
#include "to_fits/hdu_plan.h"

namespace fitsasdf::to_fits {

/// Everything a writer gets for one item.
struct ItemInput {
  /// Where the item's ndarrays find their blocks (the input file's, or blocks planned in memory).
  const asdfcore::ndarray::BlockProvider& blocks;
  const FitsItem& item;
  asdfcore::ErrorContext where;  ///< File, HDU and the item's tree path.
  unsigned threads = 0;  ///< Threads for work done in pieces (`AsdfToFitsOptions::threads`).

  /// Read the ndarray `node`, found at `key` of the item, its block deferred
  /// (`NDArray::Load::kDeferred`: decoded when first read, or streamed).
  asdfcore::ndarray::NDArray array(const asdfcore::tree::Node& node, const std::string& key) const;
  /// Return an error of `code` at this item.
  asdfcore::Error error(asdfcore::ErrorCode code, const std::string& message) const;
};

/// Primary arrays and IMAGE extensions.
HduPlan plan_image(const ItemInput& input);
/// Items carried as bytes (`data` of uint8 for a foreign extension or a SIMPLE = F primary;
/// `raw_data` in older outputs).
HduPlan plan_raw(const ItemInput& input);
/// Return true for the primary item of a SIMPLE = F file (no GROUPS card): its data is every
/// byte after the header, unpadded, as astropy reads it.
bool is_nonstandard_primary(const FitsItem& item);
/// Tile-compressed images (`compressed_header` with an image `header`).
HduPlan plan_compressed_image(const ItemInput& input);
/// Tile-compressed tables (`compressed_header` with a BINTABLE `header`).
HduPlan plan_compressed_table(const ItemInput& input);
/// Binary tables (XTENSION = 'BINTABLE').
HduPlan plan_bintable(const ItemInput& input);
/// Binary tables whose `data` is a table of columns (`core/table`, asdf-astropy's table).
HduPlan plan_column_table(const ItemInput& input);
/// ASCII tables (XTENSION = 'TABLE').
HduPlan plan_ascii_table(const ItemInput& input);
/// Random groups (GROUPS = T, NAXIS1 = 0).
HduPlan plan_groups(const ItemInput& input);

/// Return the data size the cards declare: |BITPIX|/8 * GCOUNT * (PCOUNT + NAXIS1 * ...),
/// NAXIS1 left out for random groups (bytes). Throws (malformed) for missing axes or overflow.
std::uint64_t declared_data_size(const CardLookup& cards, const ItemInput& input);

/// Return NAXISn..NAXIS1 (C order) of the cards.
std::vector<std::uint64_t> c_order_axes(const CardLookup& cards, const ItemInput& input);

/// Read the layout of the binary table the item's header declares (`hdu::read_binary_layout`,
/// its notes added to `notes`); its errors carry the item's context.
hdu::BinaryLayout binary_layout(const ItemInput& input, HduReport& notes);

/// Write the elements of `array` in C order, big-endian, with the sign bit of each element
/// flipped when `flip_sign` (unsigned integers back to FITS's offset form): streamed in pieces
/// from a contiguous block, or decoded piece by piece from a compressed block the array fills
/// (`NDArray::can_stream`), else through one C-order copy.
void write_big_endian(const asdfcore::ndarray::NDArray& array, bool flip_sign, DataSink& sink);

}  // namespace fitsasdf::to_fits
