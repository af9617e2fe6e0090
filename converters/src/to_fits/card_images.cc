#include "to_fits/card_images.h"

#include <utility>

#include "asdfcore/error.h"
#include "fits/card_entry.h"
#include "fits/card_format.h"
#include "fits/card_value.h"

namespace fitsasdf::to_fits {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::ErrorContext;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;

constexpr std::size_t kMaxCardsPerEntry = 100;
using fits::kEndCard;

[[noreturn]] void malformed(const std::string& message, const std::string& path) {
  throw Error(ErrorCode::kMalformed, message, ErrorContext{.tree_path = path});
}

std::string rstrip_blanks(std::string s) {
  const std::size_t last = s.find_last_not_of(' ');
  s.erase(last == std::string::npos ? 0 : last + 1);
  return s;
}

/// UTF-8 text back to the bytes it was made from (code points up to U+00FF), or nothing.
std::optional<std::string> utf8_to_latin1(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if ((c == 0xc2 || c == 0xc3) && i + 1 < s.size() &&
               (static_cast<unsigned char>(s[i + 1]) & 0xc0) == 0x80) {
      out += static_cast<char>(((c & 0x03) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3f));
      ++i;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

/// The value of a card without one, as read_tree_card gives it.
const NodePtr& null_value() {
  static const NodePtr kNull = Node::make_null();
  return kNull;
}

/// The card `card` as the tree holds it: what read_tree_card makes of card_to_node's entry,
/// without building the entry (this runs for every card of every header). The value is
/// `card`'s own node, to be read, not changed.
TreeCard tree_card_of(const Card& card) {
  CardEntry e = card_entry(card);
  TreeCard c;
  c.keyword = std::move(e.keyword);
  c.value = e.value ? e.value : null_value();
  c.comment = std::string(e.comment);
  return c;
}

std::string joined(const std::vector<std::string>& images) {
  std::string out;
  for (const auto& i : images) out += i;
  return out;
}

/// True when `images`, one after another, are `text`.
bool same_text(std::string_view text, const std::vector<std::string>& images) {
  std::size_t at = 0;
  for (const auto& i : images) {
    if (text.size() - at < i.size() || text.compare(at, i.size(), i) != 0) return false;
    at += i.size();
  }
  return at == text.size();
}

bool formats_as(const Card& card) {
  try {
    // The entry's fields as tree_card_of gives them, viewed rather than copied.
    const CardEntry e = card_entry(card);
    const NodePtr& value = e.value ? e.value : null_value();
    return same_text(fits::format_card(e.keyword, value, e.comment).images, card.images);
  } catch (const Error&) {
    return false;  // a value the formatter refuses (an overflowed float): keep the image
  }
}

}  // namespace

TreeCard read_tree_card(const Node& entry, const std::string& path) {
  if (!entry.is_sequence() || entry.size() > 3) {
    malformed("a header card must be a list [keyword, value, comment] of at most 3 items, not " +
                  asdfcore::tree::describe_for_error(entry),
              path);
  }
  const auto& items = entry.items();
  TreeCard card;
  card.value = Node::make_null();
  if (items.empty()) return card;
  if (!items[0] || !items[0]->is_string()) {
    malformed("the keyword of a header card must be a string", path + "/0");
  }
  card.keyword = items[0]->as_string();
  if (items.size() > 1 && items[1]) card.value = items[1];
  if (items.size() > 2 && items[2] && !items[2]->is_null()) {
    if (!items[2]->is_string())
      malformed("the comment of a header card must be a string", path + "/2");
    card.comment = items[2]->as_string();
  }
  return card;
}

std::vector<TreeCard> read_tree_cards(const Node& header, const std::string& path) {
  if (!header.is_sequence()) {
    malformed("`header` must be a list of cards, not " + asdfcore::tree::describe_for_error(header),
              path);
  }
  std::vector<TreeCard> cards;
  cards.reserve(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) {
    cards.push_back(read_tree_card(*header.items()[i], path + "/" + std::to_string(i)));
  }
  return cards;
}

bool same_card(const TreeCard& a, const TreeCard& b) {
  return a.keyword == b.keyword && a.comment == b.comment &&
         asdfcore::tree::deep_equal(*a.value, *b.value);
}

NodePtr record_card_images(const Header& header) {
  NodePtr images = Node::make_mapping();
  for (std::size_t i = 0; i < header.cards.size(); ++i) {
    const Card& card = header.cards[i];
    if (formats_as(card)) continue;
    images->entries().emplace_back(
        Node::make_int(static_cast<std::int64_t>(i)),
        Node::make_string(fits::latin1_to_utf8(rstrip_blanks(joined(card.images)))));
  }
  const std::string end = header.end_image + header.padding;
  if (end.find_first_not_of(' ', 3) != std::string::npos || !end.starts_with("END")) {
    images->entries().emplace_back(Node::make_int(static_cast<std::int64_t>(header.cards.size())),
                                   Node::make_string(fits::latin1_to_utf8(rstrip_blanks(end))));
  }
  return images->size() == 0 ? nullptr : images;
}

CardImages read_card_images(const Node& node, std::size_t n_cards, const std::string& path) {
  if (!node.is_mapping()) {
    malformed("card images must be a mapping {card index: text}, not " +
                  asdfcore::tree::describe_for_error(node),
              path);
  }
  CardImages out;
  for (const auto& [key, value] : node.entries()) {
    std::int64_t index = -1;
    if (key->kind() == NodeKind::kInt) {
      index = key->as_int();
    } else if (key->is_string() && !key->as_string().empty() &&
               key->as_string().find_first_not_of("0123456789") == std::string::npos &&
               key->as_string().size() < 10) {
      index = std::stoll(key->as_string());
    }
    const std::string where = path + "/" + asdfcore::tree::describe_for_error(*key);
    if (index < 0 || static_cast<std::size_t>(index) > n_cards) {
      malformed("a card image key must be a card index from 0 to " + std::to_string(n_cards) +
                    ", not " + asdfcore::tree::describe_for_error(*key),
                where);
    }
    if (!value->is_string()) malformed("a card image must be text", where);
    std::optional<std::string> bytes = utf8_to_latin1(value->as_string());
    if (!bytes || bytes->size() > kMaxCardsPerEntry * kCardSize) {
      malformed("a card image must be at most " + std::to_string(kMaxCardsPerEntry) +
                    " cards of 80 characters from Latin-1",
                where);
    }
    if (bytes->empty() || bytes->size() % kCardSize != 0) {
      bytes->append(kCardSize - bytes->size() % kCardSize, ' ');
    }
    out[static_cast<std::size_t>(index)] = std::move(*bytes);
  }
  return out;
}

bool image_matches(std::string_view images, const TreeCard& card) {
  if (images.empty() || images.size() % kCardSize != 0) return false;
  std::string text(images);
  text += kEndCard;
  text.append((kBlockSize - text.size() % kBlockSize) % kBlockSize, ' ');
  try {
    // Read as the FITS side read it: a card astropy cannot parse is repaired (a string value).
    HeaderOptions repair;
    repair.fix_unparsable_values = true;
    const std::vector<Card> cards = parse_header(text, 0, "", repair);
    return cards.size() == 1 && same_card(tree_card_of(cards.front()), card);
  } catch (const Error&) {
    return false;
  }
}

}  // namespace fitsasdf::to_fits
