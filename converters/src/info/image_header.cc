// astropy 5.2's `CompImageHDU.header` (hdu/compressed.py) over the project's card model. The
// order of the cards depends on the details of astropy's `Header.set`, `insert` and `append`
// (which also drop a trailing blank card whenever a card is inserted), so `HeaderEdit` follows
// them step by step rather than building the result directly.
#include "info/image_header.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string>

#include "fits/card_format.h"

namespace fitsasdf::info {
namespace {

using asdfcore::Error;
using asdfcore::ErrorCode;
using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using asdfcore::tree::NodePtr;

bool is_commentary(std::string_view keyword) {
  return keyword.empty() || keyword == "COMMENT" || keyword == "HISTORY" || keyword == "END";
}

/// A card as read from the file is blank when its image is 80 blanks (astropy's `is_blank` for
/// a card not yet parsed).
bool is_blank(const Card& card) {
  return card.keyword.empty() && card.images.size() == 1 &&
         card.images[0].find_first_not_of(' ') == std::string::npos;
}

/// Python's `old != new` as astropy's `Card.value` setter decides whether a card changed:
/// strings compared without trailing blanks, bools by identity, other values by value and type.
bool values_differ(const NodePtr& a, const NodePtr& b) {
  if (!a || !b) return a != b;
  if (a->kind() != b->kind()) return true;
  switch (a->kind()) {
    case NodeKind::kNull:
      return false;
    case NodeKind::kBool:
      return a->as_bool() != b->as_bool();
    case NodeKind::kInt:
      return a->as_int() != b->as_int();
    case NodeKind::kBigInt:
      return a->integer_text() != b->integer_text();
    case NodeKind::kFloat:
      return a->as_double() != b->as_double();
    case NodeKind::kString: {
      if (a->tag() != b->tag()) return true;
      std::string x = a->as_string(), y = b->as_string();
      while (!x.empty() && x.back() == ' ') x.pop_back();
      while (!y.empty() && y.back() == ' ') y.pop_back();
      return x != y;
    }
    default:
      return true;
  }
}

/// Return a card in astropy's fixed format.
Card make_card(const std::string& keyword, const NodePtr& value, const std::string& comment) {
  Card c;
  c.keyword = keyword;
  c.value = value;
  c.comment = comment;
  c.has_value_indicator = true;
  const std::string images = fits::format_card(keyword, value, comment).images;
  for (std::size_t i = 0; i + kCardSize <= images.size(); i += kCardSize) {
    c.images.push_back(images.substr(i, kCardSize));
  }
  return c;
}

/// Where `HeaderEdit::set` puts a card: nowhere in particular, before a card number, or after
/// the first card with a keyword.
struct Position {
  std::optional<std::size_t> before;
  std::string after;
};

/// The few operations of astropy's `Header` that `CompImageHDU.header` uses, with their effects
/// on trailing blank cards.
class HeaderEdit {
 public:
  explicit HeaderEdit(std::vector<Card> cards) : cards_(std::move(cards)) {}

  std::vector<Card> take() { return std::move(cards_); }
  const std::vector<Card>& cards() const { return cards_; }

  /// Return the index of the first card with `keyword`, or -1.
  long index(std::string_view keyword) const {
    for (std::size_t i = 0; i < cards_.size(); ++i) {
      if (cards_[i].keyword == keyword) return static_cast<long>(i);
    }
    return -1;
  }
  bool has(std::string_view keyword) const { return index(keyword) >= 0; }
  const Card* card(std::string_view keyword) const {
    const long i = index(keyword);
    return i < 0 ? nullptr : &cards_[static_cast<std::size_t>(i)];
  }

  /// `del header[keyword]`: every card with `keyword`.
  void erase_all(std::string_view keyword) {
    std::erase_if(cards_, [&](const Card& c) { return c.keyword == keyword; });
  }

  /// `header.set(keyword, value, comment, before=..., after=...)`; a null `comment` keeps the
  /// existing card's comment.
  void set(const std::string& keyword, const NodePtr& value, const std::string* comment,
           const Position& pos = {}) {
    const bool placed = pos.before || !pos.after.empty();
    const long i = is_commentary(keyword) ? -1 : index(keyword);
    if (i >= 0) {
      Card& c = cards_[static_cast<std::size_t>(i)];
      const std::string new_comment = comment ? *comment : c.comment;
      if (values_differ(c.value, value) || new_comment != c.comment) {
        c = make_card(keyword, value, new_comment);
      }
      if (placed) move(static_cast<std::size_t>(i), pos);
    } else if (placed) {
      insert(insertion_index(pos), make_card(keyword, value, comment ? *comment : ""));
    } else {
      append(make_card(keyword, value, comment ? *comment : ""));
    }
  }

  /// `header.append()` of a blank card: at the very end.
  void append_blank() {
    Card c;
    c.value = Node::make_string("");
    c.images.emplace_back(kCardSize, ' ');
    cards_.push_back(std::move(c));
  }

  /// `header._countblanks()`: the trailing blank cards (the first card never counts).
  std::size_t count_blanks() const {
    for (std::size_t n = 1; n < cards_.size(); ++n) {
      if (!is_blank(cards_[cards_.size() - n])) return n - 1;
    }
    return 0;
  }

 private:
  std::size_t insertion_index(const Position& pos) const {
    if (pos.before) return *pos.before;
    const long i = index(pos.after);
    return i < 0 ? cards_.size() : static_cast<std::size_t>(i) + 1;
  }

  /// `_relativeinsert(card, ..., replace=True)` for the card at `old`.
  void move(std::size_t old, const Position& pos) {
    const std::size_t to = insertion_index(pos);
    if (to >= cards_.size() && old == cards_.size() - 1) return;
    if (pos.before) {
      if (old + 1 == to) return;
    } else if (old == to) {
      return;
    }
    Card c = std::move(cards_[old]);
    cards_.erase(cards_.begin() + static_cast<long>(old));
    insert(insertion_index(pos), std::move(c));
  }

  /// `header.insert(idx, card)`: at the end without more ado, else inserted and as many
  /// trailing blank cards dropped as the card has images.
  void insert(std::size_t idx, Card c) {
    if (idx >= cards_.size()) {
      cards_.push_back(std::move(c));
      return;
    }
    const std::size_t n = c.images.size();
    cards_.insert(cards_.begin() + static_cast<long>(idx), std::move(c));
    use_blanks(n);
  }

  /// `header.append(card)` (not at the bottom): after the last card that is neither blank nor,
  /// for a card with a value, commentary; then a trailing blank card dropped per image.
  void append(Card c) {
    long idx = static_cast<long>(cards_.size()) - 1;
    while (idx >= 0 && is_blank(cards_[static_cast<std::size_t>(idx)])) --idx;
    if (!is_commentary(c.keyword)) {
      while (idx >= 0 && is_commentary(cards_[static_cast<std::size_t>(idx)].keyword)) --idx;
    }
    const std::size_t n = c.images.size();
    cards_.insert(cards_.begin() + (idx + 1), std::move(c));
    if (count_blanks() > 0) use_blanks(n);
  }

  void use_blanks(std::size_t n) {
    for (std::size_t k = 0; k < n && !cards_.empty() && is_blank(cards_.back()); ++k) {
      cards_.pop_back();
    }
  }

  std::vector<Card> cards_;
};

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  return s;
}

/// Return whether `s` matches Python's `[1-9][0-9 ]*$`.
bool is_index_suffix(std::string_view s) {
  return !s.empty() && s[0] >= '1' && s[0] <= '9' &&
         s.find_first_not_of("0123456789 ") == std::string_view::npos;
}

/// astropy's `CompImageHeader._is_reserved_keyword`.
bool is_reserved(const std::string& keyword) {
  if (keyword == "TFIELDS") return true;
  static const std::set<std::string> kTableKeywords = {"TTYPE", "TFORM", "TUNIT", "TNULL", "TSCAL",
                                                       "TZERO", "TDISP", "TBCOL", "TDIM",  "TCTYP",
                                                       "TCUNI", "TCRPX", "TCRVL", "TCDLT", "TRPOS"};
  static const std::set<std::string> kIndexed = {"ZNAXIS", "ZTILE", "ZNAME", "ZVAL"};
  static const std::set<std::string> kCompression = {
      "ZSIMPLE",  "ZTENSION", "ZBITPIX", "ZNAXIS",   "ZEXTEND",  "ZBLOCKED", "ZPCOUNT", "ZGCOUNT",
      "ZHECKSUM", "ZDATASUM", "ZIMAGE",  "ZCMPTYPE", "ZMASKCMP", "ZQUANTIZ", "ZDITHER0"};
  const auto letters_end = [&](std::size_t from, bool any_case) {
    std::size_t i = from;
    while (i < keyword.size() &&
           (any_case ? std::isalpha(static_cast<unsigned char>(keyword[i])) != 0
                     : (keyword[i] >= 'A' && keyword[i] <= 'Z'))) {
      ++i;
    }
    return i;
  };
  // TDEF_RE: ^T[A-Z]* then [1-9][0-9 ]*$ (required).
  if (!keyword.empty() && keyword[0] == 'T') {
    const std::size_t end = letters_end(1, false);
    if (is_index_suffix(std::string_view(keyword).substr(end)) &&
        kTableKeywords.count(upper(keyword.substr(0, end)))) {
      return true;
    }
  }
  // _zdef_re: ^[Zz][a-zA-Z]* then an optional [1-9][0-9 ]*$.
  if (!keyword.empty() && (keyword[0] == 'Z' || keyword[0] == 'z')) {
    const std::size_t end = letters_end(1, true);
    const std::string label = upper(keyword.substr(0, end));
    const bool numbered = is_index_suffix(std::string_view(keyword).substr(end));
    if (numbered && kIndexed.count(label)) return true;
    if (kCompression.count(label)) return true;
  }
  return false;
}

/// Return the value of the first `keyword` card of `cards`, or nullptr.
const Card* first(const std::vector<Card>& cards, std::string_view keyword) {
  for (const auto& c : cards) {
    if (c.keyword == keyword) return &c;
  }
  return nullptr;
}

const Card& required(const std::vector<Card>& table, const std::string& keyword,
                     const asdfcore::ErrorContext& where) {
  const Card* c = first(table, keyword);
  if (!c || !c->value) {
    throw Error(ErrorCode::kMalformed,
                "the tile-compressed image has no " + keyword +
                    " card, so the image's header cannot be known",
                where);
  }
  return *c;
}

}  // namespace

void remove_default_extnames(std::vector<Card>& table) {
  std::vector<std::size_t> names, defaults;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].keyword != "EXTNAME") continue;
    names.push_back(i);
    const NodePtr& v = table[i].value;
    if (v && v->is_string() && v->as_string() == kCompressedImageName) defaults.push_back(i);
  }
  if (names.size() < 2) return;
  if (defaults.size() == names.size()) defaults.erase(defaults.begin());
  for (auto it = defaults.rbegin(); it != defaults.rend(); ++it) {
    table.erase(table.begin() + static_cast<long>(*it));
  }
}

std::vector<Card> compressed_image_header(const std::vector<Card>& table,
                                          const asdfcore::ErrorContext& where) {
  HeaderEdit h(table);
  std::set<std::string> keywords;
  for (const auto& c : table) keywords.insert(c.keyword);
  for (const auto& k : keywords) {
    if (is_reserved(k)) h.erase_all(k);
  }
  const auto table_card = [&table](std::string_view keyword) { return first(table, keyword); };

  if (const Card* zsimple = table_card("ZSIMPLE")) {
    h.set("SIMPLE", zsimple->value, &zsimple->comment, {.before = 0});
    h.erase_all("XTENSION");
  } else if (const Card* ztension = table_card("ZTENSION")) {
    h.set("XTENSION", Node::make_string("IMAGE"), &ztension->comment, {.before = 0});
  } else {
    h.set("XTENSION", Node::make_string("IMAGE"), nullptr, {.before = 0});
  }
  const Card& zbitpix = required(table, "ZBITPIX", where);
  h.set("BITPIX", zbitpix.value, &zbitpix.comment, {.before = 1});
  const Card& znaxis = required(table, "ZNAXIS", where);
  if (znaxis.value->kind() != NodeKind::kInt || znaxis.value->as_int() < 0 ||
      znaxis.value->as_int() > 999) {
    throw Error(ErrorCode::kMalformed, "the tile-compressed image's ZNAXIS is not 0 to 999", where);
  }
  h.set("NAXIS", znaxis.value, &znaxis.comment, {.before = 2});
  const std::int64_t naxis = znaxis.value->as_int();
  std::string last = "NAXIS";
  for (std::int64_t i = 1; i <= naxis; ++i) {
    const Card& z = required(table, "ZNAXIS" + std::to_string(i), where);
    const std::string name = "NAXIS" + std::to_string(i);
    h.set(name, z.value, &z.comment, {.after = last});
    last = name;
  }
  // Any other NAXISn beyond NAXIS.
  std::set<std::string> spurious;
  for (const auto& c : h.cards()) {
    if (c.keyword.size() <= 5 || !c.keyword.starts_with("NAXIS")) continue;
    const std::string digits = c.keyword.substr(5);
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    if (std::stoll(digits) > naxis) spurious.insert(c.keyword);
  }
  for (const auto& k : spurious) h.erase_all(k);

  if (const Card* z = table_card("ZPCOUNT")) {
    h.set("PCOUNT", z->value, &z->comment, {.after = last});
  } else {
    h.set("PCOUNT", Node::make_int(0), nullptr, {.after = last});
  }
  if (const Card* z = table_card("ZGCOUNT")) {
    h.set("GCOUNT", z->value, &z->comment, {.after = "PCOUNT"});
  } else {
    h.set("GCOUNT", Node::make_int(1), nullptr, {.after = "PCOUNT"});
  }
  const std::pair<const char*, const char*> moved[] = {{"ZEXTEND", "EXTEND"},
                                                       {"ZBLOCKED", "BLOCKED"},
                                                       {"ZHECKSUM", "CHECKSUM"},
                                                       {"ZDATASUM", "DATASUM"}};
  for (const auto& [from, to] : moved) {
    if (const Card* z = table_card(from)) h.set(to, z->value, &z->comment);
  }
  if (const Card* name = h.card("EXTNAME"); name && name->value && name->value->is_string() &&
                                            name->value->as_string() == kCompressedImageName) {
    h.erase_all("EXTNAME");
  }
  if (h.has("SIMPLE")) {
    h.erase_all("PCOUNT");
    h.erase_all("GCOUNT");
  }
  const std::size_t table_blanks = HeaderEdit(table).count_blanks();
  for (std::size_t n = h.count_blanks(); n < table_blanks; ++n) h.append_blank();
  return h.take();
}

}  // namespace fitsasdf::info
