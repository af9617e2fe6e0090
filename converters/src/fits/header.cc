// The header model: find the END card, group CONTINUE cards, parse each logical card
// (fits/card_value.cc) and keep the raw images. The END search follows astropy 5.2.1's
// `fits.open`: its fast reader (`_utils.parse_header`) takes the first card that is exactly
// "END" + 77 blanks in whole, pure-ASCII 2880-byte blocks; when that reader gives up (a byte
// above 0x7f, a short last block, no such card) the full reader (`Header._from_blocks`) also
// accepts an END card with junk after it (`HEADER_END_RE`).
#include "fitsasdf/header.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#include "asdfcore/error.h"
#include "asdfcore/extension/core_types.h"
#include "fits/card_entry.h"
#include "fits/card_format.h"
#include "fits/card_value.h"

namespace fitsasdf {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;
using asdfcore::tree::Node;
using asdfcore::tree::NodePtr;

using fits::kEndCard;
static_assert(kEndCard.size() == kCardSize);

/// Return true when every byte of `s` has its top bit clear or, with `kBlanks`, when every
/// byte is a blank. Eight bytes at a time: every header block of every HDU goes through these.
template <bool kBlanks>
bool all_bytes(std::string_view s) {
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  constexpr std::uint64_t kBlank = 0x2020202020202020ULL;
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (kBlanks ? w != kBlank : (w & kHigh) != 0) return false;
  }
  for (; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (kBlanks ? c != ' ' : c > 0x7f) return false;
  }
  return true;
}

/// The fast reader: the first exact END card, or nullopt when astropy would fall back.
std::optional<std::size_t> find_end_fast(std::string_view bytes) {
  for (std::size_t block = 0; block + kBlockSize <= bytes.size(); block += kBlockSize) {
    const std::string_view b = bytes.substr(block, kBlockSize);
    if (!all_bytes<false>(b)) return std::nullopt;  // decode('ascii') fails
    for (std::size_t at = 0; at < kBlockSize; at += kCardSize) {
      if (b.substr(at, kCardSize) == kEndCard) return block + at;
    }
  }
  return std::nullopt;
}

bool keyword_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/// `HEADER_END_RE.finditer(block)` keeping the first match that starts a card: a valid END
/// ("END" + 77 blanks) or an invalid one ("END" then a byte that cannot continue a keyword).
std::optional<std::size_t> find_end_in_block(std::string_view block) {
  std::size_t pos = 0;
  while (true) {
    const std::size_t m = block.find("END", pos);
    if (m == std::string_view::npos) return std::nullopt;
    const std::size_t after = m + 3;
    std::size_t blanks = 0;
    while (after + blanks < block.size() && block[after + blanks] == ' ') ++blanks;
    std::size_t match_end = std::string_view::npos;
    if (blanks >= 77) {
      match_end = after + blanks;
    } else if (after == block.size() || (after + 1 == block.size() && block[after] == '\n')) {
      match_end = after;  // "END$"
    } else if (after + blanks < block.size() && !keyword_char(block[after + blanks])) {
      match_end = after + blanks + 1;
    } else if (blanks > 0) {
      match_end = after + blanks;  // the last blank is the non-keyword character
    }
    if (match_end == std::string_view::npos) {
      pos = m + 1;
      continue;
    }
    if (m % kCardSize == 0) return m;
    pos = match_end;
  }
}

/// The full reader's END search, block by block (the last block may be short).
std::optional<std::size_t> find_end_full(std::string_view bytes) {
  for (std::size_t block = 0; block < bytes.size(); block += kBlockSize) {
    if (const auto at = find_end_in_block(bytes.substr(block, kBlockSize))) return block + *at;
  }
  return std::nullopt;
}

NodePtr value_node(const fits::CardValue& v) {
  using Kind = fits::CardValue::Kind;
  switch (v.kind) {
    case Kind::kString:
      return Node::make_string(fits::latin1_to_utf8(v.text));
    case Kind::kBool:
      return Node::make_bool(v.boolean);
    case Kind::kInteger:
      return Node::make_integer_text(v.text);
    case Kind::kFloat:
      return Node::make_float(v.real);
    case Kind::kComplex: {
      NodePtr node = Node::make_string(asdfcore::extension::format_complex({v.real, v.imag}));
      node->set_tag(std::string(kComplexTag));
      return node;
    }
    case Kind::kUndefined:
      break;
  }
  return Node::make_null();
}

}  // namespace

Header read_header(std::string_view bytes, int hdu, const std::string& file_name,
                   const HeaderOptions& options) {
  ErrorContext context;
  context.file = file_name;
  context.hdu = hdu;

  std::optional<std::size_t> end = find_end_fast(bytes);
  // The fast reader found END only in blocks of pure ASCII: no byte of the cards needs '?'.
  const bool ascii = end.has_value();
  if (!end) end = find_end_full(bytes);
  if (end && *end / kBlockSize * kBlockSize + kBlockSize > bytes.size()) {
    // astropy: "Header size is not multiple of 2880".
    throw Error(ErrorCode::kTruncated,
                "HDU " + std::to_string(hdu) + ": the block holding the END card has only " +
                    std::to_string(bytes.size() % kBlockSize) +
                    " of its 2880 bytes; a FITS header fills whole blocks (the file is cut short)",
                context);
  }
  if (!end) {
    throw Error(ErrorCode::kMalformed,
                "HDU " + std::to_string(hdu) + ": the header has no END card in its " +
                    std::to_string(bytes.size()) +
                    " bytes; a FITS header ends with a card reading 'END' before the data",
                context);
  }

  Header header;
  const std::size_t n_cards = *end / kCardSize;
  header.cards.reserve(n_cards);
  std::size_t first = 0;
  while (first < n_cards) {
    std::size_t last = first + 1;
    while (last < n_cards && bytes.substr(last * kCardSize, 8) == "CONTINUE") ++last;
    const std::string_view image = bytes.substr(first * kCardSize, (last - first) * kCardSize);
    // fits.open decodes the header as ASCII with every other byte replaced by '?'.
    std::string replaced;
    std::string_view text = image;
    if (!ascii && !options.latin1_text) {
      replaced = std::string(image);
      for (char& c : replaced) {
        if (static_cast<unsigned char>(c) > 0x7f) c = '?';
      }
      text = replaced;
    }
    Card card;
    try {
      fits::CardFields fields = fits::parse_card(text, options.fix_unparsable_values);
      card.keyword = std::move(fields.keyword);
      card.value = value_node(fields.value);
      card.comment = fits::latin1_to_utf8(fields.comment);
      card.problem = std::move(fields.problem);
    } catch (const Error& e) {
      const std::string_view head = image.substr(0, kCardSize);
      throw Error(ErrorCode::kMalformed,
                  "HDU " + std::to_string(hdu) + ", card " + std::to_string(first + 1) + " ('" +
                      fits::latin1_to_utf8(head.substr(0, head.find_last_not_of(' ') + 1)) +
                      "'): " + e.message(),
                  context);
    }
    for (std::size_t i = first; i < last; ++i) {
      card.images.emplace_back(bytes.substr(i * kCardSize, kCardSize));
    }
    card.has_value_indicator = image.substr(8, 2) == "= ";
    header.cards.push_back(std::move(card));
    first = last;
  }
  header.end_image = std::string(bytes.substr(*end, kCardSize));
  const std::size_t after_end = *end + kCardSize;
  header.size = (after_end + kBlockSize - 1) / kBlockSize * kBlockSize;
  if (after_end < bytes.size()) {
    const std::string_view padding = bytes.substr(after_end, header.size - after_end);
    if (!all_bytes<true>(padding)) {
      header.padding = std::string(padding);
    }
  }
  return header;
}

std::vector<Card> parse_header(std::string_view header_bytes, int hdu, const std::string& file_name,
                               const HeaderOptions& options) {
  return read_header(header_bytes, hdu, file_name, options).cards;
}

CardEntry card_entry(const Card& card) {
  CardEntry e;
  const bool blank_value =
      !card.value || (card.value->is_string() && card.value->as_string().empty());
  e.blank = card.keyword.empty() && blank_value && card.comment.empty();
  if (e.blank) return e;
  // A HIERARCH card keeps its prefix in the tree: astropy's Card() then builds a HIERARCH card
  // again without its "keyword longer than 8 characters" VerifyWarning (astropy's own view,
  // card.keyword, drops the prefix).
  const bool hierarch = !card.images.empty() && card.images.front().starts_with("HIERARCH ");
  e.keyword = hierarch ? "HIERARCH " + card.keyword : card.keyword;
  e.value = card.value;
  e.comment = card.comment;
  return e;
}

NodePtr card_to_node(const Card& card) {
  NodePtr node = Node::make_sequence();
  node->collection_style = asdfcore::tree::CollectionStyle::kFlow;
  const CardEntry e = card_entry(card);
  if (e.blank) return node;
  node->items().reserve(3);  // one allocation, not three as it grows
  node->push_back(Node::make_string(e.keyword));
  const NodePtr value = e.value ? asdfcore::tree::deep_copy(e.value) : Node::make_null();
  if (!e.comment.empty()) {
    node->push_back(value);
    node->push_back(Node::make_string(std::string(e.comment)));
  } else if (!value->is_null()) {
    node->push_back(value);
  }
  return node;
}

}  // namespace fitsasdf
