#include "compare/header_compare.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <unordered_map>

#include "compare/element.h"

namespace fitsasdf::compare {
namespace {

using asdfcore::tree::Node;
using asdfcore::tree::NodeKind;
using Kind = CardDifference::Kind;

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string rstrip(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

/// Strictly equal values: the same kind, tag and value (NaN equal to NaN).
bool same_value(const Card& a, const Card& b) {
  const bool null_a = !a.value || a.value->is_null();
  const bool null_b = !b.value || b.value->is_null();
  if (null_a || null_b) return null_a == null_b;
  return asdfcore::tree::deep_equal(*a.value, *b.value);
}

/// Values equal as astropy's `diff_values` finds them (after `ignore_blanks`' rstrip).
bool python_equal(const Card& a, const Card& b) {
  const bool null_a = !a.value || a.value->is_null();
  const bool null_b = !b.value || b.value->is_null();
  if (null_a || null_b) return null_a == null_b;
  const Node& x = *a.value;
  const Node& y = *b.value;
  if (const auto numbers = numbers_equal(x, y)) return *numbers;
  if (x.is_string() && y.is_string()) {
    if (x.tag() != y.tag()) return false;
    return x.tag().empty() ? rstrip(x.as_string()) == rstrip(y.as_string())
                           : x.as_string() == y.as_string();
  }
  return asdfcore::tree::deep_equal(x, y);
}

bool blank_card(const Card& c) {
  return c.images.size() == 1 && c.images[0].find_first_not_of(' ') == std::string::npos;
}

void add(HeaderResult& r, CardDifference d, std::size_t max_listed) {
  ++r.total;
  if (r.listed.size() < max_listed) r.listed.push_back(std::move(d));
}

/// Return the positions (indexes into `seq`) of one longest strictly increasing subsequence.
std::vector<std::size_t> longest_increasing(const std::vector<std::size_t>& seq) {
  std::vector<std::size_t> tails;  // index into seq of the smallest tail of each length
  std::vector<std::size_t> prev(seq.size(), SIZE_MAX);
  for (std::size_t i = 0; i < seq.size(); ++i) {
    const auto it = std::lower_bound(tails.begin(), tails.end(), seq[i],
                                     [&](std::size_t t, std::size_t v) { return seq[t] < v; });
    if (it != tails.begin()) prev[i] = *(it - 1);
    if (it == tails.end()) {
      tails.push_back(i);
    } else {
      *it = i;
    }
  }
  std::vector<std::size_t> out;
  for (std::size_t i = tails.empty() ? SIZE_MAX : tails.back(); i != SIZE_MAX; i = prev[i]) {
    out.push_back(i);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace

std::string card_value_text(const Card& card) {
  if (!card.value || card.value->is_null()) return "(undefined)";
  const Node& v = *card.value;
  switch (v.kind()) {
    case NodeKind::kBool:
      return v.as_bool() ? "T" : "F";
    case NodeKind::kInt:
    case NodeKind::kBigInt:
      return v.integer_text();
    case NodeKind::kFloat:
      return format_double(v.as_double());
    case NodeKind::kString: {
      if (!v.tag().empty()) return v.as_string();
      std::string out = "'";
      for (char c : v.as_string()) {
        out += c;
        if (c == '\'') out += '\'';
      }
      return out + "'";
    }
    default:
      return asdfcore::tree::describe_for_error(v);
  }
}

bool keyword_ignored(const std::string& keyword, const std::vector<std::string>& patterns) {
  const std::string k = upper(keyword);
  for (const auto& p : patterns) {
    const std::string u = upper(p);
    if (u == k || fnmatch(u.c_str(), k.c_str(), 0) == 0) return true;
  }
  return false;
}

HeaderResult compare_headers_in_place(const Header& a, const Header& b,
                                      const std::vector<std::string>& ignore_keywords,
                                      std::size_t max_listed) {
  HeaderResult r;
  std::vector<const Card*> ca;
  std::vector<const Card*> cb;
  for (const auto& c : a.cards) {
    if (!keyword_ignored(c.keyword, ignore_keywords)) ca.push_back(&c);
  }
  for (const auto& c : b.cards) {
    if (!keyword_ignored(c.keyword, ignore_keywords)) cb.push_back(&c);
  }
  r.cards_a = ca.size();
  r.cards_b = cb.size();

  // Each card is known by its keyword and its occurrence among the cards of that keyword.
  // When both headers list the same keywords in the same order (a verification's usual case)
  // card i pairs with card i, in order, and no table is needed.
  const bool aligned = ca.size() == cb.size() && std::equal(ca.begin(), ca.end(), cb.begin(),
                                                            [](const Card* x, const Card* y) {
                                                              return x->keyword == y->keyword;
                                                            });
  auto keys = [](const std::vector<const Card*>& cards) {
    std::vector<std::pair<std::string, std::size_t>> out;
    std::unordered_map<std::string, std::size_t> seen;
    for (const Card* c : cards) out.emplace_back(c->keyword, ++seen[c->keyword]);
    return out;
  };
  std::vector<std::pair<std::string, std::size_t>> ka;
  std::vector<std::pair<std::string, std::size_t>> kb;
  std::vector<std::size_t> match(ca.size(), SIZE_MAX);  // A position -> B position
  std::vector<bool> b_matched(cb.size(), aligned);
  std::vector<bool> in_order(ca.size(), aligned);
  if (aligned) {
    for (std::size_t i = 0; i < ca.size(); ++i) match[i] = i;
  } else {
    ka = keys(ca);
    kb = keys(cb);
    std::map<std::pair<std::string, std::size_t>, std::size_t> where_b;
    for (std::size_t j = 0; j < kb.size(); ++j) where_b[kb[j]] = j;
    std::vector<std::size_t> matched_a;
    std::vector<std::size_t> matched_b;
    for (std::size_t i = 0; i < ka.size(); ++i) {
      const auto it = where_b.find(ka[i]);
      if (it == where_b.end()) continue;
      match[i] = it->second;
      b_matched[it->second] = true;
      matched_a.push_back(i);
      matched_b.push_back(it->second);
    }
    for (std::size_t k : longest_increasing(matched_b)) in_order[matched_a[k]] = true;
  }
  // The occurrence of A's card i among A's cards of its keyword.
  const auto occurrence = [&](std::size_t i) {
    if (!aligned) return ka[i].second;
    std::size_t n = 0;
    for (std::size_t k = 0; k <= i; ++k) n += ca[k]->keyword == ca[i]->keyword ? 1 : 0;
    return n;
  };

  std::vector<CardDifference> text_only;
  std::size_t real = 0;
  for (std::size_t i = 0; i < ca.size(); ++i) {
    const Card& x = *ca[i];
    CardDifference d;
    d.keyword = x.keyword;
    d.position_a = i + 1;
    if (match[i] == SIZE_MAX) {
      d.occurrence = occurrence(i);
      d.kind = Kind::kMissing;
      d.a = card_value_text(x);
      add(r, std::move(d), max_listed);
      ++real;
      continue;
    }
    const Card& y = *cb[match[i]];
    d.position_b = match[i] + 1;
    if (!same_value(x, y)) {
      d.kind = Kind::kValue;
      d.a = card_value_text(x);
      d.b = card_value_text(y);
    } else if (x.comment != y.comment) {
      d.kind = Kind::kComment;
      d.a = x.comment;
      d.b = y.comment;
    } else if (!in_order[i]) {
      d.kind = Kind::kMoved;
      d.a = card_value_text(x);
      d.b = card_value_text(y);
    } else if (x.images != y.images) {
      d.kind = Kind::kText;
      d.occurrence = occurrence(i);
      for (const auto& s : x.images) d.a += s;
      for (const auto& s : y.images) d.b += s;
      text_only.push_back(std::move(d));
      continue;
    } else {
      continue;
    }
    d.occurrence = occurrence(i);
    // A card that changed and also moved is reported as changed; the move shows in the order
    // of the others.
    add(r, std::move(d), max_listed);
    ++real;
  }
  for (std::size_t j = 0; j < cb.size(); ++j) {
    if (b_matched[j]) continue;
    CardDifference d;
    d.kind = Kind::kExtra;
    d.keyword = cb[j]->keyword;
    d.occurrence = kb[j].second;
    d.position_b = j + 1;
    d.b = card_value_text(*cb[j]);
    add(r, std::move(d), max_listed);
    ++real;
  }
  for (auto& d : text_only) add(r, std::move(d), max_listed);

  if (a.end_image != b.end_image) r.notes.push_back("the END cards differ");
  if (a.padding != b.padding) {
    // An empty padding is all blanks (Header::padding).
    const auto shown = [](const Header& h) {
      return h.padding.empty() ? std::string("blanks")
                               : std::to_string(h.padding.size()) + " bytes";
    };
    r.notes.push_back("the bytes after the END card differ (" + shown(a) + " and " + shown(b) +
                      ")");
  }
  if (real > 0) {
    r.match = HeaderMatch::kDifferent;
  } else if (!text_only.empty() || !r.notes.empty()) {
    r.match = HeaderMatch::kEqualValues;
  }
  return r;
}

HeaderResult compare_headers_by_keyword(const std::vector<Card>& a, const std::vector<Card>& b,
                                        const std::vector<std::string>& ignore_keywords,
                                        std::size_t max_listed) {
  HeaderResult r;
  struct Entry {
    std::vector<const Card*> cards;
    std::vector<std::size_t> positions;  // 1-based
  };
  auto index = [](const std::vector<Card>& cards, std::size_t& count) {
    std::map<std::string, Entry> out;  // sorted by keyword, as fitsdiff reports them
    std::size_t position = 0;
    for (const auto& c : cards) {
      ++position;
      if (blank_card(c)) continue;
      ++count;
      auto& e = out[upper(c.keyword)];
      e.cards.push_back(&c);
      e.positions.push_back(position);
    }
    return out;
  };
  const auto ia = index(a, r.cards_a);
  const auto ib = index(b, r.cards_b);
  bool different = r.cards_a != r.cards_b;
  const bool all_ignored =
      std::find(ignore_keywords.begin(), ignore_keywords.end(), "*") != ignore_keywords.end();

  if (!all_ignored) {
    for (const auto& [k, e] : ia) {
      if (ib.count(k) != 0 || keyword_ignored(k, ignore_keywords)) continue;
      add(r,
          {Kind::kMissing, e.cards[0]->keyword, 1, e.positions[0], 0, card_value_text(*e.cards[0]),
           ""},
          max_listed);
    }
    for (const auto& [k, e] : ib) {
      if (ia.count(k) != 0 || keyword_ignored(k, ignore_keywords)) continue;
      add(r,
          {Kind::kExtra, e.cards[0]->keyword, 1, 0, e.positions[0], "",
           card_value_text(*e.cards[0])},
          max_listed);
    }
    for (const auto& [k, ea] : ia) {
      const auto it = ib.find(k);
      if (it == ib.end() || keyword_ignored(k, ignore_keywords)) continue;
      const Entry& eb = it->second;
      if (ea.cards.size() != eb.cards.size()) {
        add(r,
            {Kind::kCount, ea.cards[0]->keyword, 1, ea.positions[0], eb.positions[0],
             std::to_string(ea.cards.size()), std::to_string(eb.cards.size())},
            max_listed);
      }
      const std::size_t n = std::min(ea.cards.size(), eb.cards.size());
      for (std::size_t i = 0; i < n; ++i) {
        if (!python_equal(*ea.cards[i], *eb.cards[i])) {
          add(r,
              {Kind::kValue, ea.cards[i]->keyword, i + 1, ea.positions[i], eb.positions[i],
               card_value_text(*ea.cards[i]), card_value_text(*eb.cards[i])},
              max_listed);
        }
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (ea.cards[i]->comment != eb.cards[i]->comment) {
          add(r,
              {Kind::kComment, ea.cards[i]->keyword, i + 1, ea.positions[i], eb.positions[i],
               ea.cards[i]->comment, eb.cards[i]->comment},
              max_listed);
        }
      }
    }
  }
  if (different || r.total > 0) r.match = HeaderMatch::kDifferent;
  return r;
}

}  // namespace fitsasdf::compare
