#pragma once
// Private to the converters: what a header card shows in the tree's [keyword, value, comment]
// entry (card_to_node builds the entry from it; the card-image check reads it without building
// one), so that the two cannot disagree on blank cards or HIERARCH keywords.
#include <string>
#include <string_view>

#include "asdfcore/tree/node.h"
#include "fitsasdf/header.h"

namespace fitsasdf {

struct CardEntry {
  bool blank = false;             ///< A blank card: the entry is [].
  std::string keyword;            ///< With its "HIERARCH " prefix when it had one.
  asdfcore::tree::NodePtr value;  ///< The card's own value node (nullptr: undefined).
  std::string_view comment;       ///< The card's comment ("" when none).
};

/// The entry fields of `card`, which must outlive the result (value and comment are its own).
CardEntry card_entry(const Card& card);

}  // namespace fitsasdf
