#include "fits/hdu_walk.h"

#include <limits>

#include "asdfcore/tree/node.h"

namespace fitsasdf::fits {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;

/// The 0-based position of the first card with `keyword`, or -1.
long position(const std::vector<Card>& cards, std::string_view keyword) {
  for (std::size_t i = 0; i < cards.size(); ++i) {
    if (cards[i].keyword == keyword) return static_cast<long>(i);
  }
  return -1;
}

/// The integer value of `keyword`, `fallback` when absent; throws when it is not an integer.
long long integer(const std::vector<Card>& cards, std::string_view keyword, long long fallback,
                  const ErrorContext& where) {
  const Card* c = find_card(cards, keyword);
  if (c == nullptr || !c->value || c->value->is_null()) return fallback;
  if (c->value->kind() != NodeKind::kInt) {
    std::string text = c->images.empty() ? std::string() : c->images.front();
    while (!text.empty() && text.back() == ' ') text.pop_back();
    throw Error(ErrorCode::kMalformed,
                std::string(keyword) + " must be an integer ('" + text +
                    "'): the size of the HDU's data cannot be known",
                where);
  }
  return c->value->as_int();
}

bool is_true(const std::vector<Card>& cards, std::string_view keyword) {
  const Card* c = find_card(cards, keyword);
  return c != nullptr && c->value && c->value->kind() == NodeKind::kBool && c->value->as_bool();
}

/// Say where the mandatory keywords of `cards` depart from the standard's order (section 4.4.1:
/// SIMPLE or XTENSION, BITPIX, NAXIS, NAXIS1..n, then PCOUNT and GCOUNT in an extension, and
/// TFIELDS after them in a table); "" when they do not.
std::string misplaced_keywords(const std::vector<Card>& cards, bool extension, bool table,
                               long long naxis) {
  std::vector<std::string> order{extension ? "XTENSION" : "SIMPLE", "BITPIX", "NAXIS"};
  for (long long i = 1; i <= naxis && i <= 999; ++i) order.push_back("NAXIS" + std::to_string(i));
  if (extension) {
    order.push_back("PCOUNT");
    order.push_back("GCOUNT");
    if (table) order.push_back("TFIELDS");
  }
  std::string why;
  int listed = 0;
  for (std::size_t want = 0; want < order.size(); ++want) {
    const long at = position(cards, order[want]);
    if (at == static_cast<long>(want)) continue;
    if (listed == 3) {
      why += ", ...";
      break;
    }
    why += (why.empty() ? "" : ", ") +
           (at < 0 ? order[want] + " is missing"
                   : order[want] + " is card " + std::to_string(at + 1) + ", not " +
                         std::to_string(want + 1));
    ++listed;
  }
  return why;
}

/// Throw (truncated) when the header at the start of `rest` has no END card, or ends in a
/// 2880-byte block that `rest` does not complete. `hdu` is the header's 1-based HDU number.
void refuse_cut_header(std::string_view rest, int hdu, const ErrorContext& at) {
  std::size_t header_size = 0;  // through the block holding END
  for (std::size_t card = 0; card + 80 <= rest.size() && header_size == 0; card += 80) {
    if (rest.substr(card, 8) == "END     ") header_size = (card / 2880 + 1) * 2880;
  }
  const std::string which = "the header of HDU " + std::to_string(hdu);
  if (header_size == 0) {
    throw Error(ErrorCode::kTruncated,
                "no END card in the " + std::to_string(rest.size()) + " bytes of " + which +
                    ": the file is cut inside the header, or END is missing",
                at);
  }
  if (header_size > rest.size()) {
    throw Error(ErrorCode::kTruncated,
                "the file ends inside " + which + " (its last block holds " +
                    std::to_string(rest.size() % 2880) + " of 2880 bytes): the file is cut",
                at);
  }
}

}  // namespace

const Card* find_card(const std::vector<Card>& cards, std::string_view keyword) {
  for (const auto& c : cards) {
    if (c.keyword == keyword) return &c;
  }
  return nullptr;
}

std::uint64_t declared_data_size(const std::vector<Card>& cards, const ErrorContext& where) {
  const long long naxis = integer(cards, "NAXIS", 0, where);
  if (naxis < 0 || naxis > 999) {
    throw Error(ErrorCode::kMalformed, "NAXIS = " + std::to_string(naxis) + " is outside 0..999",
                where);
  }
  if (naxis == 0) return 0;
  const long long bitpix = integer(cards, "BITPIX", 0, where);
  if (bitpix != 8 && bitpix != 16 && bitpix != 32 && bitpix != 64 && bitpix != -32 &&
      bitpix != -64) {
    throw Error(ErrorCode::kMalformed,
                find_card(cards, "BITPIX") == nullptr
                    ? std::string("no BITPIX card: the size of the HDU's data cannot be known")
                    : "BITPIX = " + std::to_string(bitpix) +
                          " is not one of 8, 16, 32, 64, -32 and -64",
                where);
  }
  const bool groups = is_true(cards, "GROUPS") && integer(cards, "NAXIS1", -1, where) == 0;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t count = 1;
  for (long long i = groups ? 2 : 1; i <= naxis; ++i) {
    const std::string key = "NAXIS" + std::to_string(i);
    const long long n = integer(cards, key, -1, where);
    if (n < 0) throw Error(ErrorCode::kMalformed, key + " is missing or negative", where);
    if (n != 0 && count > kMax / static_cast<std::uint64_t>(n)) {
      throw Error(ErrorCode::kMalformed, "the declared data size overflows", where);
    }
    count *= static_cast<std::uint64_t>(n);
  }
  const long long pcount = integer(cards, "PCOUNT", 0, where);
  const long long gcount = integer(cards, "GCOUNT", 1, where);
  if (pcount < 0 || gcount < 0) {
    throw Error(ErrorCode::kMalformed, "negative PCOUNT or GCOUNT", where);
  }
  const auto bytes = static_cast<std::uint64_t>(bitpix < 0 ? -bitpix : bitpix) / 8;
  const auto p = static_cast<std::uint64_t>(pcount);
  const auto g = static_cast<std::uint64_t>(gcount);
  if (count > kMax - p || ((count + p) != 0 && g > kMax / (count + p)) ||
      ((g * (count + p)) != 0 && bytes > kMax / (g * (count + p)))) {
    throw Error(ErrorCode::kMalformed, "the declared data size overflows", where);
  }
  return bytes * g * (count + p);
}

HduLayout walk_hdus(std::string_view bytes, const std::string& path) {
  HduLayout layout;
  HeaderOptions lenient;
  lenient.fix_unparsable_values = true;
  std::uint64_t pos = 0;
  for (int index = 1; pos < bytes.size(); ++index) {
    const std::string_view rest = bytes.substr(static_cast<std::size_t>(pos));
    if (index > 1 && !rest.starts_with("XTENSION")) break;  // bytes after the last HDU
    ErrorContext where{.file = path, .offset = pos, .hdu = index};
    Header header;
    try {
      header = read_header(rest, index, path, lenient);
    } catch (const Error&) {
      refuse_cut_header(rest, index, where);  // a file cut inside the header says so
      throw;
    }
    const std::vector<Card>& cards = header.cards;
    HduExtent e;
    e.index = index;
    e.header_start = pos;
    e.data_start = pos + header.size;
    const bool extension = index > 1;
    bool table = false;
    if (extension) {
      std::string xtension;
      if (const Card* c = find_card(cards, "XTENSION"); c && c->value && c->value->is_string()) {
        xtension = c->value->as_string();
      }
      while (!xtension.empty() && xtension.back() == ' ') xtension.pop_back();
      if (xtension == "IMAGE") {
        e.type = kImageHdu;
      } else if (xtension == "TABLE") {
        e.type = kAsciiTableHdu;
        table = true;
      } else if (xtension == "BINTABLE" || xtension == "A3DTABLE") {
        e.type = kBinaryTableHdu;
        table = true;
      } else {
        e.type = kForeignHdu;
      }
    } else if (!cards.empty() && cards.front().keyword == "SIMPLE" && cards.front().value &&
               cards.front().value->kind() == NodeKind::kBool &&
               !cards.front().value->as_bool() && find_card(cards, "GROUPS") == nullptr) {
      e.type = kForeignHdu;
      e.nonstandard_primary = true;
    }
    where.offset.reset();
    if (e.nonstandard_primary) {
      // astropy's _NonstandardHDU: the data is the rest of the stream, whatever the header says.
      e.data_start = std::min<std::uint64_t>(e.data_start, bytes.size());
      e.data_size = bytes.size() - e.data_start;
      e.data_end = bytes.size();
    } else {
      e.data_size = declared_data_size(cards, where);
      if (e.data_start > bytes.size() || e.data_size > bytes.size() - e.data_start) {
        const std::uint64_t held = e.data_start > bytes.size() ? 0 : bytes.size() - e.data_start;
        throw Error(ErrorCode::kTruncated,
                    "the file ends inside the data of HDU " + std::to_string(index) + ": it holds " +
                        std::to_string(held) + " of the " + std::to_string(e.data_size) +
                        " bytes the header declares",
                    where);
      }
      e.data_end = e.data_start + (e.data_size + kBlockSize - 1) / kBlockSize * kBlockSize;
    }
    if (e.type == kBinaryTableHdu) {
      e.tile_compressed = is_true(cards, "ZIMAGE");
      e.compressed_table = !e.tile_compressed && is_true(cards, "ZTABLE");
    }
    const long long naxis = integer(cards, "NAXIS", 0, where);
    e.misplaced = misplaced_keywords(cards, extension, table, naxis);
    pos = e.data_end;
    layout.hdus.push_back(std::move(e));
    layout.headers.push_back(std::move(header));
    if (layout.hdus.back().nonstandard_primary) break;
  }
  return layout;
}

}  // namespace fitsasdf::fits
