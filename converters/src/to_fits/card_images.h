#pragma once
// The header cards of a `fits` item and the card images recorded beside them. The tree keeps a
// card as [keyword, value, comment]; a float loses its text there, and a card written in another
// layout than the fixed format loses its layout. FITS -> ASDF records, per header, the raw images
// of the cards that `fits::format_card` would not write back byte for byte (`card_images`:
// {card index: text}, in the item, or for the standard's fits tag in the root's
// `fits_card_images` list); ASDF -> FITS uses a recorded image while the card in the tree still
// reads as that image does, and formats the card afresh otherwise.
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "asdfcore/tree/node.h"
#include "fitsasdf/header.h"

namespace fitsasdf::to_fits {

/// The key of a `fits` item holding the card images of its `header`.
inline constexpr std::string_view kCardImagesKey = "card_images";
/// The key holding the card images of a tile-compressed image's `compressed_header`.
inline constexpr std::string_view kCompressedCardImagesKey = "compressed_card_images";
/// The root key beside a `fits` list tagged with the standard's fits tag, whose schema allows no
/// key in an item besides header and data: a list with, per item, its `card_images` mapping
/// (null when it has none).
inline constexpr std::string_view kRootCardImagesKey = "fits_card_images";

/// One card as the tree holds it, normalised: [] is a blank card (keyword "", no value), [KW]
/// an undefined value, a missing comment "".
struct TreeCard {
  std::string keyword;
  asdfcore::tree::NodePtr value;  ///< Never nullptr: a null node when undefined or absent.
  std::string comment;
};

/// Read one header entry ([keyword], [keyword, value] or [keyword, value, comment]) at JSON
/// Pointer `path`. Throws `asdfcore::Error` (malformed) naming `path` for anything else.
TreeCard read_tree_card(const asdfcore::tree::Node& entry, const std::string& path);

/// Read a whole `header` list.
std::vector<TreeCard> read_tree_cards(const asdfcore::tree::Node& header, const std::string& path);

/// Return true when `a` and `b` are the same card: keyword and comment equal, values equal in
/// kind and value (floats by value).
bool same_card(const TreeCard& a, const TreeCard& b);

/// Recorded images: card index (0-based, in the header list) -> the card's images (80 * n
/// bytes, the bytes of the file). The index equal to the number of cards holds the END card and
/// the rest of its 2880-byte block, recorded only when they are not END and blanks.
using CardImages = std::map<std::size_t, std::string>;

/// Return the `card_images` node for `header` (as read from a FITS file): the images of the
/// cards `fits::format_card` would write differently, trailing blanks dropped, bytes above 0x7f
/// as their Latin-1 characters; nullptr when there is none to record.
asdfcore::tree::NodePtr record_card_images(const Header& header);

/// Read a `card_images` node at JSON Pointer `path` for a header of `n_cards` cards (blanks put
/// back, characters back to bytes). Throws `asdfcore::Error` (malformed) for a key that is not a
/// card index or a value that is not text of at most 80 * 100 bytes.
CardImages read_card_images(const asdfcore::tree::Node& node, std::size_t n_cards,
                            const std::string& path);

/// Return true when `images` (80 * n bytes) read, as fitsasdf reads a FITS header, as `card`.
bool image_matches(std::string_view images, const TreeCard& card);

}  // namespace fitsasdf::to_fits
