#pragma once
// Comparing two FITS headers: card by card in place (verification) or keyword by keyword as
// astropy's fitsdiff does.
#include <cstddef>
#include <string>
#include <vector>

#include "fitsasdf/diff.h"
#include "fitsasdf/header.h"

namespace fitsasdf::compare {

/// What a header comparison found.
struct HeaderResult {
  HeaderMatch match = HeaderMatch::kIdentical;
  std::size_t cards_a = 0;             ///< Cards compared in A.
  std::size_t cards_b = 0;             ///< Cards compared in B.
  std::size_t total = 0;               ///< Card differences found.
  std::vector<CardDifference> listed;  ///< The first `max_listed`, most important first.
  std::vector<std::string> notes;      ///< END card or padding differences (kVerify).
};

/// Compare `a` and `b` in place: the same cards (keyword and occurrence) in the same order with
/// the same values (same type too), comments and card text, then the END card and the padding.
/// Cards whose keyword is in `ignore_keywords` (fitsdiff's patterns) are left out.
HeaderResult compare_headers_in_place(const Header& a, const Header& b,
                                      const std::vector<std::string>& ignore_keywords,
                                      std::size_t max_listed);

/// Compare `a` and `b` as astropy 5.2's `HeaderDiff` does: blank cards skipped, keywords
/// compared case-insensitively whatever their order, values as Python compares them (1 equals
/// 1.0, trailing blanks of strings ignored, NaN equals NaN), duplicates occurrence by
/// occurrence, then comments; `ignore_keywords` may use `*` and `?`.
HeaderResult compare_headers_by_keyword(const std::vector<Card>& a, const std::vector<Card>& b,
                                        const std::vector<std::string>& ignore_keywords,
                                        std::size_t max_listed);

/// Return a card's value as text: strings in single quotes (inner quotes doubled), logicals T or
/// F, integers in decimal, floats as Python's repr, complex values as written, "(undefined)".
std::string card_value_text(const Card& card);

/// Return true when `keyword` matches one of `patterns` (case-insensitive; `*`, `?`, `[...]`).
bool keyword_ignored(const std::string& keyword, const std::vector<std::string>& patterns);

}  // namespace fitsasdf::compare
