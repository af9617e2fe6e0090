#pragma once
// Finding the `fits` list of an ASDF tree and reading its items: the header cards with their
// recorded images and the keys that say how the HDU's data is held.
#include <string>
#include <vector>

#include "asdfcore/tree/node.h"
#include "to_fits/card_images.h"

namespace fitsasdf::to_fits {

/// The fits tags accepted (any 1.x version of each).
inline constexpr std::string_view kStandardFitsTag = "tag:stsci.edu:asdf/fits/fits-1.";
inline constexpr std::string_view kAstropyFitsTag = "tag:astropy.org:astropy/fits/fits-1.";

/// The root key, beside `fits`, of what followed the last HDU's data in the FITS file when that
/// was not exactly its padding to 2880 bytes: `{bytes: uint8 ndarray}`, the padding as found
/// and every byte after it.
inline constexpr std::string_view kTrailerKey = "fits_trailer";

/// The root key, beside `fits`, of the HDUs (1-based numbers) whose CHECKSUM or DATASUM did not
/// verify in the FITS file: the way back writes their cards as found instead of afresh.
inline constexpr std::string_view kStaleChecksumsKey = "fits_stale_checksums";

/// One item of the `fits` list: one HDU.
struct FitsItem {
  int index = 0;     ///< 1-based HDU number.
  std::string path;  ///< JSON Pointer of the item.
  asdfcore::tree::NodePtr node;
  std::vector<TreeCard> header;
  CardImages images;  ///< Recorded images of `header` (`card_images`).
  /// A tile-compressed image: the compressed table's cards and their images.
  std::vector<TreeCard> compressed_header;
  CardImages compressed_images;
  bool compressed = false;
  asdfcore::tree::NodePtr data;      ///< `data`, or nullptr when absent or null.
  asdfcore::tree::NodePtr raw_data;  ///< `raw_data` (uint8 bytes as stored), or nullptr.
};

/// The `fits` list found in a tree.
struct FitsList {
  std::string tag;   ///< Its full tag.
  std::string path;  ///< Its JSON Pointer ("/fits" for fitsasdf's own files).
  std::vector<FitsItem> items;
  std::size_t lists_found = 0;  ///< How many fits lists the tree has (the first is used).
};

/// Return true when `root` holds a list with a fits tag anywhere.
bool has_fits_list(const asdfcore::tree::NodePtr& root);

/// Return the fits list of `root`: `/fits` when it carries a fits tag, else the first tagged
/// fits list in document order. Throws `asdfcore::Error` (not-fits) naming `file` when
/// there is none, (malformed) naming the item's path when an item is not a mapping with a
/// `header` list of cards or its card images are malformed.
FitsList find_fits_list(const asdfcore::tree::NodePtr& root, const std::string& file);

/// Return true when `tag` is one of the fits tags.
bool is_fits_tag(std::string_view tag);

}  // namespace fitsasdf::to_fits
