// Findings about a whole HDU: repaired (unparsable) cards and checksum cards that do not verify.
#include "hdu/hdu_findings.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <string>

#include "fits/card_value.h"
#include "fits/checksum.h"

namespace fitsasdf::hdu {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;

constexpr std::size_t kBlock = 2880;

/// Return the first card image of `card` without its trailing blanks, as UTF-8.
std::string shown_image(const Card& card) {
  const std::string& image = card.images.front();
  return fits::latin1_to_utf8(image.substr(0, image.find_last_not_of(' ') + 1));
}

/// Return the first card `keyword` of `cards`, or nullptr.
const Card* find_card(const std::vector<Card>& cards, std::string_view keyword) {
  for (const auto& c : cards) {
    if (c.keyword == keyword) return &c;
  }
  return nullptr;
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

void add_checksum_findings(std::string_view header_bytes, const asdfcore::io::Buffer& buffer,
                           const std::vector<Card>& cards, int hdu, std::vector<Finding>& out) {
  const Card* checksum = find_card(cards, "CHECKSUM");
  const Card* datasum = find_card(cards, "DATASUM");
  if (checksum == nullptr && datasum == nullptr) return;
  // The data's sum, over whole blocks (a short last block as if padded with zeros).
  const std::span<const std::uint8_t> data = buffer.span();
  fits::ChecksumSum data_sum;
  const std::size_t whole = data.size() / kBlock * kBlock;
  constexpr std::size_t kWindow = kBlock * 8192;  // 22.5 MiB summed, then released
  for (std::size_t at = 0; at < whole; at += kWindow) {
    const auto piece = data.subspan(at, std::min(kWindow, whole - at));
    data_sum.add(piece);
    buffer.release(piece);
  }
  if (whole < data.size()) {
    std::vector<std::uint8_t> last(kBlock, 0);
    std::memcpy(last.data(), data.data() + whole, data.size() - whole);
    data_sum.add(last);
  }
  if (datasum != nullptr) {
    // DATASUM: the unsigned decimal integer of the data's sum, as a string ('0' when the HDU
    // has no data).
    std::string text =
        datasum->value && datasum->value->is_string() ? datasum->value->as_string() : std::string();
    text.erase(0, std::min(text.find_first_not_of(' '), text.size()));
    text.erase(text.find_last_not_of(' ') + 1);
    std::uint64_t stated = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), stated);
    const bool parsed = ec == std::errc() && end == text.data() + text.size() && !text.empty();
    if (!parsed || stated != data_sum.value()) {
      out.push_back(Finding{
          hdu, "datasum-mismatch",
          "DATASUM = '" + text + "' but the data's 32-bit ones' complement sum is " +
              std::to_string(data_sum.value()) + (parsed ? "" : " (the card is not a number)") +
              ": the data changed since the card was written, or the card is wrong"});
    }
  }
  if (checksum != nullptr) {
    // CHECKSUM: the whole HDU (header with the CHECKSUM card as stored, then the data) sums
    // to -0 (all ones).
    const std::size_t header_whole = header_bytes.size() / kBlock * kBlock;
    fits::ChecksumSum sum(data_sum.value());
    sum.add(std::span<const std::uint8_t>(
        reinterpret_cast<const std::uint8_t*>(header_bytes.data()), header_whole));
    if (sum.value() != 0xffffffffu) {
      const std::string stated =
          checksum->value && checksum->value->is_string() ? checksum->value->as_string() : "";
      out.push_back(Finding{hdu, "checksum-mismatch",
                            "CHECKSUM = '" + stated +
                                "' does not verify: the HDU's header and data sum to " +
                                std::to_string(sum.value()) +
                                ", not -0 (4294967295); the HDU changed since the card was "
                                "written"});
    }
  }
}

}  // namespace fitsasdf::hdu
