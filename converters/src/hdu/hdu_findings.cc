// Findings about a whole HDU: repaired (unparsable) cards and checksum cards that do not verify.
#include "hdu/hdu_findings.h"

#include <algorithm>
#include <array>
#include <string>

#include "fits/card_value.h"
#include "fits/checksum_check.h"
#include "fits/hdu_walk.h"

namespace fitsasdf::hdu {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;

/// Return the first card image of `card` without its trailing blanks, as UTF-8.
std::string shown_image(const Card& card) {
  const std::string& image = card.images.front();
  return fits::latin1_to_utf8(image.substr(0, image.find_last_not_of(' ') + 1));
}

/// Return `text` quoted as python's repr quotes a str (double quotes when it holds a single
/// quote and no double quote).
std::string python_repr(const std::string& text) {
  const bool dq = text.find('\'') != std::string::npos && text.find('"') == std::string::npos;
  const char q = dq ? '"' : '\'';
  std::string out(1, q);
  for (const char c : text) {
    if (c == q || c == '\\') out += '\\';
    out += c;
  }
  return out + q;
}

}  // namespace

HeaderOptions repairing_header_options() {
  HeaderOptions options;
  options.fix_unparsable_values = true;
  return options;
}

bool structural_keyword(std::string_view keyword) {
  static constexpr std::array<std::string_view, 29> kExact{
      "SIMPLE",   "XTENSION", "BITPIX",   "NAXIS",    "PCOUNT",  "GCOUNT", "GROUPS",  "TFIELDS",
      "THEAP",    "BSCALE",   "BZERO",    "BLANK",    "ZIMAGE",  "ZTABLE", "ZBITPIX", "ZNAXIS",
      "ZCMPTYPE", "ZTILELEN", "ZQUANTIZ", "ZDITHER0", "ZPCOUNT", "ZTHEAP", "ZBLANK",  "ZSCALE",
      "ZZERO",    "ZSIMPLE",  "ZTENSION", "ZGCOUNT",  "ZEXTEND"};
  // Indexed keywords: the prefix, then a column or axis number.
  static constexpr std::array<std::string_view, 15> kIndexed{
      "NAXIS", "TFORM",  "TBCOL", "TDIM",  "TSCAL", "TZERO", "TNULL", "PSCAL",
      "PZERO", "ZNAXIS", "ZTILE", "ZFORM", "ZCTYP", "ZNAME", "ZVAL"};
  if (std::find(kExact.begin(), kExact.end(), keyword) != kExact.end()) return true;
  for (const std::string_view prefix : kIndexed) {
    if (keyword.size() > prefix.size() && keyword.starts_with(prefix) &&
        keyword.find_first_not_of("0123456789", prefix.size()) == std::string_view::npos) {
      return true;
    }
  }
  return false;
}

void check_structural_cards(const Header& header, const asdfcore::ErrorContext& where) {
  for (std::size_t i = 0; i < header.cards.size(); ++i) {
    const Card& card = header.cards[i];
    if (card.problem.empty() || !structural_keyword(card.keyword)) continue;
    throw Error(ErrorCode::kMalformed,
                "HDU " + std::to_string(where.hdu.value_or(0)) + ", card " + std::to_string(i + 1) +
                    " ('" + shown_image(card) + "'): " + card.problem + "; " + card.keyword +
                    " describes the HDU's layout or values, so the HDU cannot be read (astropy "
                    "cannot read it either); fix the card",
                where);
  }
}

void add_unparsable_card_findings(const Header& header, int hdu, std::vector<Finding>& out) {
  for (std::size_t i = 0; i < header.cards.size(); ++i) {
    const Card& card = header.cards[i];
    if (card.problem.empty()) continue;
    const std::string value =
        card.value && card.value->is_string() ? card.value->as_string() : std::string();
    // astropy's words (Card._verify): the value field is the text after the value indicator.
    const std::string image = shown_image(card);
    const std::size_t indicator = image.find("= ");
    std::string field = indicator == std::string::npos ? "" : image.substr(indicator + 2);
    field.erase(0, std::min(field.find_first_not_of(' '), field.size()));
    out.push_back(Finding{
        hdu, "unparsable-card",
        "card " + std::to_string(i + 1) + " (" + card.keyword + "): astropy says \"Card '" +
            card.keyword + "' is not FITS standard (invalid value string: " + python_repr(field) +
            ")\"; its verify('fix') reads the value as the string " + python_repr(value) +
            ", and so does this conversion; the original card image is kept and written back"});
  }
}

void add_checksum_findings(std::string_view header_bytes, const asdfcore::io::Buffer& data,
                           const std::vector<Card>& cards, int hdu, std::vector<Finding>& out) {
  const fits::HduChecksums sums = fits::check_hdu_checksums(
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(header_bytes.data()),
                                    header_bytes.size()),
      data, cards);
  const auto stated = [&cards](std::string_view keyword) {
    const Card* c = fits::find_card(cards, keyword);
    std::string text = c && c->value && c->value->is_string() ? c->value->as_string() : "";
    text.erase(0, std::min(text.find_first_not_of(' '), text.size()));
    text.erase(text.find_last_not_of(' ') + 1);
    return text;
  };
  if (sums.verdict.datasum == fits::ChecksumVerdict::kInvalid) {
    out.push_back(Finding{hdu, "datasum-mismatch",
                          "DATASUM = '" + stated("DATASUM") +
                              "' but the data's 32-bit ones' complement sum is " +
                              std::to_string(sums.data_sum) +
                              ": the data changed since the card was written, or the card is "
                              "wrong"});
  }
  if (sums.verdict.checksum == fits::ChecksumVerdict::kInvalid) {
    out.push_back(Finding{hdu, "checksum-mismatch",
                          "CHECKSUM = '" + stated("CHECKSUM") +
                              "' does not verify: the HDU's header and data sum to " +
                              std::to_string(sums.hdu_sum) +
                              ", not -0 (4294967295); the HDU changed since the card was "
                              "written"});
  }
}

}  // namespace fitsasdf::hdu
